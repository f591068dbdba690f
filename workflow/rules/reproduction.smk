from noveval.reproduction import conditions as reproduction_conditions
from noveval.reproduction import targets as reproduction_targets

PROJECT_REGISTRY = "config/models.yaml"
REPRODUCTION = reproduction_targets.configured(config, JUDGES.not_runnable)
REPRODUCTION_CELLS = reproduction_targets.cells(RESULTS, REPRODUCTION, NOVBENCH)
# The paper's files its conditions are read from (config/paper.yaml over the embedded default,
# with the project's registry); the report's conditions are read only when its job is planned.
PAPER_FILES = {
    "default": "config/config.yaml",
    "paper": "config/paper.yaml",
    "schema": schema_file(f"{workflow.basedir}/schemas/config.schema.yaml"),
    "registry": PROJECT_REGISTRY,
}
# With the authors' prompts, the report rebuilds each cell's paper-mode requests from their
# fetched scripts and compares their digest with the requests the run sent.
AUTHORS_SCRIPTS = (
    reproduction_targets.authors_scripts(RESULTS, REPRODUCTION_CELLS, PROJECT_REGISTRY)
    if config["novbench"]["prompts"] == "authors"
    else []
)


rule reproduction_report:
    input:
        unpack(
            lambda wildcards: reproduction_targets.inputs(
                RESULTS,
                REPRODUCTION,
                NOVBENCH,
                JUDGES,
                REPRODUCTION_CELLS,
                AUTHORS_SCRIPTS,
                PAPER_TABLES,
                NOVBENCH_CONSTRUCTION.validation_scores(RESULTS),
                [  # the commit each open model ran at
                    manifest
                    for model in config["novbench"]["models"]
                    for manifest in weights_inputs(REGISTRY.model(model), RESULTS)
                ],
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
        conditions=lambda wildcards: reproduction_conditions.Conditions.read(
            config, REGISTRY, PAPER_FILES
        ),
        cells=REPRODUCTION_CELLS,
        registry=PROJECT_REGISTRY,
        upstream_root=f"{RESULTS}/downloads/upstream/novbench",
        code=stage_code("reproduction_report"),
    script:
        "../scripts/stage.py"
