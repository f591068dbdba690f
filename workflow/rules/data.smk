rule novbench_papers:
    input:
        release=lambda wildcards: NOVBENCH.datasets[wildcards.dataset],
        perturbations=lambda wildcards: NOVBENCH.perturbation_release_paths(
            wildcards.dataset
        ).values(),
    output:
        NOVBENCH_LAYOUT.papers(),
    log:
        NOVBENCH_LAYOUT.log("papers"),
    conda:
        "../envs/noveval.yaml"
    params:
        perturbations=lambda wildcards: NOVBENCH.perturbation_release_paths(
            wildcards.dataset
        ),
        code=stage_code("novbench_papers"),
    script:
        "../scripts/stage.py"


rule novbench_download:
    output:
        NOVBENCH_LAYOUT.release_download(),
    log:
        NOVBENCH_LAYOUT.log("download"),
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        url=lambda wildcards: NOVBENCH.release_file(wildcards.dataset).url,
        sha256=lambda wildcards: NOVBENCH.release_file(wildcards.dataset).sha256,
    script:
        "../scripts/stage.py"


rule upstream_file:
    output:
        f"{RESULTS}/downloads/upstream/{{study}}/{{path}}",
    log:
        f"{LOGS}/upstream/{{study}}/{{path}}.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        mirror=lambda wildcards: config["upstream"][wildcards.study],
    script:
        "../scripts/stage.py"
