"""A judge's stability card: its measurements per cell, its changes' deltas, the paper's judges
beside it, the card's Markdown, its figure (accuracy on Human-Only vs Human+Generated under each
change, the style of the paper's Figure 1) and the leaderboard of a run's cards.

A cell of a custom judge is one (setup, format, wording, change): ``wording`` ``reference`` is
the judge's own template, another one of its variants; ``change`` ``reference`` is the judge as
configured, another a template-independent change (``noveval.judges.cards.judge.CHANGES``).
Each cell other than the reference is measured against the reference of its setup and format.
"""

from __future__ import annotations

import pandas as pd

from noveval.core.cards import interval, number, table_header, table_row
from noveval.judges.cards import statistics as card
from noveval.judges.cards.judge import REFERENCE_WORDING

HUMAN_ONLY, HUMAN_PLUS_GENERATED = "human-only", "human-plus-generated"
REFERENCE = "reference"
PAPER_CHANGES = (REFERENCE, "low_reasoning", "retrieval", "purpose_mechanism")


def cell_label(wording: str, change: str) -> str:
    """A cell's row name: the change, or ``wording:<variant>`` for another wording."""
    if wording == REFERENCE_WORDING:
        return change
    return f"wording:{wording}" if change == REFERENCE else f"wording:{wording}+{change}"


def card_tables(cells: list[dict], bootstrap: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(measurements, deltas) of a judge's cells (each a dict of ``setup``, ``format``,
    ``wording``, ``change``, ``calls``, ``verdicts``); ``bootstrap``: ``resamples``, ``seed``."""
    resamples, seed = int(bootstrap["resamples"]), int(bootstrap["seed"])
    rows, deltas, references = [], [], {}
    for cell in cells:
        if cell["wording"] == REFERENCE_WORDING and cell["change"] == REFERENCE:
            references[(cell.get("dataset"), cell["setup"], cell["format"])] = cell["verdicts"]
    for cell in cells:
        format, verdicts, calls = cell["format"], cell["verdicts"], cell["calls"]
        key = {
            **({"dataset": cell["dataset"]} if "dataset" in cell else {}),
            "setup": cell["setup"],
            "format": format,
            "change": cell_label(cell["wording"], cell["change"]),
        }
        row = key | card.quality(format, verdicts["label"], verdicts["verdict"], resamples, seed)
        row |= card.resampling_stability(calls) | card.unparseable(calls)
        row |= card.cost_per_100(verdicts)
        if format == "pairwise":
            row |= card.order_swap_consistency(calls)
        rows.append(row)
        reference = references.get((cell.get("dataset"), cell["setup"], format))
        if key["change"] != REFERENCE and reference is not None:
            delta = card.change_delta(format, reference, verdicts, resamples, seed)
            deltas.append(key | {"measure": card.MEASURES[format][0]} | delta)
    columns = ["setup", "format", "change", "measure", "delta", "significant", "flip_rate"]
    return pd.DataFrame(rows), pd.DataFrame(deltas, columns=None if deltas else columns)


def paper_judges(published: pd.DataFrame, run: pd.DataFrame | None = None) -> pd.DataFrame:
    """The paper's judges' headline numbers on the two setups under the changes a card measures:
    this run's metrics where it ran them (``run``: model, format, setup, change, value), else the
    published values; ``source`` says which. Values are fractions."""
    keep = published[
        published["setup"].isin([HUMAN_ONLY, HUMAN_PLUS_GENERATED])
        & published["change"].isin(PAPER_CHANGES)
        & published["metric"].isin(["macro_f1", "strict_accuracy"])
    ].copy()
    keep["value"] = pd.to_numeric(keep["paper_value"], errors="coerce") / 100
    keep = keep.dropna(subset=["value"]).drop_duplicates(["model", "format", "setup", "change"])
    keep = keep.assign(source="published")[
        ["model", "format", "setup", "change", "value", "source"]
    ]
    if run is None or run.empty:
        return keep.reset_index(drop=True)
    ran = run.assign(source="this run")[keep.columns]
    merged = pd.concat([ran, keep]).drop_duplicates(["model", "format", "setup", "change"])
    return merged.reset_index(drop=True)


def _where(row: pd.Series, several: bool) -> str:
    """A row's setup, after its dataset where the card spans several."""
    return f"{row['dataset']}/{row['setup']}" if several else row["setup"]


