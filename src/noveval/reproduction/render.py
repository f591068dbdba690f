"""The report in Markdown: its summary per table, the compared numbers, why the rest did not run."""

from __future__ import annotations

import pandas as pd

from noveval.core.markdown import markdown_table
from noveval.reproduction.verdicts import VERDICTS


def summary(report: pd.DataFrame, largest: int = 5) -> str:
    """Per table, how many numbers match, are within, outside, not comparable or not run, and
    the ``largest`` differences (in tolerances; a count's in units) with their reasons."""
    counts = (
        report.groupby(["study", "table", "verdict"], sort=False)
        .size()
        .unstack(fill_value=0)
        .reindex(columns=VERDICTS, fill_value=0)
        .reset_index()
    )
    valued = report[report["our_value"].notna()].copy()
    scale = valued["tolerance"].where(valued["tolerance"] > 0, 1.0)
    valued["in_tolerances"] = valued["difference"].abs() / scale
    top = valued.sort_values("in_tolerances", ascending=False).head(largest)
    shown = top[["study", "table", "cell", "metric", "paper_value", "our_value", "difference"]]
    shown = shown.assign(verdict=top["verdict"], reason=top["reason"]).round(4)
    return "\n\n".join(
        [
            "## Summary",
            markdown_table(counts),
            f"Largest differences (|ours − paper| in tolerances), top {largest}:",
            markdown_table(shown) if len(shown) else "None.",
        ]
    )


def markdown(report: pd.DataFrame, uncertainty_sections: dict[str, str]) -> str:
    """The summary, the compared numbers, reasons of the rest, uncertainty."""
    compared = report[report["verdict"] != "not run"].drop(columns="conditions")
    skipped = report[report["verdict"] == "not run"].groupby(["study", "reason"]).size()
    parts = [
        "# Reproduction report",
        summary(report),
        "Every published number of NovBench (Tables 2–8 and the human agreement of Section 4.3) "
        "and of the judge study (figure values) beside ours (report.csv holds every row, with the "
        "conditions each of ours was produced under). match: equal at the paper's printed "
        "decimals; within: |ours − paper| ≤ tolerance (NovBench: Relevance 0.05, Coverage 0.01, "
        "Clarity 0.01, DistAcc 0.02, KC and LS 0.005, similarity 0.02, Table 8's Diff 0.005, "
        "Fleiss' kappa 0.05, agreement 0.02, Spearman's rho 0.05; judge study: 2 percentage "
        "points, 0.02 for a fraction, 10% of a cost, a count exactly; a bound such as 'more than "
        "two thirds' matches when ours is at least the bound); not comparable: ours was produced "
        "under other conditions than the paper's (prompts, decoding, model wire, dataset, "
        "annotation files, annotators, scorer, calls, aggregation, a substitute judge) or with "
        "too many failed or empty answers, each named in the reason. "
        "source_kind: printed in the paper, taken from an authors' file (the reason names it), "
        "or our own regression value; a paper value reconstructed from the authors' files is "
        "at best within. A judge row over several cells (every judge, P3|P4|P5) compares the "
        "min, max or largest |value| of the run's cells; a published significance mark is set "
        "beside ours in the reason.",
        "## Compared numbers",
        markdown_table(compared.round(4)) if len(compared) else "None.",
        "## Not run, by reason",
        markdown_table(skipped.to_frame("rows")) if len(skipped) else "None.",
    ]
    for dataset, text in uncertainty_sections.items():
        parts += [f"## NovBench uncertainty on {dataset} (beyond both papers)", text]
    return "\n\n".join(parts) + "\n"
