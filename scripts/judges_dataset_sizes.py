"""Rule judges_dataset_sizes: pairs and ideas per setup, from the instances judged."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.dataset_sizes(
        snakemake.input.instances,
        snakemake.params.idea_formats,
        snakemake.output.csv,
        snakemake.output.markdown,
    )
