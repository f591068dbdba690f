# The judge track's tables: from the metrics alone, but the dataset sizes (from the instances)
# and the expert study (from the release's annotations).
rule judges_tables:
    input:
        JUDGES_PATHS.metrics(),
    output:
        report(
            JUDGES_PATHS.format_output("tables.md"),
            caption="../report/judges_tables.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "{format}",
                "result": "tables",
                "file": "Markdown",
            },
        ),
    log:
        JUDGES_PATHS.log("tables"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_tables"),
    script:
        "../scripts/stage.py"


rule judges_ideation:
    input:
        JUDGES_PATHS.metrics(format="pairwise"),
    output:
        csv=report(
            JUDGES_PATHS.output("ideation.csv"),
            caption="../report/judges_ideation.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "ideation comparison",
                "file": "CSV",
            },
        ),
        markdown=report(
            JUDGES_PATHS.output("ideation.md"),
            caption="../report/judges_ideation.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "ideation comparison",
                "file": "Markdown",
            },
        ),
    log:
        JUDGES_PATHS.log("ideation"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_ideation"),
    script:
        "../scripts/stage.py"


rule judges_flip_rates:
    input:
        pairwise=lambda wildcards: JUDGES.verdict_paths(
            RESULTS, wildcards.dataset, "pairwise"
        ),
        pointwise=lambda wildcards: JUDGES.verdict_paths(
            RESULTS, wildcards.dataset, "pointwise"
        ),
    output:
        csv=report(
            JUDGES_PATHS.output("flip_rates.csv"),
            caption="../report/judges_flip_rates.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "flip rates",
                "file": "CSV",
            },
        ),
        markdown=report(
            JUDGES_PATHS.output("flip_rates.md"),
            caption="../report/judges_flip_rates.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "flip rates",
                "file": "Markdown",
            },
        ),
    log:
        JUDGES_PATHS.log("flip_rates"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_flip_rates"),
        baselines=JUDGES.flip_baselines(),
    script:
        "../scripts/stage.py"


rule judges_plan_format:
    input:
        metrics=lambda wildcards: JUDGES.metrics_paths(RESULTS, wildcards.dataset),
    output:
        report(
            JUDGES_PATHS.output("plan_format.csv"),
            caption="../report/judges_plan_format.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "idea as a plan",
                "file": "CSV",
            },
        ),
    log:
        JUDGES_PATHS.log("plan_format"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_plan_format"),
    script:
        "../scripts/stage.py"


# The dataset sizes are counted from the instances the cells judge (after the blocklist).
rule judges_dataset_sizes:
    input:
        instances=lambda wildcards: JUDGES.instance_files(RESULTS, wildcards.dataset)[0],
    output:
        csv=report(
            JUDGES_PATHS.output("dataset_sizes.csv"),
            caption="../report/judges_dataset_sizes.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "dataset sizes",
                "file": "CSV",
            },
        ),
        markdown=report(
            JUDGES_PATHS.output("dataset_sizes.md"),
            caption="../report/judges_dataset_sizes.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "both",
                "result": "dataset sizes",
                "file": "Markdown",
            },
        ),
    log:
        JUDGES_PATHS.log("dataset_sizes"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_dataset_sizes"),
        idea_formats=lambda wildcards: JUDGES.instance_files(
            RESULTS, wildcards.dataset
        )[1],
    script:
        "../scripts/stage.py"


rule judges_expert_study:
    input:
        lambda wildcards: JUDGES.expert_annotations(wildcards.dataset) or [],
    output:
        csv=report(
            JUDGES_PATHS.output("expert_study.csv"),
            caption="../report/judges_expert_study.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "expert study",
                "file": "CSV",
            },
        ),
        markdown=report(
            JUDGES_PATHS.output("expert_study.md"),
            caption="../report/judges_expert_study.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "pairwise",
                "result": "expert study",
                "file": "Markdown",
            },
        ),
    log:
        JUDGES_PATHS.log("expert_study"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_expert_study"),
    script:
        "../scripts/stage.py"
