"""Rule judges_dataset_sizes: pairs and ideas per setup, from the instances judged."""

from noveval.judges.stages import reports
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    reports.dataset_sizes(
        snakemake.input.instances,
        snakemake.params.idea_formats,
        snakemake.output.csv,
        snakemake.output.markdown,
    )
