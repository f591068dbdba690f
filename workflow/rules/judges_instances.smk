# The judge track, first step: instances from the release, generated ideas and rewritten ideas.
from noveval.judges import authors as judge_authors
from noveval.inference.weights import scorer_weights_inputs

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
        instances=JUDGES_PATHS.instances(),
    log:
        JUDGES_PATHS.log("instances"),
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
        pairs=JUDGES_PATHS.instances(format="pairwise", setup=JUDGES.base_setup),
        responses=lambda wildcards: JUDGES.generated_ideas(
            RESULTS, wildcards.dataset, wildcards.generator
        ),
    output:
        pairwise=JUDGES_PATHS.generated_instances(format="pairwise"),
        pointwise=JUDGES_PATHS.generated_instances(format="pointwise"),
    log:
        JUDGES_PATHS.log("generated_instances"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_generated_instances"),
        responses_cell=JUDGES.generation_cell(),
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/stage.py"


rule judges_ideation_instances:
    input:
        pairs=JUDGES_PATHS.instances(format="pairwise", setup=JUDGES.base_setup),
        stronger=lambda wildcards: JUDGES.generated_ideas(
            RESULTS, wildcards.dataset, wildcards.stronger
        ),
        weaker=lambda wildcards: JUDGES.generated_ideas(
            RESULTS, wildcards.dataset, wildcards.weaker
        ),
    output:
        JUDGES_PATHS.ideation_instances(),
    log:
        JUDGES_PATHS.log("ideation_instances"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_ideation_instances"),
        responses_cell=JUDGES.generation_cell(),
    script:
        "../scripts/stage.py"


rule judges_rewritten_instances:
    input:
        unpack(lambda wildcards: JUDGES.rewritten_source(RESULTS, wildcards)),
        blocklist=JUDGE_BLOCKLIST,
        pairs=lambda wildcards: JUDGE_BLOCKLIST
        and JUDGES.blocklist_pairs(wildcards, "purpose_mechanism"),
    output:
        JUDGES_PATHS.rewritten_instances(),
    log:
        JUDGES_PATHS.log("rewritten_instances"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_rewritten_instances"),
        responses_cell=lambda wildcards: f"{wildcards.format}/{wildcards.setup}/rewrite",
        upstream_root=JUDGE_UPSTREAM if JUDGE_BLOCKLIST else None,
    script:
        "../scripts/stage.py"


if JUDGE_RETRIEVAL["search"] == "semantic_scholar":

    # On the submit host, like the downloads: it needs the network, hardly a CPU, and its jobs
    # share one pace (the key's rate) through a locked file in the cache folder.
    rule judges_related:
        input:
            instances=JUDGES_PATHS.instances(),
            queries=lambda wildcards: JUDGES.search_requests(RESULTS, wildcards),
            responses=lambda wildcards: JUDGES.search_responses(
                RESULTS, wildcards.dataset, "search_queries"
            ),
        output:
            related=JUDGES_PATHS.related(),
        log:
            JUDGES_PATHS.log("related"),
        localrule: True
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("judges_related"),
            responses_cell=lambda wildcards: (
                f"{wildcards.format}/{wildcards.setup}/search_queries"
            ),
            retrieval=config_slice(JUDGE_RETRIEVAL, "top_k", "cutoff"),
            semantic_scholar=config["literature"]["semantic_scholar"],
            cache_dir=f"{RESULTS}/literature/semantic_scholar",
        script:
            "../scripts/stage.py"

else:

    rule judges_related:
        input:
            instances=JUDGES_PATHS.instances(),
            corpus=JUDGE_RETRIEVAL["corpus"] or [],
            # a hub encoder, downloaded by rule weights at its pinned revision, read offline
            weights=scorer_weights_inputs(
                REGISTRY, [JUDGE_RETRIEVAL["encoder"]], RESULTS
            ),
        output:
            related=JUDGES_PATHS.related(),
        log:
            JUDGES_PATHS.log("related"),
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
