"""Rule judges_scideator: the Idea Novelty Checker on one cell's pointwise ideas."""

from noveval.judges import scideator
from noveval.judges.scideator_prompts import upstream_root
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    wildcards = snakemake.wildcards
    scideator.judge_cell(
        instances_path=snakemake.input.instances,
        verdicts_path=snakemake.output.verdicts,
        transcript_path=snakemake.output.transcript,
        cell={"model": wildcards.model, "setup": wildcards.setup, "change": "scideator"},
        registry_path=snakemake.params.registry,
        cache_dir=snakemake.params.cache,
        inference=snakemake.params.inference,
        settings=snakemake.params.settings,
        literature=snakemake.params.literature,
        checker_root=(
            upstream_root(snakemake.input.upstream[0]) if snakemake.params.pinned else None
        ),
        log_path=snakemake.log[0],
        all_failed=snakemake.params.all_failed,
        weights_manifests=list(snakemake.input.weights),
        budget=snakemake.config.get("budget"),
    )
