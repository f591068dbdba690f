rule novbench_radar:
    input:
        scores=lambda wildcards: NOVBENCH.score_paths(RESULTS, wildcards.dataset),
    output:
        report(
            f"{RESULTS}/novbench/{{dataset}}/sentiment_radar.png",
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
        f"{LOGS}/novbench/{{dataset}}/sentiment_radar.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_radar"),
    script:
        "../scripts/stage.py"
