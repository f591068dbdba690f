rule novbench_radar:
    input:
        lambda wildcards: NOVBENCH.score_paths(RESULTS, wildcards.dataset),
    output:
        f"{RESULTS}/novbench/{{dataset}}/sentiment_radar.png",
    log:
        f"{LOGS}/novbench/{{dataset}}/sentiment_radar.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/novbench_radar.py"
