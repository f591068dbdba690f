"""The budget: the planned cost of a run's unanswered calls against ``budget.max_usd`` before any
job, the ledger that stops calling jobs past a cap (the loopback provider answering), and
`snakemake spend` from the journals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import (
    LOOPBACK_KEY,
    loopback_registry,
    run_snakemake,
    sample_subset,
    snakemake_env,
)
from loopback_api import INPUT_TOKENS, OUTPUT_TOKENS

from noveval.core.registry import load_registry
from noveval.inference.engines.journal import read_records
from noveval.inference.job import run_inference
from noveval.inference.ledger import Budget, BudgetExceeded, ledger_spend, record_spend
from noveval.inference.requests import build_request
from noveval.inference.workloads import PlanSettings
from noveval.judges.systems.novelty_checker.checker import JOURNAL
from noveval.planning.budget import PendingJob, check_plan, journal_track, planned_cost

MODEL = "gpt-4o"
# USD per call of the loopback's fixed token counts at gpt-4o's $2.50 / $10 per million
CALL_USD = (INPUT_TOKENS * 2.5 + OUTPUT_TOKENS * 10) / 1e6


def job(tmp_path: Path, loopback, calls: int, budget: dict) -> dict:
    """run_inference's arguments for one NovBench cell of ``calls`` calls of gpt-4o, live."""
    registry = loopback_registry(tmp_path / "models.yaml", loopback, MODEL)
    spec = load_registry(registry).model(MODEL)
    messages = [[{"role": "user", "content": f"Paper {n}?"}] for n in range(calls)]
    rows = [build_request(f"paper-{n}", spec, m, {}) for n, m in enumerate(messages)]
    model_folder = tmp_path / "results" / "novbench" / "tiny" / MODEL
    requests = model_folder / "zero_shot" / "none" / "requests.parquet"
    requests.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(requests, index=False)
    settings = {"concurrency": 1, "request_timeout_s": 30, "retry_for": 5}
    return {
        "requests_paths": [str(requests)],
        "responses_path": str(model_folder / "responses" / "cells" / "1-of-1.parquet"),
        "model": MODEL,
        "registry_path": str(registry),
        "cache_dir": str(tmp_path / "cache"),
        "settings": {**settings, "server_start_timeout_s": 10, "failure_budget": 0},
        "log_path": str(tmp_path / "infer.log"),
        "failures_path": str(tmp_path / "failures.json"),
        "job": f"novbench/tiny/{MODEL}/cells/1-of-1",
        "budget": budget,
        "track": "novbench",
    }


def journaled(arguments: dict) -> list[dict]:
    folder = Path(arguments["cache_dir"]) / MODEL
    return [record for path in folder.glob("*.jsonl") for record in read_records(path)]


def test_a_cap_reached_mid_run_stops_the_job_and_a_larger_one_sends_only_the_rest(
    tmp_path, loopback, monkeypatch
):
    """Slices of 2 calls at 0.0045 USD each under a 0.01 USD cap: 0.009 spent after the first,
    0.018 after the second, so the job stops before its third slice with 4 calls answered; a
    rerun with a 1 USD cap sends the other 2."""
    monkeypatch.setenv(*next(iter(LOOPBACK_KEY.items())))
    arguments = job(tmp_path, loopback, calls=6, budget={"max_usd": 0.01, "check_every_calls": 2})
    with pytest.raises(BudgetExceeded, match=r"0\.0180 USD spent, budget.max_usd = 0.01 USD"):
        run_inference(**arguments)
    assert len(journaled(arguments)) == 4 and not Path(arguments["responses_path"]).exists()
    assert ledger_spend(arguments["cache_dir"]) == pytest.approx(4 * CALL_USD)
    arguments["budget"] = {"max_usd": 1.0, "check_every_calls": 2}
    sent = run_inference(**arguments)
    assert len(sent.request_ids) == 2
    records = journaled(arguments)
    assert len(records) == 6 == len({r["request_id"] for r in records})
    assert ledger_spend(arguments["cache_dir"], "novbench") == pytest.approx(6 * CALL_USD)
    assert len(pd.read_parquet(arguments["responses_path"])) == 6


