from noveval.judges.systems import ai_scientist
from noveval.judges.systems.compute import local_compute
from noveval.inference.weights import weights_inputs

AI_SCIENTIST = config["judges"]["systems"].get("ai_scientist") or {}
AI_SCIENTIST_UPSTREAM = {
    "novelty_checker": f"{RESULTS}/downloads/upstream/novelty_checker",
    "judges": JUDGE_UPSTREAM,
}


# The judge track's verdicts per cell and metrics per dataset and format.
rule judges_verdicts:
    input:
        instances=JUDGES_PATHS.instances(),
        responses=lambda wildcards: JUDGES.responses(RESULTS, wildcards),
    output:
        JUDGES_PATHS.verdicts(),
    log:
        JUDGES_PATHS.log("verdicts"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_verdicts"),
        responses_cell=JUDGES.response_cell,
        protocol=config_slice(
            config["judges"], "prompts", "no_aggregation", "even_split", "all_failed"
        ),
    script:
        "../scripts/stage.py"


# AI-Scientist's novelty check: each idea's rounds (the model's calls through its journal, the
# Semantic Scholar searches through the cached client) on the submitting host, which reaches the
# search API; the cell's verdicts and a transcript of its rounds.
rule judges_ai_scientist:
    input:
        instances=JUDGES_PATHS.instances(format="pointwise"),
        weights=lambda wildcards: weights_inputs(
            REGISTRY.model(wildcards.model), RESULTS
        ),
        upstream=(
            [
                f"{AI_SCIENTIST_UPSTREAM['novelty_checker']}/{ai_scientist.PROMPTS}",
                f"{JUDGE_UPSTREAM}/{ai_scientist.CHECK}",
            ]
            if config["judges"]["prompts"] == "authors"
            else []
        ),
    output:
        verdicts=JUDGES_PATHS.system("ai_scientist"),
        transcript=JUDGES_PATHS.system("ai_scientist", "transcript"),
    log:
        JUDGES_PATHS.log("ai_scientist"),
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_ai_scientist", data=("prompts/judges",)),
        registry=config["registry"],
        decoding=config["decoding"],
        settings={
            **ai_scientist.system_settings(AI_SCIENTIST),
            "max_tokens": config["judges"]["max_tokens"],
            "all_failed": config["judges"]["all_failed"],
        },
        upstream_roots=(
            AI_SCIENTIST_UPSTREAM if config["judges"]["prompts"] == "authors" else None
        ),
        semantic_scholar=config["literature"]["semantic_scholar"],
        search_cache_dir=f"{RESULTS}/literature/semantic_scholar",
        journal_dir=CACHE,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


ruleorder: judges_ai_scientist > judges_verdicts


rule judges_metrics:
    input:
        verdicts=lambda wildcards: JUDGES.verdict_paths(
            RESULTS, wildcards.dataset, wildcards.format
        ),
    output:
        parquet=JUDGES_PATHS.metrics(),
        csv=report(
            JUDGES_PATHS.metrics(extension="csv"),
            caption="../report/judges_metrics.rst",
            category="Judges",
            subcategory="{dataset}",
            labels={
                "dataset": "{dataset}",
                "format": "{format}",
                "result": "metrics",
                "file": "CSV",
            },
        ),
    log:
        JUDGES_PATHS.log("metrics"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_metrics"),
        bootstrap=config["judges"]["bootstrap"],
        substitutes=JUDGES.substitutes,
        compute=local_compute(
            REGISTRY,
            config["judges"]["models"],
            config["inference"]["concurrency"],
            config["judges"]["compute_usd_per_hour"],
        ),
    script:
        "../scripts/stage.py"
