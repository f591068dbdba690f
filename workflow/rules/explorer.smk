from noveval.novbench.explorer import explorer_inputs as novbench_explorer_inputs


# Each study's instance explorer per dataset: a folder that opens by double-click, every answer,
# score and verdict behind its tables (noveval.core.explorer).
rule novbench_explorer:
    input:
        unpack(
            lambda wildcards: novbench_explorer_inputs(
                NOVBENCH, RESULTS, wildcards.dataset
            )
        ),
    output:
        directory(NOVBENCH_LAYOUT.explorer()),
    log:
        NOVBENCH_LAYOUT.log("explorer"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_explorer"),
    script:
        "../scripts/stage.py"


rule explorer:
    input:
        [NOVBENCH_LAYOUT.explorer(dataset) for dataset in NOVBENCH.datasets],
        [JUDGES_PATHS.explorer(dataset) for dataset in JUDGES.datasets],
