"""Rule pilot_infer: one model's pilot calls through the real path, and what this run sent."""

from noveval.logs import log_to
from noveval.pilot import run_pilot

wildcards = snakemake.wildcards
with log_to(snakemake.log[0]):
    run_pilot(
        sent_path=snakemake.output.sent,
        requests_paths=list(snakemake.input.requests),
        weights_manifests=list(snakemake.input.weights),
        responses_path=snakemake.output.answers,
        model=wildcards.model,
        registry_path=snakemake.params.registry,
        cache_dir=snakemake.params.cache,
        settings={
            **snakemake.config["inference"],
            "failure_budget": snakemake.params.failure_budget,
        },
        log_path=snakemake.log[0],
        failures_path=snakemake.log.failures,
        job=f"pilot/{wildcards.track}/{wildcards.model}",
        threads=snakemake.threads,
    )
