from noveval.cluster.pilot import pilot_sources

# (track, model) -> the grid's requests tables its pilot job samples
PILOT = pilot_sources(NOVBENCH, JUDGES, RESULTS)
# track -> the pilot config key that says how many items of each cell
PILOT_ITEMS = {"novbench": "papers", "judges": "instances"}


# `snakemake pilot`: a few papers and judge instances per model of the grid through the real
# path, in results/pilot with a journal of its own; the measured file replaces the plan's
# assumptions for the models it holds (noveval.cluster.pilot, noveval.inference.measured).
rule pilot_requests:
    input:
        lambda wildcards: PILOT[wildcards.track, wildcards.model],
    output:
        f"{RESULTS}/pilot/{{track}}/{{model}}/pilot_requests.parquet",
    log:
        f"{LOGS}/pilot/{{track}}/{{model}}/requests.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        per_cell=lambda wildcards: config["pilot"][PILOT_ITEMS[wildcards.track]],
        code=stage_code("pilot_requests"),
    script:
        "../scripts/stage.py"


rule pilot_infer:
    input:
        requests=rules.pilot_requests.output,
        weights=lambda wildcards: weights_inputs(
            REGISTRY.model(wildcards.model), RESULTS
        ),
    output:
        answers=f"{RESULTS}/pilot/{{track}}/{{model}}/pilot_answers.parquet",
        sent=f"{RESULTS}/pilot/{{track}}/{{model}}/sent.json",
    log:
        f"{LOGS}/pilot/{{track}}/{{model}}/infer.log",
        failures=f"{LOGS}/pilot/{{track}}/{{model}}/failures.json",
    benchmark:
        f"{LOGS}/pilot/{{track}}/{{model}}/infer.benchmark.tsv"
    conda:
        lambda wildcards: f"../envs/{inference_env(REGISTRY.model(wildcards.model))}"
    threads: lambda wildcards: 2 if REGISTRY.model(wildcards.model).engine == "llamacpp" else 1
    resources:
        **JOBS.pilot_resources(),
    params:
        registry=config["registry"],
        failure_budget=config["inference"]["failure_budget"],
        cache=f"{RESULTS}/pilot/cache",
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


# Hosted-API models' pilot calls run where their grid calls run (rule infer_api).
use rule pilot_infer as pilot_infer_api with:
    wildcard_constraints:
        model=api_models_pattern(REGISTRY),


ruleorder: pilot_infer_api > pilot_infer


if api_inference_on_host():

    localrules:
        pilot_infer_api,


rule pilot:
    input:
        answers=[
            f"{RESULTS}/pilot/{track}/{model}/pilot_answers.parquet"
            for track, model in PILOT
        ],
        sent=[f"{RESULTS}/pilot/{track}/{model}/sent.json" for track, model in PILOT],
    output:
        MEASURED,
    log:
        f"{LOGS}/pilot/measured.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        jobs=[
            {
                "track": track,
                "model": model,
                "responses": f"{RESULTS}/pilot/{track}/{model}/pilot_answers.parquet",
                "sent": f"{RESULTS}/pilot/{track}/{model}/sent.json",
            }
            for track, model in PILOT
        ],
        registry=config["registry"],
        chars_per_token=PLAN_SETTINGS.chars_per_token,
        code=stage_code("pilot"),
    script:
        "../scripts/stage.py"
