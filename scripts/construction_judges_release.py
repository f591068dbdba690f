"""Rule construction_judges_release: the release layout and the construction summary."""

from noveval.construction import judge_steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    judge_steps.release(
        labelled_path=snakemake.input.labelled,
        strip_responses=snakemake.input.strip,
        generation_responses=snakemake.input.generation,
        skipped_paths=list(snakemake.input.skipped),
        seed=snakemake.params.seed,
        venue=snakemake.params.venue,
        release_dir=snakemake.params.release_dir,
        summary_path=snakemake.output.summary,
    )
