from noveval.inference.batches import chunk_path
from noveval.cluster.resources import (
    api_inference_on_host,
    api_models_pattern,
    inference_env,
)
from noveval.inference.weights import weights_inputs


# One job per chunk of a model, dataset and batch (the grid's cells, or a preliminary step): one
# server start answers the chunk's share of the batch's calls; a batch that fits a share of its
# partition's time limit is one chunk. Operational settings (concurrency, timeouts, retries) are
# read from the config in the job, so changing them reruns nothing; the failure budget changes
# what the job writes, so it is a param.
rule infer:
    input:
        requests=lambda wildcards: GRIDS[wildcards.track].batch_requests(
            RESULTS, wildcards.dataset, wildcards.model, wildcards.batch
        ),
        weights=lambda wildcards: weights_inputs(
            REGISTRY.model(wildcards.model), RESULTS
        ),
    output:
        chunk_path(RESULTS, "{track}", "{dataset}", "{model}", "{batch}", "{chunk}"),
    log:
        f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{batch}}/{{chunk}}/infer.log",
        failures=f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{batch}}/{{chunk}}/failures.json",
    benchmark:
        f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{batch}}/{{chunk}}/infer.benchmark.tsv"
    conda:
        lambda wildcards: f"../envs/{inference_env(REGISTRY.model(wildcards.model))}"
    threads: lambda wildcards: 2 if REGISTRY.model(wildcards.model).engine == "llamacpp" else 1
    resources:
        **JOBS.resources(),
    params:
        registry=config["registry"],
        failure_budget=config["inference"]["failure_budget"],
        cache=CACHE,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


# Hosted-API models' jobs: on the submitting host, which reaches the providers (a local rule,
# rate-limited and resumed like any inference job), unless the site file (profiles/slurm/
# site.yaml) says api_inference: slurm; then they are SLURM jobs and preflight checks that a
# compute node reaches each provider.
use rule infer as infer_api with:
    wildcard_constraints:
        model=api_models_pattern(REGISTRY),


ruleorder: infer_api > infer


if api_inference_on_host():

    localrules:
        infer_api,


# A batch's responses table: its chunks' rows, gathered on the submit host.
rule responses:
    input:
        lambda wildcards: JOBS.chunk_paths(RESULTS, wildcards),
    output:
        f"{RESULTS}/{{track}}/{{dataset}}/{{model}}/responses/{{batch}}.parquet",
    log:
        f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{batch}}/responses.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("responses"),
    script:
        "../scripts/stage.py"
