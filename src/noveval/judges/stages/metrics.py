"""Stage judges_metrics: one metrics row per judge × setup × change."""

from __future__ import annotations

from noveval.core.files import read_tables, write_table
from noveval.core.jobs import call_with_job
from noveval.judges.systems.compute import Compute


def metrics(
    verdicts_paths: list[str],
    format: str,
    bootstrap: dict,
    parquet_path: str,
    csv_path: str,
    compute: dict[str, dict],
    substitutes: dict[str, str] | None = None,
) -> None:
    """One metrics row per judge × setup × change of one format (``compute``: the local
    judges' devices and price, ``noveval.judges.systems.compute.local_compute``), with the model
    each judge stands in for (``substitutes``: successor → model; empty: itself)."""
    from noveval.judges.statistics import summary

    frame = read_tables(verdicts_paths)
    table = summary.metrics_table(
        frame,
        format,
        bootstrap["resamples"],
        bootstrap["seed"],
        method=bootstrap["method"],
        compute={model: Compute(**spec) for model, spec in compute.items()},
    )
    table.insert(
        table.columns.get_loc("model") + 1,
        "substitutes_for",
        [(substitutes or {}).get(model) for model in table["model"]],
    )
    write_table(table, parquet_path)
    table.to_csv(csv_path, index=False)


def run(job) -> None:
    """One job of rule judges_metrics."""
    call_with_job(metrics, job)
