# The judge track, first step: instances from the release, generated ideas and rewritten ideas.
from noveval.judges import authors as judge_authors
from noveval.weights import scorer_weights_inputs

# Paper mode: the upstream files (rule upstream_file), their verdict format and tie rules.
JUDGE_BLOCKLIST = (
    [f"{JUDGE_UPSTREAM}/{judge_authors.BLOCKLIST}"]
    if config["judges"]["blocklist"]
    else []
)


rule judges_instances:
    input:
        release=lambda wildcards: JUDGES.release_file(
            wildcards.dataset, wildcards.setup, wildcards.format
        ),
        blocklist=JUDGE_BLOCKLIST,
        pairs=lambda wildcards: JUDGE_BLOCKLIST and JUDGES.blocklist_pairs(wildcards),
    output:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.log",
    wildcard_constraints:
        setup=JUDGES.release_setups(),  # the setups read from release files
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_instances"),
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/stage.py"


rule judges_generated_instances:
    input:
        pairs=f"{RESULTS}/judges/{{dataset}}/pairwise/{JUDGES.base_setup}/instances.parquet",
        responses=lambda wildcards: JUDGES.generated_ideas(
            RESULTS, wildcards.dataset, wildcards.generator
        ),
    output:
        pairwise=f"{RESULTS}/judges/{{dataset}}/pairwise/generated-{{generator}}/instances.parquet",
        pointwise=f"{RESULTS}/judges/{{dataset}}/pointwise/generated-{{generator}}/instances.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/generated-{{generator}}/instances.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_generated_instances"),
        cell=JUDGES.generation_cell(),
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/stage.py"


rule judges_ideation_instances:
    input:
        pairs=f"{RESULTS}/judges/{{dataset}}/pairwise/{JUDGES.base_setup}/instances.parquet",
        stronger=lambda wildcards: JUDGES.generated_ideas(
            RESULTS, wildcards.dataset, wildcards.stronger
        ),
        weaker=lambda wildcards: JUDGES.generated_ideas(
            RESULTS, wildcards.dataset, wildcards.weaker
        ),
    output:
        f"{RESULTS}/judges/{{dataset}}/pairwise/ideation-{{stronger}}-vs-{{weaker}}/instances.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/ideation-{{stronger}}-vs-{{weaker}}/instances.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_ideation_instances"),
        cell=JUDGES.generation_cell(),
    script:
        "../scripts/stage.py"


rule judges_rewritten_instances:
    input:
        unpack(lambda wildcards: JUDGES.rewritten_source(RESULTS, wildcards)),
        blocklist=JUDGE_BLOCKLIST,
        pairs=lambda wildcards: JUDGE_BLOCKLIST
        and JUDGES.blocklist_pairs(wildcards, "purpose_mechanism"),
    output:
        f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances-purpose_mechanism.parquet",
    log:
        f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/instances-purpose_mechanism.log",
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_rewritten_instances"),
        cell=lambda wildcards: f"{wildcards.format}/{wildcards.setup}/rewrite",
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/stage.py"


if JUDGE_RETRIEVAL["search"] == "semantic_scholar":

    # On the submit host, like the downloads: it needs the network, hardly a CPU, and its jobs
    # share one pace (the key's rate) through a locked file in the cache folder.
    rule judges_related:
        input:
            instances=f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
            queries=lambda wildcards: JUDGES.search_requests(RESULTS, wildcards),
            responses=lambda wildcards: JUDGES.search_responses(
                RESULTS, wildcards.dataset, "search_queries"
            ),
        output:
            f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/related.parquet",
        log:
            f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/related.log",
        localrule: True
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("judges_related"),
            cell=lambda wildcards: f"{wildcards.format}/{wildcards.setup}/search_queries",
            retrieval=config_slice(JUDGE_RETRIEVAL, "top_k", "cutoff"),
            semantic_scholar=config["literature"]["semantic_scholar"],
            cache_dir=f"{RESULTS}/literature/semantic_scholar",
        script:
            "../scripts/stage.py"

else:

    rule judges_related:
        input:
            instances=f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/instances.parquet",
            corpus=JUDGE_RETRIEVAL["corpus"] or [],
            # a hub encoder, downloaded by rule weights at its pinned revision, read offline
            weights=scorer_weights_inputs(
                REGISTRY, [JUDGE_RETRIEVAL["encoder"]], RESULTS
            ),
        output:
            f"{RESULTS}/judges/{{dataset}}/{{format}}/{{setup}}/related.parquet",
        log:
            f"{LOGS}/judges/{{dataset}}/{{format}}/{{setup}}/related.log",
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("judges_related"),
            registry=config["registry"],
            encoder=JUDGE_RETRIEVAL["encoder"],
            encoder_reference=REGISTRY.encoder(JUDGE_RETRIEVAL["encoder"]),
            top_k=JUDGE_RETRIEVAL["top_k"],
        script:
            "../scripts/stage.py"
