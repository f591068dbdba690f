"""A configuration's cost is its run's total, priced as the judge study priced it.

The authors' pricing is their ``src/cost_tracker.py`` (read from the shared copy of their code):
every recorded call goes through their ``CostTracker.record`` and through ours, and the metrics
table's ``cost_usd`` of each configuration must equal their tracker's total for its calls.
"""

from __future__ import annotations

import functools
import importlib.util
import sys

import pandas as pd
import pytest
import yaml
from conftest import REPO, shared_file

from noveval.core.pricing import Usage
from noveval.core.registry import RegistryError, load_registry
from noveval.judges.prompts import call_item_id
from noveval.judges.statistics.aggregation import aggregate, sub_runs
from noveval.judges.statistics.figures import cost_quality_figure, overlapping
from noveval.judges.statistics.summary import metrics_table
from noveval.judges.systems.compute import Compute, local_compute
from noveval.judges.verdicts import calls_from_responses

REGISTRY = load_registry(REPO / "config" / "models.yaml")
LABELS = {"0": 0, "1": 1}  # the more novel idea of pairs 0 and 1

# (uncached input, output, cache reads, cache writes, batch) of each call of a run:
# 2 pairs x 2 orders x 3 calls, live, batch and cached calls mixed
CALLS = [
    (1200 + 37 * i, 400 + 91 * i, 900 * (i % 3 == 1), 1500 * (i % 5 == 0), i % 4 == 3)
    for i in range(12)
]


