rule novbench_parse:
    input:
        lambda wildcards: NOVBENCH.responses(
            RESULTS, wildcards.dataset, wildcards.model
        ),
    output:
        NOVBENCH_LAYOUT.parsed(),
    log:
        NOVBENCH_LAYOUT.log("parse"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_parse"),
        think_opened=lambda wildcards: REGISTRY.model(
            wildcards.model
        ).think_opened_by_template,
        # paper mode: repeated items count, as in the authors' transfer() (comment_evaluate.py)
        keep_duplicates=config["novbench"]["prompts"] == "authors",
    script:
        "../scripts/stage.py"