def card_markdown(
    judge: str, model: str, measurements: pd.DataFrame, deltas: pd.DataFrame, paper: pd.DataFrame
) -> str:
    """The card's Markdown: the reading, the measurements per format, the deltas, the paper's."""
    lines = [
        f"# Stability card: {judge}",
        "",
        f"Model: `{model}`.",
        "",
        card.reading(judge, deltas),
    ]
    several = "dataset" in measurements and measurements["dataset"].nunique() > 1
    for format, group in measurements.groupby("format", sort=False):
        names = card.MEASURES[format]
        lines += ["", f"## {format.capitalize()}", ""]
        header = ["setup", "change", *names, "tie rate", "unparseable", "resampling stability"]
        header += ["order consistency"] if format == "pairwise" else []
        header += ["USD / 100", "hours / 100"]
        lines += table_header(header)
        for _, row in group.iterrows():
            cells = [_where(row, several), row["change"], *(interval(row, n) for n in names)]
            cells += [
                number(row["tie_rate"]),
                f"{row['unparseable']} ({row['unparseable_rate']:.0%})",
            ]
            cells += [number(row["resample_stability"])]
            cells += [number(row["order_consistency"])] if format == "pairwise" else []
            cells += [number(row["usd_per_100"], 4), number(row["hours_per_100"], 4)]
            lines.append(table_row(cells))
    lines += ["", "## Changes against the judge's reference", ""]
    lines += [
        "| setup | format | change | measure | delta [95% CI] | flip rate |",
        "|---|---|---|---|---|---|",
    ]
    for _, row in deltas.iterrows():
        low, high = number(row["delta_low"]), number(row["delta_high"])
        delta = f"{row['delta']:+.3f}{row['mark']} [{low}, {high}]"
        lines.append(
            f"| {_where(row, several)} | {row['format']} | {row['change']} | {row['measure']} "
            f"| {delta} "
            f"| {number(row['flip_rate'])} |"
        )
    lines += ["", "`*`: the paired-bootstrap interval is reliable and excludes 0.", ""]
    lines += ["## The paper's judges", "", "| model | format | setup | change | value | source |"]
    lines.append("|---|---|---|---|---|---|")
    for _, row in paper.iterrows():
        lines.append(
            f"| {row['model']} | {row['format']} | {row['setup']} | {row['change']} "
            f"| {number(row['value'])} | {row['source']} |"
        )
    return "\n".join(lines) + "\n"


def card_figure(path: str, judge: str, measurements: pd.DataFrame, paper: pd.DataFrame) -> None:
    """Headline measure on Human-Only (x) vs Human+Generated (y), one point per change, per
    format; the paper's judges' points beside the judge's, in grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    formats = list(dict.fromkeys(measurements["format"])) or ["pairwise"]
    figure, axes = plt.subplots(1, len(formats), figsize=(5 * len(formats), 4.5), squeeze=False)
    for axis, format in zip(axes[0], formats):
        name = card.MEASURES[format][0]
        mine = _wide(measurements[measurements["format"] == format], name)
        theirs = paper[paper["format"] == format].rename(columns={"value": name})
        points = _wide(theirs, name, ["model"])
        axis.scatter(points[HUMAN_ONLY], points[HUMAN_PLUS_GENERATED], color="0.75", s=18)
        axis.scatter(mine[HUMAN_ONLY], mine[HUMAN_PLUS_GENERATED], color="C3", s=36, label=judge)
        for _, row in mine.iterrows():
            axis.annotate(row["change"], (row[HUMAN_ONLY], row[HUMAN_PLUS_GENERATED]), fontsize=7)
        axis.plot([0, 1], [0, 1], color="0.85", lw=0.8, zorder=0)
        axis.set(
            xlim=(0, 1),
            ylim=(0, 1),
            xlabel=f"{name}, Human-Only",
            ylabel=f"{name}, Human+Generated",
        )
        axis.set_title(f"{format} (grey: the paper's judges)")
        axis.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=150)
    plt.close(figure)


def _wide(frame: pd.DataFrame, name: str, keys: list[str] | None = None) -> pd.DataFrame:
    """One row per change (and ``keys``) with a column per setup (NaN where a setup is absent)."""
    index = [*(keys or []), "change"]
    if frame.empty:
        return pd.DataFrame(columns=[*index, HUMAN_ONLY, HUMAN_PLUS_GENERATED])
    wide = frame.pivot_table(index=index, columns="setup", values=name, aggfunc="first")
    wide = wide.reindex(columns=[HUMAN_ONLY, HUMAN_PLUS_GENERATED])
    return wide.reset_index()


def leaderboard(cards: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per judge, format and setup: the reference's headline measure, tie rate,
    unparseable rate, resampling stability, order consistency and cost."""
    rows = []
    for judge, measurements in cards.items():
        reference = measurements[measurements["change"] == REFERENCE]
        for _, row in reference.iterrows():
            rows.append(
                {
                    "judge": judge,
                    "format": row["format"],
                    "setup": row["setup"],
                    "measure": card.MEASURES[row["format"]][0],
                    "value": row[card.MEASURES[row["format"]][0]],
                    "tie_rate": row["tie_rate"],
                    "unparseable_rate": row["unparseable_rate"],
                    "resample_stability": row["resample_stability"],
                    "order_consistency": row.get("order_consistency", float("nan")),
                    "usd_per_100": row["usd_per_100"],
                    "hours_per_100": row["hours_per_100"],
                }
            )
    return pd.DataFrame(rows)
