"""Per-instance verdicts of every configuration → one metrics row per judge × setup × change."""

from __future__ import annotations

import numpy as np
import pandas as pd

from noveval.judges import statistics

CONFIG = ["model", "setup", "change"]
COMPARISON = ["flip_rate", "difference", "ci_low", "ci_high", "reliable", "significant"]
ORDERS = {"pointwise": 1, "pairwise": 2}


def _runs(group: pd.DataFrame) -> pd.DataFrame:
    """Verdicts as instances × runs (one column per single-call sub-run, or one run)."""
    runs = group if "run" in group else group.assign(run=0)
    return runs.pivot(index="instance_id", columns="run", values="verdict").sort_index()


def _mean_over_runs(metrics: list[dict]) -> dict:
    return {key: float(np.mean([m[key] for m in metrics])) for key in metrics[0]}


def metrics_table(
    verdicts: pd.DataFrame,
    format: str,
    resamples: int,
    seed: int,
    method: str = "percentile",
    cost: str = "all_calls",
) -> pd.DataFrame:
    """Metrics, cost, flip rate and paired bootstrap against the same judge's reference.

    A configuration with several runs (no aggregation as sub-runs) reports the mean of its runs'
    metrics, and its bootstrap resamples outcomes averaged over the runs (the authors' sub-run
    merge); with one run (call 0, their published row) every metric and mark is that draw's.
    ``cost``: 'all_calls' sums every call; 'one_call' is the cost of one decision at one
    call per order (mean cost of a call × orders, summed over instances), as the authors report.
    """
    verdicts = verdicts if "run" in verdicts else verdicts.assign(run=0)
    per_metrics = {
        "pointwise": statistics.pointwise_metrics,
        "pairwise": statistics.pairwise_metrics,
    }[format]
    rows = []
    for (model, setup, change), group in verdicts.groupby(CONFIG, sort=False):
        runs = _runs(group)
        first = group[group["run"] == group["run"].min()].set_index("instance_id").sort_index()
        labels = first["label"].to_numpy()
        matrix = runs.to_numpy().T  # runs × instances
        per_call = group.get("cost_per_call_usd", group["cost_usd"] / group["n_calls"])
        row = {
            "model": model,
            "setup": setup,
            "change": change,
            "format": format,
            "n_instances": len(runs),
            "n_runs": len(runs.columns),
            "n_calls": int(group["n_calls"].sum()),
            "n_failed_calls": int(group["n_failed"].sum()),
            "input_tokens": int(group["input_tokens"].sum()),
            "output_tokens": int(group["output_tokens"].sum()),
            "cost_usd": float(group["cost_usd"].sum())
            if cost == "all_calls"
            else float(per_call.groupby(group["instance_id"]).mean().sum() * ORDERS[format]),
            "quality": statistics.quality(format, labels, matrix),
        }
        row |= _mean_over_runs([per_metrics(labels, run) for run in matrix])
        reference = verdicts[
            (verdicts["model"] == model)
            & (verdicts["setup"] == setup)
            & (verdicts["change"] == "reference")
        ]
        shared = runs.index.intersection(_runs(reference).index) if len(reference) else []
        if len(shared) == 0:  # no reference run to compare with
            rows.append(row | dict.fromkeys(COMPARISON, float("nan")))
            continue
        ref = _runs(reference).loc[shared].to_numpy().T
        new = runs.loc[shared].to_numpy().T
        row["flip_rate"] = float(np.mean([statistics.flip_rate(r, n) for r in ref for n in new]))
        row |= statistics.paired_bootstrap(
            format,
            first.loc[shared, "label"].to_numpy(),
            ref,
            new,
            resamples=resamples,
            seed=seed,
            method=method,
        )
        rows.append(row)
    return pd.DataFrame(rows)
