"""Rule novbench_inputs: the inputs of the 'none' and 'del' perturbations."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.perturbed_inputs(
        snakemake.input[0],
        snakemake.wildcards.perturbation,
        snakemake.output[0],
        keep_fraction=snakemake.params.keep_fraction,
        seed=snakemake.params.seed,
    )
