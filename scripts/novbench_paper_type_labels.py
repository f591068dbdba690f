"""Rule novbench_paper_type_labels: the classifier's answers in the authors' file format."""

from noveval.logs import log_to
from noveval.novbench import paper_tables

with log_to(snakemake.log[0]):
    paper_tables.classification_labels(snakemake.input[0], snakemake.output[0])
