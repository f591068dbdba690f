"""Rule novbench_score: per-paper scores of a model's cells (the gold row for model human)."""

from noveval.encoders import use_threads
from noveval.logs import log_to
from noveval.novbench import steps

use_threads(snakemake.threads)
with log_to(snakemake.log[0]):
    steps.score(
        papers_path=snakemake.input.papers,
        parsed_paths=list(snakemake.input.get("parsed", [])),
        scoring=snakemake.params.scoring,
        registry_path=snakemake.params.registry,
        scores_path=snakemake.output[0],
        weights_manifests=list(snakemake.input.get("weights", [])),
    )
