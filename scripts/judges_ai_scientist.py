"""Rule judges_ai_scientist: one cell's AI-Scientist novelty checks → its verdicts and the
transcript of their rounds."""

from noveval.judges.stages import systems
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    systems.ai_scientist_check(
        instances_path=snakemake.input.instances,
        cell={
            "dataset": wildcards.dataset,
            "model": wildcards.model,
            "setup": wildcards.setup,
            "change": "ai_scientist",
        },
        registry_path=snakemake.params.registry,
        decoding=snakemake.params.decoding,
        settings=snakemake.params.settings,
        inference=snakemake.config["inference"],
        semantic_scholar=snakemake.params.semantic_scholar,
        search_cache_dir=snakemake.params.search_cache,
        journal_dir=snakemake.params.journals,
        verdicts_path=snakemake.output.verdicts,
        transcript_path=snakemake.output.transcript,
        log_path=snakemake.log[0],
        upstream_roots=snakemake.params.upstream_roots,
        weights_manifests=list(snakemake.input.weights),
        budget=snakemake.config.get("budget"),
    )
