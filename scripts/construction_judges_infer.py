"""Rule construction_judges_infer: answer one construction step's requests through the request
layer and the model's journal."""

from noveval.inference import run_inference
from noveval.logs import log_to

wildcards = snakemake.wildcards
with log_to(snakemake.log[0]):
    run_inference(
        requests_paths=list(snakemake.input.requests),
        weights_manifests=list(snakemake.input.weights),
        responses_path=snakemake.output[0],
        model=wildcards.model,
        registry_path=snakemake.params.registry,
        cache_dir=snakemake.params.cache,
        settings={
            **snakemake.config["inference"],
            "failure_budget": snakemake.params.failure_budget,
        },
        log_path=snakemake.log[0],
        failures_path=snakemake.log.failures,
        job=f"construction/judges/{wildcards.model}/{wildcards.stage}",
        threads=snakemake.threads,
    )
