"""Rule construction_judges_labels: D₊ and D₋ by the labelling rules."""

from noveval.construction import judge_steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    judge_steps.labels(
        candidates_path=snakemake.input.candidates,
        responses_path=snakemake.input.responses,
        rules=snakemake.params.rules,
        labelled_path=snakemake.output.labelled,
        skipped_path=snakemake.output.skipped,
    )
