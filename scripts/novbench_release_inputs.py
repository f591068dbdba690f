"""Rule novbench_release_inputs: the inputs of a cell of the authors' released perturbations."""

from noveval.logs import log_to
from noveval.novbench import steps

with log_to(snakemake.log[0]):
    steps.release_inputs(
        papers_path=snakemake.input.papers,
        release_paths=dict(snakemake.params.releases),
        kind=snakemake.wildcards.perturbation,
        inputs_path=snakemake.output[0],
    )
