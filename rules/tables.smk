rule novbench_table:
    input:
        lambda wildcards: NOVBENCH.score_paths(RESULTS, wildcards.dataset),
    output:
        csv=f"{RESULTS}/novbench/{{dataset}}/table.csv",
        markdown=f"{RESULTS}/novbench/{{dataset}}/table.md",
    log:
        f"{LOGS}/novbench/{{dataset}}/table.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/novbench_table.py"
