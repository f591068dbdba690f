# NovBench built from papers and reviews in the NLPeer layout (config construction.novbench),
# and its extraction steps scored against the authors' labels (Appendices A and B). The NLPeer
# folder is the user's (a param: rule construction_novbench_sources names it when it is missing).
from functools import partial

from noveval.construction import authors as construction_authors
from noveval.construction.grid import VALIDATION as EXTRACTION

BUILT_SECTION = NOVBENCH_CONSTRUCTION.section or {}
BUILT = f"{RESULTS}/{NOVBENCH_BUILT}"
BUILT_LOGS = f"{LOGS}/{NOVBENCH_BUILT}"
CONSTRUCTION_SCRIPTS = [
    f"{NOVBENCH_UPSTREAM}/{path}"
    for path in (construction_authors.CONSTRUCTION, construction_authors.NORMALISATION)
]
VALIDATION_SCRIPTS = [
    f"{NOVBENCH_UPSTREAM}/{path}"
    for path in (
        construction_authors.CONSTRUCTION,
        construction_authors.INTRODUCTION_PROMPTS,
    )
]
PUNKT_MODEL = f"{RESULTS}/downloads/nltk/punkt_tab/english"
# The sentence splitter's model: the package's copy, or NLTK's archive (rule construction_punkt_model).
PUNKT_INPUTS = [PUNKT_MODEL] if BUILT_SECTION.get("punkt") == "download" else []
# The built NovBench release and its summary (none without construction.novbench).
construction_novbench_targets = partial(NOVBENCH_CONSTRUCTION.targets, RESULTS)


# NLTK's English Punkt model, downloaded once on the submitting host at its pinned digest.
rule construction_punkt_model:
    output:
        directory(PUNKT_MODEL),
    log:
        f"{LOGS}/downloads/punkt_model.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/stage.py"


rule construction_novbench_sources:
    input:
        punkt=PUNKT_INPUTS,
    output:
        papers=f"{BUILT}/{{dataset}}/papers.parquet",
        sentences=f"{BUILT}/{{dataset}}/sentences.parquet",
        skipped=f"{BUILT}/{{dataset}}/skipped_read.parquet",
    log:
        f"{BUILT_LOGS}/{{dataset}}/sources.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_sources"),
        nlpeer=BUILT_SECTION.get("nlpeer"),
        reading={
            key: BUILT_SECTION.get(key)
            for key in (
                "review_fields",
                "introduction_nodes",
                "review_sentences",
                "carry_over_reviews",
            )
        },
    script:
        "../scripts/stage.py"


rule construction_novbench_sentence_requests:
    input:
        sentences=f"{BUILT}/{{dataset}}/sentences.parquet",
        upstream=lambda wildcards: CONSTRUCTION_SCRIPTS,
    output:
        f"{BUILT}/{{dataset}}/{{model}}/{{kind}}_sentences/requests.parquet",
    log:
        f"{BUILT_LOGS}/{{dataset}}/{{model}}/{{kind}}_sentences/requests.log",
    wildcard_constraints:
        kind="introduction|review",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_sentence_requests"),
        registry=config["registry"],
        decoding=BUILT_SECTION.get("decoding"),
        upstream_root=NOVBENCH_UPSTREAM,
        calls=BUILT_SECTION.get("calls"),
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule construction_novbench_normalisation_requests:
    input:
        papers=f"{BUILT}/{{dataset}}/papers.parquet",
        sentences=f"{BUILT}/{{dataset}}/sentences.parquet",
        responses=lambda wildcards: NOVBENCH_CONSTRUCTION.responses(
            RESULTS,
            wildcards.dataset,
            BUILT_SECTION.get("sentence_model"),
            "sentences",
        ),
        upstream=lambda wildcards: CONSTRUCTION_SCRIPTS,
    output:
        requests=f"{BUILT}/{{dataset}}/{{model}}/normalisation/requests.parquet",
        extracted=f"{BUILT}/{{dataset}}/{{model}}/normalisation/extracted.parquet",
        skipped=f"{BUILT}/{{dataset}}/{{model}}/normalisation/skipped.parquet",
    log:
        f"{BUILT_LOGS}/{{dataset}}/{{model}}/normalisation/requests.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_normalisation_requests"),
        registry=config["registry"],
        decoding=BUILT_SECTION.get("decoding"),
        upstream_root=NOVBENCH_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


