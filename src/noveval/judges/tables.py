"""Judge tables from the metrics alone: controlled-study grid, tie and flip rates, ideation."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.judges.grid import CHANGES, IDEATION, VERSUS


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


def ideation_table(metrics: pd.DataFrame) -> pd.DataFrame:
    """Per judge × comparison × change: the share of pairs awarded to the stronger generator
    (strict and with ties as halves), ties, and how many verdicts flip against the reference."""
    part = metrics[metrics["setup"].str.startswith(IDEATION)]
    names = part["setup"].str.removeprefix(IDEATION).str.split(VERSUS, n=1)
    flips = (part["flip_rate"] * part["n_instances"]).round()
    return pd.DataFrame(
        {
            "judge": part["model"],
            "stronger": names.str[0],
            "weaker": names.str[1],
            "change": part["change"],
            "pairs": part["n_instances"],
            "to stronger (%)": (part["strict_accuracy"] * 100).round(1),
            "to stronger, ties halved (%)": (part["soft_accuracy"] * 100).round(1),
            "ties (%)": (part["tie_rate"] * 100).round(1),
            "flipped vs reference": flips.astype("Int64"),
            "flipped (%)": (part["flip_rate"] * 100).round(1),
        }
    )


def write_ideation(metrics: pd.DataFrame, markdown_path: str | Path) -> None:
    """The ideation-system comparison as Markdown."""
    table = ideation_table(metrics)
    Path(markdown_path).write_text(
        "# Comparing ideation systems\n\n"
        "Each pair pits a stronger generator's idea against a weaker one's for the same primary "
        "area; the judge should award the stronger. Flips count the pairs whose verdict a change "
        "reverses or ties against the same judge's reference.\n\n"
        f"{table.to_markdown(index=False)}\n"
    )
