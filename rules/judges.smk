from noveval.judges import authors as judge_authors

JUDGE_SETTINGS = {
    key: config["judges"].get(key)
    for key in (
        "max_tokens",
        "calls",
        "calls_by_change",
        "prompts",
        "structured_output",
        "reasoning_chars",
        "plan_max_tokens",
    )
}
JUDGE_RETRIEVAL = config["judges"].get("retrieval") or {}
# The paper mode: the authors' files (rule upstream_file), their verdict format and tie rules.
JUDGE_UPSTREAM = f"{RESULTS}/downloads/upstream/judges"
JUDGE_AUTHORS = config["judges"].get("prompts") == "authors"
JUDGE_BLOCKLIST = (
    [f"{JUDGE_UPSTREAM}/{judge_authors.BLOCKLIST}"]
    if config["judges"].get("blocklist")
    else []
)
JUDGE_PROTOCOL = {
    key: config["judges"].get(key)
    for key in ("prompts", "no_aggregation", "even_split", "all_failed")
}


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
        registry=config["registry"],
        decoding=config["decoding"],
        max_tokens=config["judges"].get("generation", {}).get("max_tokens"),
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/judges_generation_requests.py"


rule judges_generated_instances:
    input:
        pairs=f"{RESULTS}/judges/{{dataset}}/pairwise/{JUDGES.base_setup}/instances.parquet",
        responses=f"{RESULTS}/judges/{{dataset}}/{{generator}}/generation/{JUDGES.base_setup}/responses.parquet",
    output:
        pairwise=f"{RESULTS}/judges/{{dataset}}/pairwise/generated-{{generator}}/instances.parquet",
        pointwise=f"{RESULTS}/judges/{{dataset}}/pointwise/generated-{{generator}}/instances.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/generated-{{generator}}/instances.log",
    wildcard_constraints:
        generator=r"[^/]+",
    conda:
        "../envs/noveval.yaml"
    params:
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/judges_generated_instances.py"


rule judges_ideation_instances:
    input:
        pairs=f"{RESULTS}/judges/{{dataset}}/pairwise/{JUDGES.base_setup}/instances.parquet",
        stronger=f"{RESULTS}/judges/{{dataset}}/{{stronger}}/generation/{JUDGES.base_setup}/responses.parquet",
        weaker=f"{RESULTS}/judges/{{dataset}}/{{weaker}}/generation/{JUDGES.base_setup}/responses.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/pairwise/ideation-{{stronger}}-vs-{{weaker}}/instances.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/ideation-{{stronger}}-vs-{{weaker}}/instances.log",
    wildcard_constraints:
        stronger=r"[^/]+",
        weaker=r"[^/]+",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/judges_ideation_instances.py"


rule judges_instances:
    input:
        release=lambda wildcards: JUDGES.release_file(
            wildcards.dataset, wildcards.setup, wildcards.format
        ),
        blocklist=JUDGE_BLOCKLIST,
    output:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
        setup=JUDGES.release_setups(),  # the setups read from release files
    conda:
        "../envs/noveval.yaml"
    params:
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/judges_instances.py"


rule judges_plan_requests:
    input:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/plan-rewrite/requests.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/plan-rewrite/requests.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
        setup=r"[A-Za-z0-9_.+-]+",
    conda:
        "../envs/noveval.yaml"
    params:
        registry=config["registry"],
        decoding=config["decoding"],
        settings=JUDGE_SETTINGS,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/judges_plan_requests.py"


rule judges_plan_instances:
    input:
        unpack(lambda wildcards: JUDGES.plan_source(RESULTS, wildcards)),
        blocklist=JUDGE_BLOCKLIST,
    output:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances-plan.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/instances-plan.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
        setup=r"[A-Za-z0-9_.+-]+",
    conda:
        "../envs/noveval.yaml"
    params:
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/judges_plan_instances.py"


