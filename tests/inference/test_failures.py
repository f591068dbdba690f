"""A failed call is never an answer: faults injected for real (a closed loopback port, a killed
llama.cpp server), the job failing loudly, the failure budget, and reruns of exactly the failed
calls."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pytest
from conftest import (
    PROXIED_MODEL,
    REPO,
    SNAKEMAKE,
    proxied_registry,
    run_snakemake,
    sample_subset,
    snakemake_env,
)

from noveval.core.logs import failure_summary
from noveval.inference.engines.journal import read_records
from noveval.inference.engines.servers import free_port
from noveval.inference.job import allowed_failures
from noveval.novbench import tables
from noveval.novbench.scoring import SCORE_COLUMNS, SentenceScores, score_outputs

FAST_FAILURE = {
    "concurrency": 1,
    "request_timeout_s": 300,
    "retry_for": 0,  # no retry: a refused connection fails at once
    "server_start_timeout_s": 60,
}


def test_failure_budget_is_a_count_or_a_share():
    assert allowed_failures(0, 10) == 0
    assert allowed_failures(2, 10) == 2
    assert allowed_failures(0.25, 10) == 2  # a share, rounded down
    assert allowed_failures(0.05, 10) == 0


def test_failed_call_is_no_answer_in_scores_and_means():
    papers = pd.DataFrame(
        {
            "paper_id": ["p1", "p2", "p3"],
            "descriptions": [["We propose a syllable tagger."]] * 3,
            "gold_texts": [["The tagger is novel indeed."]] * 3,
            "gold_labels": [["Positive"]] * 3,
        }
    )
    parsed = pd.DataFrame(
        {
            "paper_id": ["p1", "p2", "p3"],
            "items_text": [["The tagger is novel indeed."], [], []],
            "items_label": [["Positive"], [], []],
            # what parsing makes of a failed call's missing text: an empty output
            "empty": [False, True, True],
            "repetitive": [False, False, False],
            "unparseable": [False, False, False],
            "error": [None, None, "APIConnectionError: Connection error."],
        }
    )
    vectors = {
        "We propose a syllable tagger.": np.array([1.0, 0.0]),
        "The tagger is novel indeed.": np.array([0.6, 0.8]),
    }
    scores = score_outputs(
        papers, parsed, SentenceScores(vectors, vectors, {"The tagger is novel indeed.": 3.0})
    )
    assert list(scores.columns) == SCORE_COLUMNS
    assert list(scores["failed"]) == [False, False, True]
    assert scores.loc[2, ["relevance", "coverage", "clarity", "dist_acc"]].isna().all()
    assert not scores.loc[2, ["empty", "unparseable", "repetitive"]].any()
    assert scores.loc[1, "empty"] and scores.loc[1, "relevance"] == 0.0  # empty: an answer

    scores[["model", "strategy", "perturbation"]] = ["m", "zero", "none"]
    scores[["relevance_encoder", "coverage_encoder", "fluency_lm"]] = ["e", "e", "l"]
    row = tables.summarise(scores).iloc[0]
    # By hand, p1: relevance 1 + 4 * 0.6, coverage 1 (its item is the gold item), dist_acc 1,
    # clarity (KC 1 + LS 5/20 + FS 1/(1+3)) / 3 = 0.5; p2 (empty, an answer) 0; p3 left out.
    assert row["relevance"] == pytest.approx((3.4 + 0.0) / 2)
    assert row["coverage"] == pytest.approx((1.0 + 0.0) / 2)
    assert row["dist_acc"] == pytest.approx((1.0 + 0.0) / 2)
    assert row["clarity"] == pytest.approx((0.5 + 0.0) / 2)
    assert (row["n_papers"], row["n_empty"], row["n_failed"]) == (3, 1, 1)


def api_config(tiny_config, tmp_path: Path, base_url: str, budget: float, name: str) -> Path:
    """Three sample papers ('tiny') and the first one alone ('one'), zero-shot, for an API model
    reaching ``base_url``."""
    registry = proxied_registry(tmp_path, base_url)
    registry = registry.rename(tmp_path / f"models-{name}.yaml")
    return tiny_config(
        name=f"{name}.yaml",
        top={"registry": str(registry), "inference": {**FAST_FAILURE, "failure_budget": budget}},
        datasets={
            "tiny": str(sample_subset(tmp_path, 3)),
            "one": str(sample_subset(tmp_path, 1)),
        },
        models=[PROXIED_MODEL],
        strategies=["zero"],
        perturbations=["none"],
    )


def batch_path(results: Path, dataset: str) -> Path:
    """The responses of the model's one inference job on ``dataset`` (its cells' batch)."""
    return results / "novbench" / dataset / PROXIED_MODEL / "responses" / "cells.parquet"


def journaled_failures(results: Path) -> set[str]:
    cache = results / "cache" / PROXIED_MODEL
    records = [r for path in cache.glob("*.jsonl") for r in read_records(path)]
    answered = {r["request_id"] for r in records if not r["error"]}
    return {r["request_id"] for r in records if r["error"]} - answered


@pytest.mark.workflow
@pytest.mark.model
def test_unreachable_endpoint_fails_loudly_or_within_the_budget_and_reruns_the_failed_calls(
    tmp_path, tiny_config, proxied_server
):
    results = tmp_path / "results"
    env = snakemake_env(NOVEVAL_TEST_KEY="local")
    closed = f"http://127.0.0.1:{free_port()}/v1"
    up = api_config(tiny_config, tmp_path, proxied_server.base_url, 0, "up")
    down = api_config(tiny_config, tmp_path, closed, 0, "down")
    down_within_budget = api_config(tiny_config, tmp_path, closed, 2, "budget")
    # The first paper is answered by another job; its answer is journaled for the model.
    run_snakemake(str(batch_path(results, "one")), "--cores", "1",
                  "--configfile", str(up), env=env)  # fmt: skip

    # Without a budget the job fails, naming its cells, the count and the error; no responses.
    tiny = batch_path(results, "tiny")
    table_path = results / "novbench" / "tiny" / "table.csv"
    failed = run_snakemake(
        str(table_path), "--cores", "2", "--configfile", str(down), env=env, check=False
    )
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0, output[-3000:]
    job = f"novbench/tiny/{PROXIED_MODEL}/cells/1-of-1"  # the batch's one chunk
    assert f"{job}: 2 of 3 calls failed for good" in output
    assert "allows 0; cells: zero-none)" in output and "APIConnectionError" in output
    assert "Inference jobs with failed calls" in output
    assert f"  {job}: 2 of 3 calls failed (job failed; cells: zero-none (2);" in output
    assert not tiny.exists() and not table_path.exists()
    log = (results / "logs" / job / "infer.log").read_text()
    assert "2 of 3 calls failed for good" in log
    report = json.loads((results / "logs" / job / "failures.json").read_text())
    assert (report["calls"], report["failed"], report["allowed"]) == (3, 2, 0)
    assert report["cells"] == {"zero-none": 2}
    failed_ids = journaled_failures(results)
    assert len(failed_ids) == 2

    # Within a budget of 2 the responses carry the failures; the table counts them in n_failed
    # and leaves them out of the means.
    run = run_snakemake(
        str(table_path), "--cores", "2", "--configfile", str(down_within_budget), env=env
    )
    assert f"  {job}: 2 of 3 calls failed (within budget" in run.stderr
    assert pd.read_parquet(tiny)["error"].notna().sum() == 2
    scores = pd.read_parquet(results / "novbench" / "tiny" / PROXIED_MODEL / "scores.parquet")
    assert scores["failed"].sum() == 2
    answered = scores[~scores["failed"]].iloc[0]
    table = pd.read_csv(table_path)
    row = table[table["model"] == PROXIED_MODEL].iloc[0]
    # the answered paper counts as empty if SmolLM2's 48 tokens hold no item: still an answer
    assert (row["n_papers"], row["n_failed"]) == (3, 2)
    assert row["n_empty"] == int(answered["empty"])
    for metric in ("relevance", "coverage", "clarity", "dist_acc"):
        assert row[metric] == pytest.approx(answered[metric])  # the one answered paper's score
    assert "n_failed: calls that failed for good" in (table_path.parent / "table.md").read_text()

    # With the endpoint back, a rerun of inference sends exactly the failed calls (the answered
    # one comes from the journal); within a budget the responses stood, so it is forced.
    sent_before = len(proxied_server.request_ids)
    rerun = run_snakemake(str(tiny), "--cores", "1", "--configfile", str(up),
                          "--forcerun", "infer", "infer_api", env=env)  # fmt: skip
    assert sorted(proxied_server.request_ids[sent_before:]) == sorted(failed_ids)
    assert pd.read_parquet(tiny)["error"].isna().all()
    assert "Inference jobs with failed calls" not in rerun.stderr


def llama_server_of(job: subprocess.Popen) -> psutil.Process | None:
    """The llama.cpp server started under the Snakemake process ``job``, once it runs."""
    for child in psutil.Process(job.pid).children(recursive=True):
        try:
            if "llama_cpp.server" in " ".join(child.cmdline()):
                return child
        except psutil.NoSuchProcess:
            continue
    return None


@pytest.mark.workflow
@pytest.mark.model
def test_killed_llama_server_fails_the_job_and_a_rerun_sends_exactly_the_failed_calls(
    tmp_path, tiny_config
):
    model = "smollm2-135m"
    config = tiny_config(
        top={"inference": FAST_FAILURE},
        datasets={"tiny": str(sample_subset(tmp_path, 3))},
        models=[model],
        strategies=["zero"],
        perturbations=["none"],
    )
    results = tmp_path / "results"
    batch = f"novbench/tiny/{model}/cells/1-of-1"
    responses = results / "novbench" / "tiny" / model / "responses" / "cells.parquet"
    target = [str(responses), "--cores", "2", "--configfile", str(config)]
    cache = results / "cache" / model
    log_path = tmp_path / "first-run.log"
    with open(log_path, "w") as log:
        job = subprocess.Popen(
            [*SNAKEMAKE, *target], cwd=REPO, env=snakemake_env(), stdout=log, stderr=log,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        server = None
        while not any(path.read_text().count("\n") for path in cache.glob("*.jsonl")):
            assert job.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "no call finished in time"
            server = server or llama_server_of(job)
            time.sleep(0.05)
        assert server is not None, "the job's llama.cpp server was not found"
        server.kill()  # the server dies mid-job
        assert job.wait(timeout=300) != 0
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    output = log_path.read_text()
    (journal,) = cache.glob("*.jsonl")  # the job's own journal
    records = read_records(journal)
    failed_ids = {r["request_id"] for r in records if r["error"]}
    assert 1 <= len(failed_ids) <= 2
    assert f"{batch}: {len(failed_ids)} of 3 calls failed for good" in output
    assert "Inference jobs with failed calls" in output
    assert not responses.exists()

    run_snakemake(*target)
    resent = [r["request_id"] for r in read_records(journal)[len(records) :]]
    assert sorted(resent) == sorted(failed_ids)
    assert pd.read_parquet(responses)["error"].isna().all()
    assert failure_summary(results / "logs") == ""


def test_failure_summary_skips_a_report_never_written(tmp_path):
    """A job that crashed before writing its failure report leaves the file empty."""
    (tmp_path / "crashed").mkdir()
    (tmp_path / "crashed" / "failures.json").write_text("")
    report = {"job": "infer x", "failed": 1, "allowed": 0, "calls": 3, "cells": {"c": 1}}
    (tmp_path / "failures.json").write_text(json.dumps(report | {"errors": ["Timeout"]}))
    assert failure_summary(tmp_path).splitlines()[1] == (
        "  infer x: 1 of 3 calls failed (job failed; cells: c (1); first error: Timeout)"
    )
