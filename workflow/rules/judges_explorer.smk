from noveval.judges.explorer import explorer_inputs as judges_explorer_inputs


# The judge study's instance explorer of a dataset (target explorer, rules/explorer.smk).
rule judges_explorer:
    input:
        unpack(
            lambda wildcards: judges_explorer_inputs(
                JUDGES, RESULTS, wildcards.dataset
            )
        ),
    output:
        directory(JUDGES_PATHS.explorer()),
    log:
        JUDGES_PATHS.log("explorer"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_explorer"),
    script:
        "../scripts/stage.py"
