"""Stage judges_card: one custom judge's stability card (Markdown, figure, measurements)."""

from __future__ import annotations

import pandas as pd

from noveval.core.cards import write_markdown
from noveval.core.files import write_table
from noveval.core.published import published
from noveval.judges.cards import report as card_report
from noveval.judges.grid.cells import STANDARD


def run_metrics(paths: list[str]) -> pd.DataFrame:
    """This run's headline numbers of the paper's judges (model, format, setup, change, value)."""
    if not paths:
        return pd.DataFrame(columns=["model", "format", "setup", "change", "value"])
    frame = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    if "ideas" in frame:
        frame = frame[frame["ideas"] == STANDARD]
    nan = pd.Series(float("nan"), index=frame.index)
    pointwise, pairwise = frame.get("macro_f1", nan), frame.get("strict_accuracy", nan)
    value = pointwise.where(frame["format"] == "pointwise", pairwise)
    return frame.assign(value=value)[["model", "format", "setup", "change", "value"]]


def card(inputs: dict, cells: list[dict], judge: str, model: str, bootstrap: dict, out: dict):
    """``inputs``: the cells' calls and verdicts (in ``cells``' order), the run's metrics."""
    tables = [
        {
            **keys,
            "setup": keys["setup"],
            "change": "purpose_mechanism" if keys["ideas"] != STANDARD else keys["change"],
            "calls": pd.read_parquet(calls),
            "verdicts": pd.read_parquet(verdicts),
        }
        for keys, calls, verdicts in zip(cells, inputs["calls"], inputs["verdicts"], strict=True)
    ]
    measurements, deltas = card_report.card_tables(tables, bootstrap)
    paper = card_report.paper_judges(published("judges"), run_metrics(inputs["metrics"]))
    text = card_report.card_markdown(judge, model, measurements, deltas, paper)
    write_markdown(out["markdown"], text)
    card_report.card_figure(out["figure"], judge, measurements, paper)
    write_table(measurements.assign(judge=judge), out["table"])


def run(job) -> None:
    """One job of rule judges_card."""
    card(
        {
            "calls": list(job.input.calls),
            "verdicts": list(job.input.verdicts),
            "metrics": list(job.input.metrics),
        },
        job.params.cells,
        job.wildcards.judge,
        job.params.model,
        job.params.bootstrap,
        {"markdown": job.output.markdown, "figure": job.output.figure, "table": job.output.table},
    )