rule judges_related:
    input:
        instances=f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
        corpus=JUDGE_RETRIEVAL.get("corpus") or [],
    output:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/related.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/related.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
        setup=r"[A-Za-z0-9_.+-]+",
    conda:
        "../envs/noveval.yaml"
    params:
        registry=config["registry"],
        encoder=JUDGE_RETRIEVAL.get("encoder"),
        top_k=JUDGE_RETRIEVAL.get("top_k"),
    script:
        "../scripts/judges_related.py"


rule judges_requests:
    input:
        unpack(lambda wildcards: JUDGES.request_inputs(RESULTS, wildcards)),
        upstream=(
            [f"{JUDGE_UPSTREAM}/{path}" for path in judge_authors.FILES]
            if JUDGE_AUTHORS
            else []
        ),
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/requests.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/requests.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
        setup=r"[A-Za-z0-9_.+-]+",
        change=r"reference|P[1-5]|retrieval|low_reasoning|plan",
    conda:
        "../envs/noveval.yaml"
    params:
        registry=config["registry"],
        decoding=config["decoding"],
        settings=JUDGE_SETTINGS,
        upstream_root=JUDGE_UPSTREAM,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/judges_requests.py"


rule judges_verdicts:
    input:
        instances=f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
        responses=lambda wildcards: JUDGES.responses(RESULTS, wildcards),
    output:
        f"{RESULTS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/verdicts.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{model}}/{{format}}/{{setup}}/{{change}}/verdicts.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
        setup=r"[A-Za-z0-9_.+-]+",
        change=r"reference|P[1-5]|retrieval|low_reasoning|plan|no_aggregation",
    conda:
        "../envs/noveval.yaml"
    params:
        protocol=JUDGE_PROTOCOL,
    script:
        "../scripts/judges_verdicts.py"


rule judges_metrics:
    input:
        lambda wildcards: JUDGES.verdict_paths(
            RESULTS, wildcards.dataset, wildcards.format
        ),
    output:
        parquet=f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.parquet",
        csv=f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.csv",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/metrics.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
    conda:
        "../envs/noveval.yaml"
    params:
        bootstrap=config["judges"]["bootstrap"],
        cost=config["judges"].get("cost", "all_calls"),
    script:
        "../scripts/judges_metrics.py"


rule judges_tables:
    input:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/metrics.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/tables.md",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/tables.log",
    wildcard_constraints:
        format=r"pointwise|pairwise",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/judges_tables.py"


rule judges_cost_quality:
    input:
        lambda wildcards: expand(
            f"{RESULTS}/judges/{wildcards.dataset}/{{format}}/metrics.parquet",
            format=JUDGES.formats(wildcards.dataset),
        ),
    output:
        f"{RESULTS}/judges/{{dataset}}/cost_quality.png",
    log:
        f"{LOGS}/judges/{{dataset}}/cost_quality.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/judges_cost_quality.py"


rule judges_motivation:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/metrics.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/motivation.png",
    log:
        f"{LOGS}/judges/{{dataset}}/motivation.log",
    conda:
        "../envs/noveval.yaml"
    params:
        model=JUDGES.motivation["model"],
        changes=JUDGES.motivation["changes"],
    script:
        "../scripts/judges_motivation.py"


rule judges_d_minus_sources:
    input:
        lambda wildcards: expand(
            f"{RESULTS}/judges/{wildcards.dataset}/{{format}}/metrics.parquet",
            format=JUDGES.formats(wildcards.dataset),
        ),
    output:
        f"{RESULTS}/judges/{{dataset}}/d_minus_sources.png",
    log:
        f"{LOGS}/judges/{{dataset}}/d_minus_sources.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/judges_d_minus_sources.py"


rule judges_ideation:
    input:
        f"{RESULTS}/judges/{{dataset}}/pairwise/metrics.parquet",
    output:
        f"{RESULTS}/judges/{{dataset}}/ideation.md",
    log:
        f"{LOGS}/judges/{{dataset}}/ideation.log",
    conda:
        "../envs/noveval.yaml"
    script:
        "../scripts/judges_ideation.py"
