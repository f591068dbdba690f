"""Rule infer: serve the model, send the calls no journal has answered, write the responses."""

from noveval.inference import run_inference
from noveval.logs import log_to

wildcards = snakemake.wildcards
with log_to(snakemake.log[0]):
    run_inference(
        requests_path=snakemake.input[0],
        responses_path=snakemake.output[0],
        model=snakemake.wildcards.model,
        registry_path=snakemake.params.registry,
        cache_dir=snakemake.params.cache,
        settings=snakemake.params.settings,
        log_path=snakemake.log[0],
        failures_path=snakemake.log.failures,
        cell=f"{wildcards.track}/{wildcards.dataset}/{wildcards.model}/{wildcards.cell}",
        threads=snakemake.threads,
    )
