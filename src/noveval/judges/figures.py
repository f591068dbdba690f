"""Judge figures from the metrics alone: cost–quality, D₋ sources, the motivating figure, and
the heatmaps of one metric per change × judge (controlled study, soft accuracy, idea format)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from noveval.judges.grid import CHANGES, IDEATION  # noqa: E402


def cost_quality(metrics: pd.DataFrame, png_path: str) -> None:
    """Quality against USD per configuration, one panel per format."""
    formats = list(dict.fromkeys(metrics["format"]))
    figure, axes = plt.subplots(1, len(formats), figsize=(5.5 * len(formats), 4.2), squeeze=False)
    for axis, format in zip(axes[0], formats):
        part = metrics[metrics["format"] == format]
        for (model, setup), group in part.groupby(["model", "setup"], sort=False):
            axis.scatter(group["cost_usd"], group["quality"] * 100, label=f"{model} / {setup}")
            for row in group.itertuples():
                axis.annotate(row.change, (row.cost_usd, row.quality * 100), fontsize=7)
        axis.set_xlabel("cost (USD)")
        axis.set_ylabel("macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)")
        axis.set_title(format)
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)
    plt.close(figure)


def _grouped_bars(axis, table: pd.DataFrame) -> None:
    """One bar per column of ``table`` (values in %) side by side for each row, labelled."""
    width = 0.8 / max(len(table.columns), 1)
    positions = np.arange(len(table.index))
    for i, column in enumerate(table.columns):
        bars = axis.bar(positions + i * width, table[column], width, label=column)
        axis.bar_label(bars, fmt="%.1f", fontsize=7)
    axis.set_xticks(positions + width * (len(table.columns) - 1) / 2, table.index)
    axis.set_ylim(0, 100)


def _percent_by(part: pd.DataFrame, series: str, value: str) -> pd.DataFrame:
    """Mean ``value`` in % per setup (rows) and ``series`` (columns), in order of appearance."""
    return part.pivot_table(index="setup", columns=series, values=value, sort=False) * 100


def motivation(metrics: pd.DataFrame, png_path: str, model: str, changes: list[str]) -> None:
    """One judge, two prompts, each setup: pairwise strict accuracy side by side."""
    part = metrics[(metrics["model"] == model) & metrics["change"].isin(changes)]
    table = _percent_by(part, "change", "strict_accuracy").reindex(columns=changes)
    figure, axis = plt.subplots(figsize=(1.8 + 2.2 * max(len(table.index), 1), 4))
    _grouped_bars(axis, table)
    axis.set_ylabel("strict accuracy (%)")
    axis.set_title(f"{model}: one judge, {' vs '.join(changes)}")
    axis.legend()
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)
    plt.close(figure)


def d_minus_sources(metrics: pd.DataFrame, png_path: str) -> None:
    """The D₋-generator figure: reference quality per setup (human or generated D₋), per judge."""
    reference = metrics[
        (metrics["change"] == "reference") & ~metrics["setup"].str.startswith(IDEATION)
    ]
    formats = list(dict.fromkeys(reference["format"])) or ["pairwise"]
    figure, axes = plt.subplots(1, len(formats), figsize=(5.5 * len(formats), 4.2), squeeze=False)
    for axis, format in zip(axes[0], formats):
        _grouped_bars(
            axis, _percent_by(reference[reference["format"] == format], "model", "quality")
        )
        axis.tick_params(axis="x", labelrotation=20)
        axis.set_xlabel("source of the lower-novelty (D₋) ideas")
        axis.set_ylabel("macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)")
        axis.set_title(f"{format}, reference prompt")
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)
    plt.close(figure)


def _change_matrix(part: pd.DataFrame, column: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``column`` in % as changes (rows, table order) × judges (columns), and its cells' labels
    (the value, * where the change differs significantly from the reference)."""
    values = part.pivot_table(index="change", columns="model", values=column, sort=False) * 100
    values = values.reindex([c for c in CHANGES if c in values.index])
    marks = part.assign(
        mark=part["significant"].fillna(False).astype(bool) & (part["change"] != "reference")
    ).pivot_table(index="change", columns="model", values="mark", aggfunc="max", sort=False)
    marks = marks.reindex(index=values.index, columns=values.columns).fillna(False).astype(bool)
    labels = values.round(1).astype(str).where(values.notna(), "–") + marks.map(
        {True: "*", False: ""}.get
    )
    return values, labels


def change_grid(
    metrics: pd.DataFrame,
    png_path: str,
    column: str,
    label: str,
    marks: bool,
    changes: list[str] | None = None,
) -> None:
    """One heatmap per setup (ideation comparisons aside): ``column`` in % per change × judge,
    with * where the change's quality differs significantly from the reference (``marks``);
    ``changes``: only these rows (the reference always)."""
    part = metrics[~metrics["setup"].str.startswith(IDEATION)]
    if changes is not None:
        part = part[part["change"].isin(["reference", *changes])]
    setups = list(dict.fromkeys(part["setup"])) or ["(no cells)"]
    rows = max(part["change"].nunique(), 1)
    columns = max(part["model"].nunique(), 1)
    figure, axes = plt.subplots(
        1,
        len(setups),
        figsize=(max(6.5, 1.6 + 1.1 * columns * len(setups)), 1.4 + 0.42 * rows),
        squeeze=False,
    )
    for axis, setup in zip(axes[0], setups):
        values, labels = _change_matrix(part[part["setup"] == setup], column)
        if not marks:
            labels = values.round(1).astype(str).where(values.notna(), "–")
        axis.imshow(values.to_numpy(dtype=float), cmap="viridis", vmin=0, vmax=100, aspect="auto")
        for (i, j), text in np.ndenumerate(labels.to_numpy()):
            bright = values.iat[i, j] > 60  # viridis turns yellow: dark text there
            color = "black" if bright else "white"
            axis.text(j, i, text, ha="center", va="center", fontsize=7, color=color)
        axis.set_xticks(range(len(values.columns)), values.columns, rotation=30, ha="right")
        axis.set_yticks(range(len(values.index)), values.index)
        axis.set_title(setup, fontsize=9)
    figure.suptitle(label + (" (* paired bootstrap interval excludes 0)" if marks else ""))
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)
    plt.close(figure)
