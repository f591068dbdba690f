"""Rule novbench_release_inputs: a cell's inputs from the authors' released perturbed papers."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.release_inputs(snakemake.input[0], snakemake.output[0])