def test_the_plan_prices_only_the_calls_no_journal_answered(tmp_path, loopback):
    """4 rendered calls of "Paper n?" (8 characters: 2 tokens + 4 of framing), one answered in
    an earlier journal: 3 calls of 6 prompt tokens and 100 output tokens (decoding's cap) each
    at gpt-4o's prices, half through the batch API; over a cap the check names the cell."""
    arguments = job(tmp_path, loopback, calls=4, budget={})
    answered = pd.read_parquet(arguments["requests_paths"][0])["request_id"].iloc[0]
    folder = Path(arguments["cache_dir"]) / MODEL
    folder.mkdir(parents=True)
    earlier = {"request_id": answered, "cost_usd": 0.25, "error": None}
    (folder / "earlier.jsonl").write_text(json.dumps(earlier) + "\n")
    registry = load_registry(arguments["registry_path"])
    pending = [
        PendingJob(
            "novbench",
            "tiny",
            MODEL,
            "cells",
            "1-of-1",
            arguments["requests_paths"],
            0,
            arguments["responses_path"],
        )
    ]
    caps = {"novbench": 100}
    live = planned_cost(
        pending, registry, arguments["cache_dir"], PlanSettings(), caps, False, Budget()
    )
    batch = planned_cost(
        pending, registry, arguments["cache_dir"], PlanSettings(), caps, True, Budget()
    )
    usd = (3 * 6 * 2.5 + 3 * 100 * 10) / 1e6
    assert live[["cell", "calls"]].values.tolist() == [["zero_shot/none", 3]]
    assert live["usd"].sum() == pytest.approx(usd) and batch["usd"].sum() == pytest.approx(usd / 2)
    record_spend(arguments["cache_dir"], "novbench", "earlier", folder / "earlier.jsonl")
    assert "0.0030 USD planned; 0.2500 USD spent so far" in check_plan(
        live, Budget(max_usd=1), arguments["cache_dir"]
    )
    with pytest.raises(BudgetExceeded) as stopped:
        check_plan(live, Budget(tracks={"novbench": 0.25}), arguments["cache_dir"])
    assert str(stopped.value).endswith(
        "0.0030 USD planned + 0.2500 USD spent exceeds budget.tracks.novbench = 0.25 USD: no job "
        f"started. Largest cells: novbench/tiny/{MODEL}/zero_shot/none: 3 calls, 0.0030 USD"
    )


@pytest.mark.workflow
def test_a_planned_cost_over_the_cap_stops_the_run_before_any_job(tmp_path, tiny_config, loopback):
    """gpt-4o's 3 zero-shot calls on 3 papers, priced before their requests are rendered (the
    DAG's calls, budget.assumed_prompt_tokens each, the plan's output tokens), pass a cap of a
    millionth of a dollar: the run stops in onstart naming the total and the cell, no job ran."""
    registry = loopback_registry(tmp_path / "models.yaml", loopback, MODEL)
    config = tiny_config(
        top={"registry": str(registry), "budget": {"max_usd": 1e-6}},
        datasets={"tiny": str(sample_subset(tmp_path, 3))},
        models=[MODEL],
        strategies=["zero"],
        perturbations=["none"],
    )
    env = snakemake_env(**LOOPBACK_KEY)
    result = run_snakemake("--cores", "1", "--configfile", str(config), env=env, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    planned = re.search(r"(\d+\.\d+) USD planned \+ 0\.0000 USD spent exceeds budget", output)
    assert planned and float(planned.group(1)) > 1e-6
    assert "budget.max_usd = 1e-06 USD: no job started" in output
    assert f"Largest cells: novbench/tiny/{MODEL}/cells (not rendered yet): 3 calls" in output
    assert not (tmp_path / "results" / "novbench").exists()


@pytest.mark.workflow
def test_spend_prints_the_journals_cost_per_model_and_track(embedded_run):
    """`snakemake spend` after the embedded run: per model and track, the cost column's sum of
    that model's journals of that track's jobs."""
    printed = embedded_run.snakemake("spend", "--cores", "1").stdout
    cache = embedded_run.results / "cache"
    prefix = str(embedded_run.results).strip("/").replace("/", "__") + "__"
    expected: dict[tuple[str, str], float] = {}
    for path in cache.glob("*/*.jsonl"):
        # an inference job's journal is named by its output; the dedicated judges' by their cell
        own = path.stem.startswith(prefix)
        track = path.stem.removeprefix(prefix).split("__")[0] if own else "judges"
        usd = sum(r.get("cost_usd") or 0.0 for r in read_records(path))
        key = (path.parent.name, track)
        expected[key] = expected.get(key, 0.0) + usd
    rows = {
        (model, track): float(usd)
        for model, track, usd in re.findall(
            r"^\|\s*(\S+)\s*\|\s*(\w+)\s*\|\s*\w+\s*\|\s*\d+\s*\|\s*([\d.]+)", printed, re.M
        )
    }
    assert rows.keys() == expected.keys() and len(rows) > 2
    for key, usd in expected.items():
        assert rows[key] == pytest.approx(usd, abs=1e-6)
    assert rows[MODEL, "novbench"] > 0
    total = float(re.search(r"spent so far: ([\d.]+) USD", printed).group(1))
    assert total == pytest.approx(sum(expected.values()), abs=1e-5)


def test_the_novelty_checker_s_journals_count_as_judges_under_either_name():
    """Its journals are novelty_checker-<setup>; those written as scideator-<setup> before the
    rename still count in the judges' spend."""
    prefix = "results__"
    for job in (f"{JOURNAL}-human-only", "scideator-human-only", "judges-ai_scientist"):
        assert journal_track(job, prefix) == "judges"
    assert journal_track("results__novbench__x", prefix) == "novbench"
