rule novbench_papers:
    input:
        lambda wildcards: NOVBENCH.datasets[wildcards.dataset],
    output:
        f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/papers.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/novbench_papers.py"
