"""NovBench result tables: per-paper scores → one row per model × strategy × perturbation."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.core.markdown import markdown_table

HUMAN = "human"
KEYS = ["model", "strategy", "perturbation"]
METRICS = ["relevance", "coverage", "clarity", "dist_acc"]
CLARITY_PARTS = ["kc", "ls", "fs"]
SCORERS = ["relevance_encoder", "coverage_encoder", "fluency_lm"]


def summarise(scores: pd.DataFrame) -> pd.DataFrame:
    """Plain means over papers, counts of failed outputs, and which scorers were used.

    A paper whose call failed for good (``failed``, counted in ``n_failed``) has NaN metrics and
    is left out of the means; empty and unparseable outputs are answers and count as today.
    """
    grouped = scores.groupby(KEYS + SCORERS, sort=False, dropna=False)
    summary = grouped[METRICS + CLARITY_PARTS].mean()
    summary["n_papers"] = grouped["paper_id"].nunique()
    summary["n_empty"] = grouped["empty"].sum()
    summary["n_unparseable"] = grouped["unparseable"].sum()
    summary["n_repetitive"] = grouped["repetitive"].sum()
    summary["n_failed"] = grouped["failed"].sum()
    summary = summary.reset_index()
    summary["is_human"] = summary["model"] == HUMAN
    summary = summary.sort_values(["is_human", *KEYS], ascending=[False, True, True, True])
    counts = ["n_papers", "n_empty", "n_unparseable", "n_repetitive", "n_failed"]
    columns = KEYS + METRICS + counts
    return summary[columns + CLARITY_PARTS + SCORERS].reset_index(drop=True)


def write(
    summary: pd.DataFrame,
    csv_path: str | Path,
    markdown_path: str | Path,
    uncertainty: str = "",
    commits: dict[str, str] | None = None,
) -> None:
    """CSV with full precision; Markdown rounded as the paper prints (3 decimals).

    ``uncertainty``: Markdown appended after the table (bootstrap intervals and paired tests);
    ``commits``: the weights each open model ran at (``repository@commit``), named in the notes.
    """
    summary.to_csv(csv_path, index=False)
    scorers = summary[SCORERS].drop_duplicates().to_dict("records")
    used = "; ".join(
        f"Relevance encoder {s['relevance_encoder']}, Coverage encoder {s['coverage_encoder']}, "
        f"fluency LM {s['fluency_lm']}"
        for s in scorers
    )
    shown = summary.drop(columns=SCORERS).round(3)
    failed = (
        "n_failed: calls that failed for good (within inference.failure_budget); "
        "their papers are left out of the means."
    )
    if commits:
        ran = "; ".join(f"{model} {commit}" for model, commit in sorted(commits.items()))
        failed += f"\n\nWeights (hub commits): {ran}."
    Path(markdown_path).write_text(
        f"{markdown_table(shown)}\n\nScored with: {used}.\n\n{failed}\n"
        + (f"\n{uncertainty}" if uncertainty else "")
    )
