"""Per-instance verdicts of every configuration → one metrics row per judge × setup × change."""

from __future__ import annotations

import pandas as pd

from noveval.judges import statistics

CONFIG = ["model", "setup", "change"]
COMPARISON = ["flip_rate", "difference", "ci_low", "ci_high", "significant"]


def metrics_table(verdicts: pd.DataFrame, format: str, resamples: int, seed: int) -> pd.DataFrame:
    """Metrics, cost, flip rate and paired bootstrap against the same judge's reference."""
    rows = []
    for (model, setup, change), group in verdicts.groupby(CONFIG, sort=False):
        group = group.sort_values("instance_id")
        labels, verdict = group["label"].to_numpy(), group["verdict"].to_numpy()
        row = {
            "model": model,
            "setup": setup,
            "change": change,
            "format": format,
            "n_instances": len(group),
            "n_calls": int(group["n_calls"].sum()),
            "n_failed_calls": int(group["n_failed"].sum()),
            "input_tokens": int(group["input_tokens"].sum()),
            "output_tokens": int(group["output_tokens"].sum()),
            "cost_usd": float(group["cost_usd"].sum()),
            "quality": statistics.quality(format, labels, verdict),
        }
        if format == "pointwise":
            row |= statistics.pointwise_metrics(labels, verdict)
        else:
            row |= statistics.pairwise_metrics(labels, verdict)
        reference = verdicts[
            (verdicts["model"] == model)
            & (verdicts["setup"] == setup)
            & (verdicts["change"] == "reference")
        ].set_index("instance_id")["verdict"]
        paired = group.set_index("instance_id").join(reference.rename("reference"), how="inner")
        if paired.empty:  # no reference run to compare with
            rows.append(row | dict.fromkeys(COMPARISON, float("nan")))
            continue
        row["flip_rate"] = statistics.flip_rate(paired["reference"], paired["verdict"])
        row |= statistics.paired_bootstrap(
            format,
            paired["label"].to_numpy(),
            paired["reference"].to_numpy(),
            paired["verdict"].to_numpy(),
            resamples=resamples,
            seed=seed,
        )
        rows.append(row)
    return pd.DataFrame(rows)
