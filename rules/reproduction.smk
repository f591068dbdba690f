from noveval.reproduction import report as reproduction

REPRODUCTION = reproduction.configured(config)


rule reproduction_report:
    input:
        unpack(
            lambda wildcards: reproduction.inputs(
                RESULTS, REPRODUCTION, NOVBENCH, JUDGES
            )
        ),
    output:
        csv=f"{RESULTS}/reproduction/report.csv",
        markdown=f"{RESULTS}/reproduction/report.md",
    log:
        f"{LOGS}/reproduction/report.log",
    conda:
        "../envs/noveval.yaml"
    params:
        grid=REPRODUCTION,
    script:
        "../scripts/reproduction_report.py"
