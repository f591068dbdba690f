"""Judge tables from the metrics alone: the controlled-study grid, tie rates, flip rates."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.judges.grid import CHANGES


def _pivot(metrics: pd.DataFrame, cells: pd.Series) -> pd.DataFrame:
    frame = metrics.assign(cell=cells)
    table = frame.pivot_table(
        index=["setup", "model"], columns="change", values="cell", aggfunc="first"
    )
    order = [c for c in CHANGES if c in table.columns]
    return table[order].fillna("–")


def grid_table(metrics: pd.DataFrame) -> pd.DataFrame:
    """Quality in % (macro-F1 pointwise, strict accuracy pairwise); * = significant vs reference."""
    marks = metrics["significant"].fillna(False).astype(bool) & (metrics["change"] != "reference")
    cells = (metrics["quality"] * 100).round(1).astype(str) + marks.map({True: "*", False: ""})
    return _pivot(metrics, cells)


def percent_table(metrics: pd.DataFrame, column: str) -> pd.DataFrame:
    """One metric in % per judge × change."""
    return _pivot(metrics, (metrics[column] * 100).round(1).astype(str))


def write(metrics: pd.DataFrame, markdown_path: str | Path) -> None:
    """The three tables of one format as one Markdown file."""
    format = metrics["format"].iloc[0] if len(metrics) else "?"
    headline = "macro-F1" if format == "pointwise" else "strict accuracy"
    sections = [
        (
            f"Controlled study: {headline} (%), * = paired bootstrap interval excludes 0",
            grid_table(metrics),
        ),
        ("Tie rate (%)", percent_table(metrics, "tie_rate")),
        ("Flip rate against the same judge's reference (%)", percent_table(metrics, "flip_rate")),
    ]
    text = "\n\n".join(f"## {title}\n\n{table.to_markdown()}" for title, table in sections)
    Path(markdown_path).write_text(f"# Judges, {format}\n\n{text}\n")
