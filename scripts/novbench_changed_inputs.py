"""Rule novbench_changed_inputs: the inputs of the 'change' perturbation."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.changed_inputs(snakemake.input.papers, snakemake.input.responses, snakemake.output[0])
