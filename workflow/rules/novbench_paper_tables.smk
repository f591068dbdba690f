# NovBench's appendix tables from the authors' released annotations: paper type (Tables 6-7),
# reviewer confidence (Table 8) and the human agreement (Section 4.3), per dataset that declares
# them (novbench.datasets.<name>: paper_types, review_confidence, human_eval).
from noveval.inference.batches import PAPER_TYPE
from noveval.novbench.paper_tables import human_eval_resources
from noveval.novbench.paper_type import CLASSIFIER_SCRIPT
from noveval.core.upstream import fetched_path
from noveval.inference.weights import scorer_weights_inputs


rule novbench_annotation_download:
    output:
        NOVBENCH_LAYOUT.annotation_download(),
    log:
        NOVBENCH_LAYOUT.log("annotation_download"),
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
        papers=NOVBENCH_LAYOUT.papers(),
        script=str(fetched_path(RESULTS, "novbench", CLASSIFIER_SCRIPT)),
    output:
        NOVBENCH_LAYOUT.requests(cell=PAPER_TYPE),
    log:
        NOVBENCH_LAYOUT.log("requests", cell=PAPER_TYPE),
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
            PAPER_TYPE,
        ),
    output:
        NOVBENCH_LAYOUT.paper_type_labels(),
    log:
        NOVBENCH_LAYOUT.log("paper_type_labels"),
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
            NOVBENCH_LAYOUT.appendix_table(kind="paper_types"),
            caption="../report/novbench_paper_tables.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "paper type (Tables 6-7)"},
        ),
    log:
        NOVBENCH_LAYOUT.log("paper_type_table"),
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
        csv=report(
            NOVBENCH_LAYOUT.appendix_table(kind="review_confidence"),
            caption="../report/novbench_paper_tables.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "reviewer confidence (Table 8)"},
        ),
    log:
        NOVBENCH_LAYOUT.log("reviewer_confidence"),
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
        NOVBENCH_LAYOUT.human_eval_scores(),
    log:
        NOVBENCH_LAYOUT.log("human_eval_scores"),
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
        scores=NOVBENCH_LAYOUT.human_eval_scores(),
    output:
        report(
            NOVBENCH_LAYOUT.appendix_table(kind="human_eval"),
            caption="../report/novbench_paper_tables.rst",
            category="NovBench",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "result": "human agreement (Section 4.3)"},
        ),
    log:
        NOVBENCH_LAYOUT.log("human_agreement"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_human_agreement"),
    script:
        "../scripts/stage.py"
