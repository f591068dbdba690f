"""Rule construction_judges_candidates: the top and bottom candidates of every primary area."""

from noveval.construction import judge_steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    judge_steps.candidates(
        notes_path=snakemake.input.notes,
        upstream_root=snakemake.params.upstream_root,
        rules=snakemake.params.rules,
        candidates_path=snakemake.output.candidates,
        skipped_path=snakemake.output.skipped,
    )
