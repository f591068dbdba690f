"""Output tokens per judge call, calibrated on the judge study's published costs.

A published cost (``published/judges.csv``, its ``cost_usd`` rows: the cost-efficiency figure) is
the total USD of one run over the authors' unfiltered instances (``AUTHORS_INSTANCES``; the
figure's notebook counts cost over every instance and metrics over the blocklist-filtered ones).
With that run's calls (instances x calls per instance) and the plan's input tokens per call (the
rendered prompts), the authors' prices (config/models.yaml holds theirs for the judges) leave
the output tokens per call:

    output = (cost / calls / price share - input x input price) / output price

where the price share is 1 for live calls and 0.5 through a batch API (the plan's
``published_pricing``, batch by default: at live prices claude-opus-4-6's published low-effort
costs are less than the authors' prompts alone would cost, and its P3 costs leave 14 output
tokens a call for a reasoned answer). All input is priced
uncached: Claude's prompt caching, which would lower it, is not modelled.
Each backbone x format x change pools the cells it has (calls-weighted). A few cells are held out
(``HELD_OUT``): the plan predicts their cost from the calibration and reports its error.

Where a backbone x format x change has no published cost, its value comes from, in order: the
same backbone's change whose prompt it varies (``SIBLINGS``: P1, P2 and purpose-mechanism vary the
reference prompt, P4 and P5 the P3 one; a prompt change on another form of the ideas takes
the change on the ideas as written first); the calibrated backbones that speak the same API (the
median of theirs: the GPT-5.x judges take gpt-5.4's, the Claude judges claude-opus-4-6's); and
otherwise the plan's assumed answer and reasoning tokens. Retrieval's published cost also holds
the collection of its candidates, and no aggregation's is a share of the reference run: neither
is a cell of calls, so neither calibrates.
"""

from __future__ import annotations

import logging
import statistics
from dataclasses import dataclass, replace

import pandas as pd

from noveval.core.pricing import BATCH_SHARE
from noveval.judges.grid.cells import DERIVED, LOOPED, label_kind

log = logging.getLogger(__name__)

# Instances of the authors' cost runs (cost_efficiency.ipynb, column n): 161 pairs per pairwise
# set, 313 Human-Only and 322 Human+Generated ideas, before the blocklist.
AUTHORS_INSTANCES = {
    ("pairwise", "human-only"): 161,
    ("pairwise", "human-plus-generated"): 161,
    ("pointwise", "human-only"): 313,
    ("pointwise", "human-plus-generated"): 322,
}
# (setup, format, change) kept out of the calibration, for every backbone with a published cost
HELD_OUT = (
    ("human-plus-generated", "pointwise", "reference"),
    ("human-plus-generated", "pairwise", "low_reasoning"),
)
SIBLINGS = {
    "P1": "reference",
    "P2": "reference",
    "purpose_mechanism": "reference",
    "retrieval": "reference",
    "P4": "P3",
    "P5": "P3",
}
# the AI-Scientist check's rounds vary per idea: its published cost fits no tokens per call
NOT_CALIBRATING = {*DERIVED, *LOOPED, "retrieval"}
PRICE_SHARE = {"live": 1.0, "batch": BATCH_SHARE}


@dataclass(frozen=True)
class OutputTokens:
    """Output tokens of one call of a backbone x format x change, and where they come from."""

    per_call: float
    source: str


@dataclass(frozen=True)
class Calibration:
    """Calibrated output tokens by (backbone, format, change) and the held-out comparison."""

    values: dict[tuple[str, str, str], OutputTokens]
    apis: dict[str, list[str]]  # wire API -> the calibrated backbones that speak it
    pricing: str  # how the published runs are taken to have been priced: live | batch
    held_out: pd.DataFrame | None = None  # model, setup, format, change, published/plan USD

    def output_tokens(self, spec, format: str, change: str, assumed: float) -> OutputTokens:
        """The value for ``spec``'s calls of ``format`` and ``change`` (a display label, as the
        published costs and the plan's workloads name a cell; module docstring)."""
        steps = list(dict.fromkeys([change, label_kind(change)[0]]))  # P4+plan: as P4
        if steps[-1] in SIBLINGS:
            steps.append(SIBLINGS[steps[-1]])
        for step in steps:
            found = self.values.get((spec.name, format, step))
            if found is not None:
                how = "published" if step == change else f"as {step}"
                return OutputTokens(found.per_call, f"{how}: {found.source}")
        peers = self.apis.get(spec.api, [])
        for step in steps:
            values = [
                self.values[p, format, step] for p in peers if (p, format, step) in self.values
            ]
            if values:
                median = statistics.median(value.per_call for value in values)
                of = f"as {peers[0]}" if len(peers) == 1 else f"median of {', '.join(peers)}"
                how = "" if step == change else f", its {step}"
                return OutputTokens(median, f"{of} (same {spec.api} API{how})")
        return OutputTokens(assumed, "assumed: no published cost")


