from noveval.reproduction import report as reproduction

REPRODUCTION = reproduction.configured(config)
# What the run's numbers were produced under, what the paper's were (config/paper.yaml over the
# embedded default, with the project's registry), and the share limits of failed and empty answers.
REPRODUCTION_BASIS = {
    "run": reproduction.conditions(config, REGISTRY),
    "paper": reproduction.paper_conditions(
        "config/config.yaml",
        "config/paper.yaml",
        "config/schemas/config.schema.yaml",
        "config/models.yaml",
    ),
    "limits": config["reproduction"],
}


rule reproduction_report:
    input:
        unpack(
            lambda wildcards: reproduction.inputs(
                RESULTS, REPRODUCTION, NOVBENCH, JUDGES
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
        summary=report(
            f"{RESULTS}/reproduction/summary.md",
            caption="../report/reproduction_summary.rst",
            category="Reproduction",
            labels={"result": "reproduction summary", "file": "Markdown"},
        ),
    log:
        f"{LOGS}/reproduction/report.log",
    conda:
        "../envs/noveval.yaml"
    params:
        grid=REPRODUCTION,
        basis=REPRODUCTION_BASIS,
        code=code_version("noveval.reproduction.report"),
    script:
        "../scripts/reproduction_report.py"