@functools.cache
def authors_tracker():
    """The authors' cost tracker module, loaded from the shared copy of their code."""
    path = shared_file("novelty-eval", "upstream", "src", "cost_tracker.py")
    spec = importlib.util.spec_from_file_location("authors_cost_tracker", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # their dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def authors_total(model: str, calls) -> float:
    """Their total USD of ``calls`` of ``model``."""
    tracker = authors_tracker().CostTracker()
    for uncached, output, cached, written, batch in calls:
        tracker.record(model, uncached, output, cached, written, is_batch=batch)
    return tracker.total_cost_usd()


def responses(model: str, calls=CALLS) -> pd.DataFrame:
    """A responses table of one pairwise run of ``model``: its calls priced by the registry."""
    spec = REGISTRY.model(model)
    rows = []
    for i, (uncached, output, cached, written, batch) in enumerate(calls):
        pair, order, call = i // 6, i // 3 % 2, i % 3
        usage = Usage(uncached, output, cached, written, batch)
        rows.append(
            {
                "request_id": f"r{i}",
                "item_id": call_item_id(str(pair), order, call),
                "text": '{"more_novel": 1}',
                "finish_reason": "stop",
                "input_tokens": uncached,
                "output_tokens": output,
                "cached_input_tokens": cached,
                "cache_creation_tokens": written,
                "batch": batch,
                "latency_s": 2.0 + i,
                "cost_usd": spec.cost_usd(usage),
                "error": None,
            }
        )
    return pd.DataFrame(rows)


def verdicts(model: str, table: pd.DataFrame, no_aggregation: str = "sub_runs") -> pd.DataFrame:
    """Reference and no-aggregation verdicts of one run (a hand-made responses table)."""
    calls = calls_from_responses(table, "pairwise")
    frames = []
    runs = 3 if no_aggregation == "sub_runs" else None
    for change, part in {"reference": calls, "no_aggregation": sub_runs(calls, runs)}.items():
        frame = aggregate(part, "pairwise")
        frame["label"] = frame["instance_id"].map(LABELS)
        frames.append(
            frame.assign(model=model, setup="human-only", ideas="standard", change=change)
        )
    return pd.concat(frames)


@pytest.mark.parametrize(
    "model", ["claude-opus-4-6", "gpt-5.4", "gpt-4o", "claude-sonnet-4-5", "gpt-5.6-sol"]
)
def test_the_run_costs_what_the_authors_tracker_totals(model):
    theirs = authors_total(model, CALLS)
    spec = REGISTRY.model(model)
    ours = sum(spec.cost_usd(Usage(*call)) for call in CALLS)
    assert ours == pytest.approx(theirs, rel=1e-12)
    table = metrics_table(verdicts(model, responses(model)), "pairwise", 200, 0)
    table = table.set_index("change")
    assert table.loc["reference", "cost_usd"] == pytest.approx(theirs, rel=1e-12)
    # no aggregation reuses the reference's calls: a third of the run (the authors' mec_k_1)
    assert table.loc["no_aggregation", "cost_usd"] == pytest.approx(theirs / 3, rel=1e-12)
    assert table.loc["reference", "pricing"] == "live and batch + cache reads + cache writes"
    assert table.loc["reference", "cost_basis"] == "USD"


def test_a_first_call_no_aggregation_costs_a_third_of_the_run_too():
    table = verdicts("gpt-5.4", responses("gpt-5.4"), no_aggregation="first_call")
    metrics = metrics_table(table, "pairwise", 200, 0).set_index("change")
    assert metrics.loc["no_aggregation", "cost_usd"] == pytest.approx(
        authors_total("gpt-5.4", CALLS) / 3, rel=1e-12
    )


@pytest.mark.parametrize(
    ("batch", "cached", "label"),
    [(False, 0, "live"), (True, 0, "batch"), (True, 500, "batch + cache reads")],
)
def test_batch_and_cache_pricing_are_the_authors_and_named(batch, cached, label):
    calls = [(1000, 2000, cached, 0, batch)] * 12
    theirs = authors_total("claude-opus-4-6", calls)
    # by hand: (1000 x 5 + cached x 0.5 + 2000 x 25) / 1e6 per call, half in a batch
    per_call = (1000 * 5 + cached * 0.5 + 2000 * 25) / 1e6 * (0.5 if batch else 1)
    assert theirs == pytest.approx(12 * per_call)
    table = verdicts("claude-opus-4-6", responses("claude-opus-4-6", calls))
    metrics = metrics_table(table, "pairwise", 200, 0).set_index("change")
    assert metrics.loc["reference", "cost_usd"] == pytest.approx(theirs, rel=1e-12)
    assert metrics.loc["reference", "pricing"] == label


def test_every_hosted_model_the_authors_priced_has_their_prices():
    pricing = authors_tracker().MODEL_PRICING
    lookup = authors_tracker()._lookup_pricing
    compared = []
    for spec in REGISTRY.models.values():
        theirs = lookup(spec.name) if spec.engine == "api" else None
        if theirs is None:  # not priced by them (gpt-5, gpt-3.5-turbo, gemini): our list prices
            continue
        ours = spec.price_per_million
        for key in ("input", "output", "cached_input", "cache_creation"):
            if theirs.get(key) is not None:
                assert ours.get(key) == pytest.approx(theirs[key]), (spec.name, key)
        compared.append(spec.name)
    judges = ["gpt-5.1", "gpt-5.2", "gpt-5.4", "claude-sonnet-4-5", "claude-opus-4-5"]
    assert set(judges + ["claude-opus-4-6", "gpt-4o", "gpt-4o-mini"]) <= set(compared)
    assert "claude-opus-4-6" in pricing


def test_a_local_judge_costs_its_device_hours_priced_where_configured():
    table = verdicts("qwen3-8b", responses("gpt-5.4").assign(cost_usd=0.0))
    latency = sum(2.0 + i for i in range(12))  # seconds, all calls of the run
    compute = local_compute(REGISTRY, ["qwen3-8b", "gpt-5.4"], 16, {"gpu": None})
    assert compute == {
        "qwen3-8b": {"unit": "GPU", "devices": 1, "in_flight": 16, "usd_per_hour": None}
    }
    hours = {"qwen3-8b": Compute(**compute["qwen3-8b"])}
    metrics = metrics_table(table, "pairwise", 200, 0, compute=hours).set_index("change")
    reference = metrics.loc["reference"]
    assert reference["compute_hours"] == pytest.approx(latency / 16 / 3600)
    assert reference["cost_basis"] == "GPU-hours"
    assert pd.isna(reference["cost_usd"])
    assert metrics.loc["no_aggregation", "compute_hours"] == pytest.approx(latency / 16 / 3600 / 3)
    priced = {"qwen3-8b": Compute("GPU", 2, 16, usd_per_hour=2.5)}
    metrics = metrics_table(table, "pairwise", 200, 0, compute=priced).set_index("change")
    assert metrics.loc["reference", "cost_usd"] == pytest.approx(2 * latency / 16 / 3600 * 2.5)
    assert metrics.loc["reference", "cost_basis"] == "USD"
    pricing = metrics.loc["reference", "pricing"]
    assert pricing == "GPU-hours from call latency at 2.5 USD per GPU-hour"
    cpu = local_compute(REGISTRY, ["smollm2-135m"], 16, {"cpu": 0.1})["smollm2-135m"]
    assert cpu == {"unit": "CPU", "devices": 1, "in_flight": 1, "usd_per_hour": 0.1}


def test_a_price_key_the_pricing_does_not_know_is_an_error_naming_it(tmp_path):
    entry = {"engine": "api", "reference": "m", "api_key_env": "KEY", "context_length": 8}
    path = tmp_path / "models.yaml"
    bad = {"input": 1.0, "output": 2.0, "cache_read": 0.1}
    path.write_text(yaml.safe_dump({"models": {"m": {**entry, "price_per_million": bad}}}))
    with pytest.raises(RegistryError, match="'m': price_per_million: unknown key 'cache_read'"):
        load_registry(path)


def test_the_cost_quality_figure_plots_compute_on_its_own_axis_with_no_label_overlapping():
    changes = ["reference", "P1", "P2", "P3", "P4", "P5", "low_reasoning", "no_aggregation"]
    rows = [  # a local judge: every change at almost the same point, no price
        {
            "model": "smollm2-135m",
            "setup": "human-only",
            "change": change,
            "format": "pairwise",
            "cost_usd": float("nan"),
            "cost_basis": "CPU-hours",
            "compute_hours": 0.5 + 0.001 * i,
            "quality": 0.6 + 0.001 * i,
        }
        for i, change in enumerate(changes)
    ] + [  # an API judge, priced in USD
        {
            "model": "gpt-5.4",
            "setup": "human-only",
            "change": change,
            "format": "pairwise",
            "cost_usd": 10.0 + 0.01 * i,
            "cost_basis": "USD",
            "compute_hours": float("nan"),
            "quality": 0.83,
        }
        for i, change in enumerate(changes)
    ]
    figure = cost_quality_figure(pd.DataFrame(rows))
    renderer = figure.canvas.get_renderer()
    compute, usd = figure.axes
    assert compute.get_xlabel() == "CPU job-hours of the run (from call latency)"
    assert usd.get_xlabel() == "cost of the run (USD)"
    assert compute.get_xlim() == (0, pytest.approx(0.507 * 1.2))
    for axis in (compute, usd):
        assert sorted(text.get_text() for text in axis.texts) == sorted(changes)
        assert overlapping(axis.texts, renderer) == []
