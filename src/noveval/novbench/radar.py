"""The sentiment radar: shares of Positive / Neutral / Negative items, human vs each model."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from noveval.novbench.tables import HUMAN  # noqa: E402

LABELS = ["Positive", "Neutral", "Negative"]
COUNT_COLUMNS = ["n_positive", "n_neutral", "n_negative"]


def label_shares(scores: pd.DataFrame) -> pd.DataFrame:
    """Share of each label among all items, per model and strategy (unperturbed inputs)."""
    unperturbed = scores[scores["perturbation"].isin(["none", "-"])]
    counts = unperturbed.groupby(["model", "strategy"], sort=True)[COUNT_COLUMNS].sum()
    totals = counts.sum(axis=1).replace(0, np.nan)
    return counts.div(totals, axis=0).fillna(0.0).set_axis(LABELS, axis=1)


def plot(scores: pd.DataFrame, png_path: str) -> None:
    """One radar per strategy, the human polygon in each, saved as PNG."""
    shares = label_shares(scores)
    human = shares.xs(HUMAN, level="model").iloc[0]
    models = shares.drop(index=HUMAN, level="model")
    strategies = sorted(models.index.get_level_values("strategy").unique()) or ["-"]
    angles = np.linspace(0, 2 * np.pi, len(LABELS), endpoint=False).tolist()
    figure, axes = plt.subplots(
        1, len(strategies), subplot_kw={"polar": True}, figsize=(4.2 * len(strategies), 4.4)
    )
    for axis, strategy in zip(np.atleast_1d(axes), strategies):
        _polygon(axis, angles, human, "human", "black")
        for (model, _), row in models[
            models.index.get_level_values("strategy") == strategy
        ].iterrows():
            _polygon(axis, angles, row, model, None)
        axis.set_xticks(angles, LABELS)
        axis.set_ylim(0, 1)
        axis.set_title(f"strategy: {strategy}", pad=18)
        axis.legend(loc="lower right", bbox_to_anchor=(1.25, -0.15), fontsize=8)
    figure.suptitle("Sentiment of novelty comments (share of items)")
    figure.tight_layout()
    figure.savefig(png_path, dpi=120, bbox_inches="tight")  # the legends below the radars
    plt.close(figure)


def _polygon(axis, angles, shares, label, color) -> None:
    values = [shares[name] for name in LABELS]
    axis.plot(angles + angles[:1], values + values[:1], label=label, color=color, linewidth=1.5)
    axis.fill(angles + angles[:1], values + values[:1], alpha=0.08, color=color)