# The corpus is the user's file: an input once it is there (a dry run before then plans the
# build; the job names the missing file).
rule construction_novbench_retrieval:
    input:
        papers=f"{BUILT}/{{dataset}}/papers.parquet",
        corpus=lambda wildcards: NOVBENCH_CONSTRUCTION.corpus_inputs(),
        weights=lambda wildcards: scorer_weights_inputs(
            REGISTRY, [BUILT_SECTION.get("retrieval")["encoder"]], RESULTS
        ),
    output:
        f"{BUILT}/{{dataset}}/retrieved.parquet",
    log:
        f"{BUILT_LOGS}/{{dataset}}/retrieval.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_retrieval"),
        encoder=lambda wildcards: REGISTRY.encoder(
            BUILT_SECTION.get("retrieval")["encoder"]
        ),
        corpus=lambda wildcards: BUILT_SECTION.get("retrieval")["corpus"],
        top_k=lambda wildcards: BUILT_SECTION.get("retrieval")["top_k"],
    script:
        "../scripts/stage.py"


rule construction_novbench_release:
    input:
        papers=f"{BUILT}/{{dataset}}/papers.parquet",
        extracted=lambda wildcards: NOVBENCH_CONSTRUCTION.normalised(
            RESULTS, wildcards.dataset, "extracted.parquet"
        ),
        skipped=lambda wildcards: [
            f"{BUILT}/{wildcards.dataset}/skipped_read.parquet",
            NOVBENCH_CONSTRUCTION.normalised(
                RESULTS, wildcards.dataset, "skipped.parquet"
            ),
        ],
        responses=lambda wildcards: NOVBENCH_CONSTRUCTION.responses(
            RESULTS,
            wildcards.dataset,
            BUILT_SECTION.get("normalisation_model"),
            "normalisation",
        ),
        retrieved=f"{BUILT}/{{dataset}}/retrieved.parquet",
    output:
        release=f"{BUILT}/{{dataset}}/release.json",
        summary=f"{BUILT}/{{dataset}}/summary.md",
    log:
        f"{BUILT_LOGS}/{{dataset}}/release.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_release"),
    script:
        "../scripts/stage.py"


rule construction_novbench_extraction_requests:
    input:
        labels=lambda wildcards: NOVBENCH_CONSTRUCTION.label_files(wildcards.prompt),
        upstream=lambda wildcards: VALIDATION_SCRIPTS,
    output:
        f"{BUILT}/{EXTRACTION}/{{model}}/{{prompt}}/requests.parquet",
    log:
        f"{BUILT_LOGS}/{EXTRACTION}/{{model}}/{{prompt}}/requests.log",
    wildcard_constraints:
        prompt="direct|context|few_shot|step|review",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_extraction_requests"),
        registry=config["registry"],
        decoding=BUILT_SECTION.get("decoding"),
        labels=BUILT_SECTION.get("validation"),
        upstream_root=NOVBENCH_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule construction_novbench_extraction_step_requests:
    input:
        responses=f"{BUILT}/{EXTRACTION}/{{model}}/responses/sentences.parquet",
        upstream=lambda wildcards: VALIDATION_SCRIPTS,
    output:
        f"{BUILT}/{EXTRACTION}/{{model}}/step_decision/requests.parquet",
    log:
        f"{BUILT_LOGS}/{EXTRACTION}/{{model}}/step_decision/requests.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_extraction_step_requests"),
        registry=config["registry"],
        decoding=BUILT_SECTION.get("decoding"),
        upstream_root=NOVBENCH_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule construction_novbench_extraction_scores:
    input:
        labels=lambda wildcards: NOVBENCH_CONSTRUCTION.label_files(),
        sentences=expand(
            f"{BUILT}/{EXTRACTION}/{{model}}/responses/sentences.parquet",
            model=NOVBENCH_CONSTRUCTION.validation_models(),
        ),
        step=expand(
            f"{BUILT}/{EXTRACTION}/{{model}}/responses/step.parquet",
            model=(
                NOVBENCH_CONSTRUCTION.validation_models()
                if "step" in NOVBENCH_CONSTRUCTION.validation_prompts()
                else []
            ),
        ),
    output:
        f"{BUILT}/{EXTRACTION}/scores.csv",
    log:
        f"{BUILT_LOGS}/{EXTRACTION}/scores.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("construction_novbench_extraction_scores"),
        models=NOVBENCH_CONSTRUCTION.validation_models(),
        prompts=NOVBENCH_CONSTRUCTION.validation_prompts(),
        labels=BUILT_SECTION.get("validation"),
        max_tokens=(BUILT_SECTION.get("decoding") or {}).get("max_tokens"),
    script:
        "../scripts/stage.py"


rule build_novbench:
    input:
        construction_novbench_targets(),
