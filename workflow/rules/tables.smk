rule novbench_table:
    input:
        scores=lambda wildcards: NOVBENCH.score_paths(RESULTS, wildcards.dataset),
        # the open models' weights manifests: the notes name the commit each ran at
        weights=[
            manifest
            for model in config["novbench"]["models"]
            for manifest in weights_inputs(REGISTRY.model(model), RESULTS)
        ],
    output:
        csv=report(
            NOVBENCH_LAYOUT.table(extension="csv"),
            caption="../report/novbench_table.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "table", "file": "CSV"},
        ),
        markdown=report(
            NOVBENCH_LAYOUT.table(extension="md"),
            caption="../report/novbench_table.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "table", "file": "Markdown"},
        ),
    log:
        NOVBENCH_LAYOUT.log("table"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_table"),
    script:
        "../scripts/stage.py"
