"""Rule reproduction_report: every published number of both papers beside ours."""

from noveval.logs import log_to
from noveval.reproduction import report

with log_to(snakemake.log[0]):
    report.write(
        {key: list(snakemake.input[key]) for key in report.INPUTS},
        snakemake.params.grid,
        snakemake.params.basis,
        snakemake.output.csv,
        snakemake.output.markdown,
        snakemake.output.summary,
        snakemake.params.cells,
        snakemake.params.registry,
        snakemake.params.upstream_root,
    )
