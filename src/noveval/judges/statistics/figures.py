"""Judge figures from the metrics alone: cost–quality, D₋ sources, the motivating figure, and
the heatmaps of one metric per change × judge (controlled study, soft accuracy, idea format)."""

from __future__ import annotations

import logging

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from adjustText import adjust_text  # noqa: E402

from noveval.judges.grid.cells import IDEATION, LABELS, labelled  # noqa: E402

log = logging.getLogger(__name__)

# The x axis of each cost basis (summary.cost_columns): API prices, or a local judge's compute.
COST_AXES = {
    "USD": ("cost_usd", "cost of the run (USD)"),
    "GPU-hours": ("compute_hours", "GPU-hours of the run (from call latency)"),
    "CPU-hours": ("compute_hours", "CPU job-hours of the run (from call latency)"),
}


def cost_quality_figure(metrics: pd.DataFrame) -> plt.Figure:
    """Quality against the run's cost per configuration: one panel per format and cost basis
    (USD, or device-hours of a local judge with no configured price), the axis from zero, and
    the change labels moved apart by adjustText so that none overlaps another."""
    metrics = labelled(metrics)
    metrics = metrics if "cost_basis" in metrics else metrics.assign(cost_basis="USD")
    panels = list(dict.fromkeys(zip(metrics["format"], metrics["cost_basis"])))
    figure, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5.2), squeeze=False)
    labels = {}
    for axis, (format, basis) in zip(axes[0], panels):
        column, label = COST_AXES[basis]
        part = metrics[(metrics["format"] == format) & (metrics["cost_basis"] == basis)]
        texts = labels[axis] = []
        for (model, setup), group in part.groupby(["model", "setup"], sort=False):
            axis.scatter(group[column], group["quality"] * 100, label=f"{model} / {setup}")
            texts += [
                axis.text(row[column], row["quality"] * 100, row["change_label"], fontsize=7)
                for _, row in group.iterrows()
            ]
        highest = part[column].max()
        axis.set_xlim(0, highest * 1.2 if highest > 0 else 1)
        axis.set_xlabel(label if highest > 0 else f"{label}: none recorded")
        axis.set_ylabel("macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)")
        axis.set_title(format)
        axis.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncols=2)
    figure.tight_layout()  # first: the labels are placed in the final axes
    for axis, texts in labels.items():
        separate_labels(axis, texts)
    return figure


def overlapping(texts, renderer) -> list[tuple[str, str]]:
    """The pairs of ``texts`` whose boxes overlap on the drawn figure."""
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in texts]
    return [
        (name, other_name)
        for i, (name, box) in enumerate(boxes)
        for other_name, other in boxes[i + 1 :]
        if box.overlaps(other)
    ]


# adjustText's stopping rule: a number of iterations, not its default one second of wall-clock
# time, so that a figure comes out byte for byte the same on any machine.
ADJUST_ITERATIONS = 500


def separate_labels(axis, texts, rounds: int = 10) -> None:
    """Move the labels off the points and off each other (adjustText), round after round until
    none overlaps (one round leaves some when many points coincide); warns if any still do."""
    points = [text.get_position() for text in texts]
    x, y = [p[0] for p in points], [p[1] for p in points]
    renderer = axis.figure.canvas.get_renderer()
    for round in range(rounds):
        if round and not overlapping(texts, renderer):
            return
        adjust_text(
            texts,
            x=x,
            y=y,
            ax=axis,
            expand=(1.3, 1.6),
            arrowprops={"arrowstyle": "-", "color": "0.5", "lw": 0.5},
            iter_lim=ADJUST_ITERATIONS,
        )
    if left := overlapping(texts, renderer):
        log.warning("%s: labels still overlap after %d rounds: %s", axis.get_title(), rounds, left)


def cost_quality(metrics: pd.DataFrame, png_path: str) -> None:
    """The cost–quality figure (``cost_quality_figure``) as a PNG."""
    figure = cost_quality_figure(metrics)
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
    metrics = labelled(metrics)
    part = metrics[(metrics["model"] == model) & metrics["change_label"].isin(changes)]
    table = _percent_by(part, "change_label", "strict_accuracy").reindex(columns=changes)
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
    metrics = labelled(metrics)
    reference = metrics[
        (metrics["change_label"] == "reference") & ~metrics["setup"].str.startswith(IDEATION)
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
    part = labelled(part)
    values = (
        part.pivot_table(index="change_label", columns="model", values=column, sort=False) * 100
    )
    values = values.reindex([c for c in LABELS if c in values.index])
    marks = part.assign(
        mark=part["significant"].fillna(False).astype(bool) & (part["change_label"] != "reference")
    ).pivot_table(index="change_label", columns="model", values="mark", aggfunc="max", sort=False)
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
    part = labelled(metrics)
    part = part[~part["setup"].str.startswith(IDEATION)]
    if changes is not None:
        part = part[part["change_label"].isin(["reference", *changes])]
    setups = list(dict.fromkeys(part["setup"])) or ["(no cells)"]
    rows = max(part["change_label"].nunique(), 1)
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
