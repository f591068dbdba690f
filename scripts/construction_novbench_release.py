"""Rule novbench_construction_release: the built release file and the construction summary."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.assemble(
        snakemake.input.extracted,
        snakemake.input.responses,
        snakemake.input.retrieved,
        snakemake.input.papers,
        list(snakemake.input.skipped),
        snakemake.output.release,
        snakemake.output.summary,
    )
