# NovBench's appendix tables from the authors' released annotations: paper type (Tables 6-7),
# reviewer confidence (Table 8) and the human agreement (Section 4.3), per dataset that declares
# them (novbench.datasets.<name>: paper_types, review_confidence, human_eval).
from noveval.novbench.paper_tables import (
    PAPER_TYPE_BATCH,
    human_eval_resources,
)
from noveval.novbench.paper_type import CLASSIFIER_SCRIPT
from noveval.upstream import fetched_path
from noveval.weights import scorer_weights_inputs



rule novbench_annotation_download:
    output:
        f"{RESULTS}/downloads/novbench/{{dataset}}/{{kind}}.json",
    log:
        f"{LOGS}/novbench/{{dataset}}/download-{{kind}}.log",
    wildcard_constraints:
        kind="paper_types|review_confidence",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        url=lambda wildcards: PAPER_TABLES.file(wildcards.dataset, wildcards.kind).url,
        sha256=lambda wildcards: PAPER_TABLES.file(
            wildcards.dataset, wildcards.kind
        ).sha256,
    script:
        "../scripts/stage.py"


rule novbench_paper_type_requests:
    input:
        papers=f"{RESULTS}/novbench/{{dataset}}/papers.parquet",
        script=str(fetched_path(RESULTS, "novbench", CLASSIFIER_SCRIPT)),
    output:
        f"{RESULTS}/novbench/{{dataset}}/{{model}}/{PAPER_TYPE_BATCH}/requests.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/{{model}}/{PAPER_TYPE_BATCH}/requests.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_paper_type_requests"),
        registry=config["registry"],
        decoding=config["decoding"],
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule novbench_paper_type_labels:
    input:
        lambda wildcards: NOVBENCH.responses(
            RESULTS,
            wildcards.dataset,
            PAPER_TABLES.classifiers[wildcards.dataset],
            PAPER_TYPE_BATCH,
        ),
    output:
        f"{RESULTS}/novbench/{{dataset}}/{PAPER_TYPE_BATCH}/labels.json",
    log:
        f"{LOGS}/novbench/{{dataset}}/{PAPER_TYPE_BATCH}/labels.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_paper_type_labels"),
    script:
        "../scripts/stage.py"


rule novbench_paper_type_table:
    input:
        scores=lambda wildcards: NOVBENCH.score_paths(RESULTS, wildcards.dataset),
        labels=lambda wildcards: PAPER_TABLES.labels_path(RESULTS, wildcards.dataset),
    output:
        report(
            f"{RESULTS}/novbench/{{dataset}}/paper_type.csv",
            caption="../report/novbench_paper_tables.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "paper type (Tables 6-7)"},
        ),
    log:
        f"{LOGS}/novbench/{{dataset}}/paper_type.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_paper_type_table"),
    script:
        "../scripts/stage.py"


rule novbench_reviewer_confidence:
    input:
        responses=lambda wildcards: [
            NOVBENCH.responses(RESULTS, wildcards.dataset, model)
            for model in dict.fromkeys(
                cell.model for cell in NOVBENCH.cells_of(wildcards.dataset)
            )
        ],
        pairs=lambda wildcards: PAPER_TABLES.file(
            wildcards.dataset, "review_confidence"
        ).path,
        # a hub encoder, downloaded by rule weights at its pinned revision, read offline
        weights=scorer_weights_inputs(
            REGISTRY, [config["novbench"]["scoring"]["coverage_encoder"]], RESULTS
        ),
    output:
        report(
            f"{RESULTS}/novbench/{{dataset}}/reviewer_confidence.csv",
            caption="../report/novbench_paper_tables.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "reviewer confidence (Table 8)"},
        ),
    log:
        f"{LOGS}/novbench/{{dataset}}/reviewer_confidence.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_reviewer_confidence"),
        encoder=config["novbench"]["scoring"]["coverage_encoder"],
        registry=config["registry"],
        reference=REGISTRY.encoder(config["novbench"]["scoring"]["coverage_encoder"]),
    script:
        "../scripts/stage.py"


rule novbench_human_eval_scores:
    input:
        lambda wildcards: PAPER_TABLES.human_eval[wildcards.dataset],
    output:
        f"{RESULTS}/novbench/{{dataset}}/human_eval_scores.parquet",
    log:
        f"{LOGS}/novbench/{{dataset}}/human_eval_scores.log",
    conda:
        "../envs/noveval.yaml"
    threads: SCORING_THREADS
    resources:
        **human_eval_resources(config),
    params:
        code=stage_code("novbench_human_eval_scores"),
        registry=config["registry"],
        scoring=config["novbench"]["scoring"],
        scorers=scorer_references(REGISTRY, config["novbench"]["scoring"]),
    script:
        "../scripts/stage.py"


rule novbench_human_agreement:
    input:
        sheets=lambda wildcards: PAPER_TABLES.human_eval[wildcards.dataset],
        scores=f"{RESULTS}/novbench/{{dataset}}/human_eval_scores.parquet",
    output:
        report(
            f"{RESULTS}/novbench/{{dataset}}/human_agreement.csv",
            caption="../report/novbench_paper_tables.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "human agreement (Section 4.3)"},
        ),
    log:
        f"{LOGS}/novbench/{{dataset}}/human_agreement.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_human_agreement"),
    script:
        "../scripts/stage.py"