def _cells(workloads, published: pd.DataFrame) -> pd.DataFrame:
    """The published cost cells that the plan has a workload for, with its tokens and calls."""
    costs = published[(published["metric"] == "cost_usd")]
    costs = costs[~costs["change"].isin(NOT_CALIBRATING)]
    by_cell = {
        (w.model, w.step, w.strategy): w for w in workloads if w.track == "judges" and w.calls > 0
    }
    rows = []
    for row in costs.itertuples():
        w = by_cell.get((row.model, row.change, f"{row.format}/{row.setup}"))
        instances = AUTHORS_INSTANCES.get((row.format, row.setup))
        if w is None or instances is None:
            continue
        rows.append(
            {
                "model": row.model,
                "setup": row.setup,
                "format": row.format,
                "change": row.change,
                "published_usd": float(row.paper_value),
                "calls": instances * w.calls / w.papers,
                "input_per_call": w.input_tokens / w.calls,
            }
        )
    columns = ["model", "setup", "format", "change", "published_usd", "calls", "input_per_call"]
    return pd.DataFrame(rows, columns=columns)


def calibrate(workloads, published: pd.DataFrame, registry, pricing: str = "live") -> Calibration:
    """Output tokens per call from the published costs of the cells the plan has (not held out),
    and the plan's prediction of the held-out cells."""
    share = PRICE_SHARE[pricing]
    cells = _cells(workloads, published)
    keys = zip(cells["setup"], cells["format"], cells["change"])
    held = pd.Series([key in HELD_OUT for key in keys], index=cells.index, dtype=bool)

    def output(row) -> float:
        prices = registry.model(row["model"]).price_per_million
        per_call = row["published_usd"] / row["calls"] / share * 1e6
        return (per_call - row["input_per_call"] * prices["input"]) / prices["output"]

    used = cells[~held].copy()
    used["output"] = [output(row) for row in used.to_dict("records")]
    values = {}
    for (model, format, change), group in used.groupby(["model", "format", "change"]):
        per_call = (group["output"] * group["calls"]).sum() / group["calls"].sum()
        if per_call < 0:
            log.warning(
                "%s %s %s: the published cost is less than its input alone at %s prices "
                "(calibrated to 0 output tokens); the runs were not priced so",
                model,
                format,
                change,
                pricing,
            )
        values[model, format, change] = OutputTokens(
            max(per_call, 0.0), f"{', '.join(sorted(group['setup']))} cost"
        )
    apis: dict[str, list[str]] = {}
    for model in sorted({key[0] for key in values}):
        apis.setdefault(registry.model(model).api, []).append(model)
    calibration = Calibration(values, apis, pricing)
    predictions = []
    for row in cells[held].to_dict("records"):
        spec = registry.model(row["model"])
        prices = spec.price_per_million
        out = calibration.output_tokens(spec, row["format"], row["change"], 0).per_call
        per_call = row["input_per_call"] * prices["input"] + out * prices["output"]
        usd = row["calls"] * share * per_call / 1e6
        predictions.append(
            {
                **{key: row[key] for key in ("model", "setup", "format", "change")},
                "published_usd": row["published_usd"],
                "plan_usd": usd,
                "error": usd / row["published_usd"] - 1,
            }
        )
    columns = ["model", "setup", "format", "change", "published_usd", "plan_usd", "error"]
    return replace(calibration, held_out=pd.DataFrame(predictions, columns=columns))
