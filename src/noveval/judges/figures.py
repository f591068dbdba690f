"""Judge figures from the metrics alone: cost–quality, D₋ sources, the motivating figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from noveval.judges.grid import IDEATION  # noqa: E402


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


def motivation(metrics: pd.DataFrame, png_path: str, model: str, changes: list[str]) -> None:
    """One judge, two prompts, each setup: pairwise strict accuracy side by side."""
    part = metrics[(metrics["model"] == model) & metrics["change"].isin(changes)]
    setups = list(dict.fromkeys(part["setup"]))
    figure, axis = plt.subplots(figsize=(1.8 + 2.2 * max(len(setups), 1), 4))
    width = 0.8 / max(len(changes), 1)
    for i, change in enumerate(changes):
        values = [
            part[(part["setup"] == s) & (part["change"] == change)]["strict_accuracy"].mean() * 100
            for s in setups
        ]
        bars = axis.bar(np.arange(len(setups)) + i * width, values, width, label=change)
        axis.bar_label(bars, fmt="%.1f", fontsize=7)
    axis.set_xticks(np.arange(len(setups)) + width * (len(changes) - 1) / 2, setups)
    axis.set_ylim(0, 100)
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
        part = reference[reference["format"] == format]
        setups = list(dict.fromkeys(part["setup"]))
        models = list(dict.fromkeys(part["model"]))
        width = 0.8 / max(len(models), 1)
        for i, model in enumerate(models):
            values = [
                part[(part["setup"] == s) & (part["model"] == model)]["quality"].mean() * 100
                for s in setups
            ]
            bars = axis.bar(np.arange(len(setups)) + i * width, values, width, label=model)
            axis.bar_label(bars, fmt="%.1f", fontsize=7)
        axis.set_xticks(np.arange(len(setups)) + width * (len(models) - 1) / 2, setups, rotation=20)
        axis.set_ylim(0, 100)
        axis.set_xlabel("source of the lower-novelty (D₋) ideas")
        axis.set_ylabel("macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)")
        axis.set_title(f"{format}, reference prompt")
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)
    plt.close(figure)
