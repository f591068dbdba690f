from noveval.reproduction import report as reproduction


rule reproduction_report:
    input:
        unpack(lambda wildcards: reproduction.inputs(RESULTS, NOVBENCH, JUDGES)),
    output:
        csv=f"{RESULTS}/reproduction/report.csv",
        markdown=f"{RESULTS}/reproduction/report.md",
    log:
        f"{LOGS}/reproduction/report.log",
    conda:
        "../envs/noveval.yaml"
    params:
        grid=reproduction.configured(config, NOVBENCH, JUDGES),
    script:
        "../scripts/reproduction_report.py"
