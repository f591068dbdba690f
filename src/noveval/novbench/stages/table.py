"""Stage novbench_table: the Table 2 layout from the scores tables."""

from __future__ import annotations

from noveval.core.files import read_tables
from noveval.inference.weights import ran_at
from noveval.novbench import tables


def table(
    scores_paths: list[str], csv_path: str, markdown_path: str, weights_manifests: list[str] = ()
) -> None:
    """The paper's Table 2 layout, with bootstrap intervals and tests, from the scores alone;
    its notes name the hub commit of each open model's weights (``weights_manifests``)."""
    from noveval.novbench import uncertainty

    scores = read_tables(scores_paths)
    summary = tables.summarise(scores)
    commits = {m: at for m, at in ran_at(weights_manifests).items() if m in set(summary["model"])}
    tables.write(summary, csv_path, markdown_path, uncertainty.markdown(scores), commits)


def run(job) -> None:
    """One job of rule novbench_table."""
    table(
        list(job.input.scores),
        job.output.csv,
        job.output.markdown,
        list(job.input.weights),
    )
