# The judge track's requests: generated ideas, purpose-mechanism rewrites and each cell's calls.
rule judges_generation_requests:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/{JUDGES.base_setup}/instances.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/generation/{JUDGES.base_setup}/requests.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/generation/requests.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version(
            "noveval.judges.generation",
            step="noveval.judges.steps",
            data=("prompts/judges",),
        ),
        registry=config["registry"],
        decoding=config["decoding"],
        max_tokens=config["judges"]["generation"]["max_tokens"],
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/judges_generation_requests.py"


rule judges_rewrite_requests:
    input:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/rewrite/requests.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/rewrite/requests.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version(
            "noveval.judges.rewrites",
            step="noveval.judges.steps",
            data=("prompts/judges",),
        ),
        registry=config["registry"],
        decoding=config["decoding"],
        settings=config_slice(
            config["judges"], "rewrite_max_tokens", "structured_output"
        ),
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/judges_rewrite_requests.py"


rule judges_requests:
    input:
        unpack(lambda wildcards: JUDGES.request_inputs(RESULTS, wildcards)),
        upstream=(
            [f"{JUDGE_UPSTREAM}/{path}" for path in judge_authors.FILES]
            if config["judges"]["prompts"] == "authors"
            else []
        ),
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/requests.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/requests.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=code_version(
            "noveval.judges.prompts",
            "noveval.judges.authors",
            step="noveval.judges.steps",
            data=("prompts/judges",),
        ),
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
        "../scripts/judges_requests.py"
