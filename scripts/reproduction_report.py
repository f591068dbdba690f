"""Rule reproduction_report: every published number of both papers beside ours."""

from noveval.logs import log_to
from noveval.reproduction import report

with log_to(snakemake.log[0]):
    report.write(
        list(snakemake.input.tables),
        list(snakemake.input.scores),
        list(snakemake.input.metrics),
        snakemake.params.grid,
        snakemake.output.csv,
        snakemake.output.markdown,
        list(snakemake.input.expert),
        list(snakemake.input.paper_tables),
    )
