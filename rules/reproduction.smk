from noveval.reproduction import report as reproduction

REPRODUCTION = reproduction.configured(config)


rule reproduction_report:
    input:
        unpack(
            lambda wildcards: reproduction.inputs(
                RESULTS, REPRODUCTION, NOVBENCH, JUDGES, PAPER_TABLES
            )
        ),
    output:
        csv=report(
            f"{RESULTS}/reproduction/report.csv",
            caption="../report/reproduction.rst",
            category="Reproduction",
            labels={"result": "reproduction report", "file": "CSV"},
        ),
        markdown=report(
            f"{RESULTS}/reproduction/report.md",
            caption="../report/reproduction.rst",
            category="Reproduction",
            labels={"result": "reproduction report", "file": "Markdown"},
        ),
    log:
        f"{LOGS}/reproduction/report.log",
    conda:
        "../envs/noveval.yaml"
    params:
        grid=REPRODUCTION,
        code=code_version("noveval.reproduction.report"),
    script:
        "../scripts/reproduction_report.py"
