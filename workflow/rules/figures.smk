rule novbench_radar:
    input:
        scores=lambda wildcards: NOVBENCH.score_paths(RESULTS, wildcards.dataset),
    output:
        report(
            NOVBENCH_LAYOUT.radar(),
            caption="../report/novbench_radar.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "result": "sentiment radar",
                "file": "PNG",
            },
        ),
    log:
        NOVBENCH_LAYOUT.log("radar"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_radar"),
    script:
        "../scripts/stage.py"
