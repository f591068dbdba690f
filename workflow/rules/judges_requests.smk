# The judge track's requests: generated ideas, purpose-mechanism rewrites, the literature search's
# two LLM steps and each cell's calls.
from noveval.literature.assisted_search import (
    AUTHORS_FILES as ASSISTED_SEARCH_TEMPLATES,
)

SEARCH_SETTINGS = config_slice(
    config["judges"], "max_tokens", "structured_output", "prompts", "retrieval"
)


rule judges_generation_requests:
    input:
        pairs=JUDGES_PATHS.instances(format="pairwise", setup=JUDGES.base_setup),
    output:
        JUDGES_PATHS.generation_requests(JUDGES.base_setup),
    log:
        JUDGES_PATHS.log("generation_requests"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_generation_requests", data=("prompts/judges",)),
        registry=config["registry"],
        decoding=config["decoding"],
        max_tokens=config["judges"]["generation"]["max_tokens"],
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule judges_rewrite_requests:
    input:
        instances=JUDGES_PATHS.instances(),
    output:
        JUDGES_PATHS.step_requests("rewrite"),
    log:
        JUDGES_PATHS.log("rewrite_requests"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_rewrite_requests", data=("prompts/judges",)),
        registry=config["registry"],
        decoding=config["decoding"],
        settings=config_slice(
            config["judges"], "rewrite_max_tokens", "structured_output"
        ),
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule judges_search_contribution_requests:
    input:
        instances=JUDGES_PATHS.instances(),
        upstream=(
            [f"{JUDGE_UPSTREAM}/{path}" for path in ASSISTED_SEARCH_TEMPLATES]
            if config["judges"]["prompts"] == "authors"
            else []
        ),
    output:
        JUDGES_PATHS.step_requests("search_contributions"),
    log:
        JUDGES_PATHS.log("search_contribution_requests"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_search_contribution_requests", data=("prompts/judges",)),
        registry=config["registry"],
        decoding=config["decoding"],
        settings=SEARCH_SETTINGS,
        upstream_root=JUDGE_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule judges_search_query_requests:
    input:
        instances=JUDGES_PATHS.instances(),
        responses=lambda wildcards: JUDGES.search_responses(
            RESULTS, wildcards.dataset, "search_contributions"
        ),
        upstream=(
            [f"{JUDGE_UPSTREAM}/{path}" for path in ASSISTED_SEARCH_TEMPLATES]
            if config["judges"]["prompts"] == "authors"
            else []
        ),
    output:
        JUDGES_PATHS.step_requests("search_queries"),
    log:
        JUDGES_PATHS.log("search_query_requests"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_search_query_requests", data=("prompts/judges",)),
        responses_cell=lambda wildcards: (
            f"{wildcards.format}/{wildcards.setup}/search_contributions"
        ),
        registry=config["registry"],
        decoding=config["decoding"],
        settings=SEARCH_SETTINGS,
        upstream_root=JUDGE_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule judges_requests:
    input:
        unpack(lambda wildcards: JUDGES.request_inputs(RESULTS, wildcards)),
        upstream=(
            [f"{JUDGE_UPSTREAM}/{path}" for path in judge_authors.FILES]
            if config["judges"]["prompts"] == "authors"
            else []
        ),
    output:
        JUDGES_PATHS.requests(),
    log:
        JUDGES_PATHS.log("requests"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_requests", data=("prompts/judges",)),
        registry=config["registry"],
        decoding=config["decoding"],
        settings=config_slice(
            config["judges"],
            "max_tokens",
            "calls",
            "calls_by_change",
            "prompts",
            "structured_output",
            "reasoning_chars",
            "prompt_caching",
            "reasoning_summary",
        ),
        upstream_root=JUDGE_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"
