"""Per-instance verdicts of every configuration → one metrics row per judge × setup × form of the
ideas × change.

The cost of a configuration is its run's total, as the judge study reports it: every call of the
run priced as it was made (``noveval.core.pricing``: live or batch, cache reads and writes), so a
three-call configuration costs three times a one-call one. A configuration derived from another
run's answers (no aggregation) costs its share of that run: the run's total x the calls it uses
per run / the run's calls (the authors: the reference's total / 3). A local judge's cost is its
compute: device-hours from the calls' latency, priced where ``usd_per_hour`` is configured.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from noveval.judges.grid.cells import DERIVED, STANDARD, change_label
from noveval.judges.statistics import measures as statistics
from noveval.judges.systems.compute import USD, Compute

CONFIG = ["model", "setup", "ideas", "change"]
COMPARISON = ["flip_rate", "difference", "ci_low", "ci_high", "reliable", "significant"]


def pricing_label(calls: int, batch_calls: int, cached: int, written: int) -> str:
    """How a configuration's calls were priced: live or batch, with cache reads or writes."""
    mode = "live" if batch_calls == 0 else "batch" if batch_calls == calls else "live and batch"
    extras = {"cache reads": cached, "cache writes": written}
    return " + ".join([mode, *(name for name, tokens in extras.items() if tokens)])


COUNTS = [
    "n_calls",
    "n_failed",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cache_creation_tokens",
    "batch_calls",
    "web_searches",
]


def _totals(group: pd.DataFrame) -> dict:
    """Calls, tokens, batch calls, latency and USD of a configuration's verdict rows (zero
    where a table does not record them)."""
    totals = {name: int(group[name].sum()) if name in group else 0 for name in COUNTS}
    latency = float(group["latency_s"].sum()) if "latency_s" in group else 0.0
    return totals | {"latency_s": latency, "api_usd": float(group["cost_usd"].sum())}


def cost_columns(
    group: pd.DataFrame, parent: pd.DataFrame | None, runs: int, compute: Compute | None
) -> dict:
    """``cost_usd``, ``pricing``, ``cost_basis`` and ``compute_hours`` of one configuration.

    ``parent``: the verdict rows of the run a derived configuration reuses (None: its own run).
    """
    own = _totals(group)
    share, source = 1.0, own
    if parent is not None and len(parent):
        source = _totals(parent)
        share = own["n_calls"] / runs / source["n_calls"] if source["n_calls"] else 0.0
    elif runs > 1:  # several single-call runs of its own: the cost of one
        share = 1 / runs
    hours = compute.hours(source["latency_s"]) * share if compute else float("nan")
    if compute is None:
        usd = source["api_usd"] * share
        label = pricing_label(
            source["n_calls"],
            source["batch_calls"],
            source["cached_input_tokens"],
            source["cache_creation_tokens"],
        )
    else:
        priced = compute.usd_per_hour is not None
        usd = hours * compute.usd_per_hour if priced else float("nan")
        label = f"{compute.unit}-hours from call latency" + (
            f" at {compute.usd_per_hour:g} USD per {compute.unit}-hour" if priced else ""
        )
    basis = compute.basis if compute else USD
    return {"cost_usd": usd, "cost_basis": basis, "compute_hours": hours, "pricing": label}


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
    compute: dict[str, Compute] | None = None,
) -> pd.DataFrame:
    """Metrics, cost, flip rate and paired bootstrap against the same judge's reference.

    A configuration with several runs (no aggregation as sub-runs) reports the mean of its runs'
    metrics, and its bootstrap resamples outcomes averaged over the runs (the authors' sub-run
    merge); with one run (call 0, their published row) every metric and mark is that draw's.
    Cost: the run's total (module docstring); ``compute``: the local judges by name.
    """
    verdicts = verdicts if "run" in verdicts else verdicts.assign(run=0)
    verdicts = verdicts if "ideas" in verdicts else verdicts.assign(ideas=STANDARD)
    per_metrics = {
        "pointwise": statistics.pointwise_metrics,
        "pairwise": statistics.pairwise_metrics,
    }[format]
    rows = []
    for (model, setup, ideas, change), group in verdicts.groupby(CONFIG, sort=False):
        runs = _runs(group)
        first = group[group["run"] == group["run"].min()].set_index("instance_id").sort_index()
        labels = first["label"].to_numpy()
        matrix = runs.to_numpy().T  # runs × instances
        reference = verdicts[
            (verdicts["model"] == model)
            & (verdicts["setup"] == setup)
            & (verdicts["ideas"] == STANDARD)
            & (verdicts["change"] == "reference")
        ]
        totals = _totals(group)
        row = {
            "model": model,
            "setup": setup,
            "ideas": ideas,
            "change": change,
            "change_label": change_label(change, ideas),  # the tables' row name (display only)
            "format": format,
            "n_instances": len(runs),
            "n_runs": len(runs.columns),
            "n_calls": totals["n_calls"],
            "n_failed_calls": totals["n_failed"],
            "input_tokens": totals["input_tokens"],
            "output_tokens": totals["output_tokens"],
            "cached_input_tokens": totals["cached_input_tokens"],
            "cache_creation_tokens": totals["cache_creation_tokens"],
            "web_searches": totals["web_searches"],
            **cost_columns(
                group,
                # as ever: the standard reference for no aggregation on the ideas as written only
                reference if change in DERIVED and ideas == STANDARD else None,
                len(runs.columns),
                (compute or {}).get(model),
            ),
            "quality": statistics.quality(format, labels, matrix),
        }
        row |= _mean_over_runs([per_metrics(labels, run) for run in matrix])
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
