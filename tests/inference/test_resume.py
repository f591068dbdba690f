"""A killed inference job resumes without repeating a finished call; reruns call nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pandas as pd
import pytest
from conftest import PROXIED_MODEL as MODEL
from conftest import REPO, SNAKEMAKE, proxied_registry, run_snakemake, sample_subset, snakemake_env

pytestmark = [pytest.mark.workflow, pytest.mark.model]


def journaled_ids(cache_dir) -> list[str]:
    ids = []
    for journal in cache_dir.glob("*.jsonl"):
        for line in journal.read_text().splitlines():
            try:
                ids.append(json.loads(line)["request_id"])
            except json.JSONDecodeError:
                pass
    return ids


def test_killed_job_resumes_without_repeating_calls(tmp_path, tiny_config, proxied_server):
    papers = 6
    config = tiny_config(
        top={
            "registry": str(proxied_registry(tmp_path, proxied_server.base_url)),
            "inference": {
                "concurrency": 1,
                "request_timeout_s": 120,
                "retry_for": 16,
                "server_start_timeout_s": 60,
            },
        },
        datasets={"tiny": str(sample_subset(tmp_path, papers))},
        models=[MODEL],
        strategies=["zero"],
        perturbations=["none"],
    )
    results = tmp_path / "results"
    responses = results / "novbench" / "tiny" / MODEL / "responses" / "cells.parquet"
    cache = results / "cache" / MODEL
    env = snakemake_env(NOVEVAL_TEST_KEY="local")
    target = [str(responses), "--cores", "1", "--configfile", str(config)]

    job = subprocess.Popen(
        [*SNAKEMAKE, *target],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "first-run.log", "w"),
        start_new_session=True,
    )
    deadline = time.monotonic() + 600
    while len(journaled_ids(cache)) < 2:
        assert job.poll() is None, (tmp_path / "first-run.log").read_text()[-3000:]
        assert time.monotonic() < deadline, "no call finished in time"
        time.sleep(0.05)
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()
    finished_before_kill = set(journaled_ids(cache))
    assert 2 <= len(finished_before_kill) < papers
    assert not responses.exists()

    sent_before = len(proxied_server.request_ids)
    run_snakemake(*target, "--unlock", env=env)  # the killed run left its lock, as on a cluster
    run_snakemake(*target, "--rerun-incomplete", env=env)
    resent = proxied_server.request_ids[sent_before:]
    assert not finished_before_kill & set(resent), "a finished call reached the model again"
    assert len(resent) == len(set(resent))
    answered = pd.read_parquet(responses)
    assert len(answered) == papers and answered["error"].isna().all()
    assert set(answered["request_id"]) == finished_before_kill | set(resent)
    assert (answered["cost_usd"] > 0).all()

    # A forced rerun of the finished job, and a rerun of the whole target, send nothing.
    sent_before = len(proxied_server.request_ids)
    run_snakemake(*target, "--forcerun", "infer", "infer_api", env=env)
    run_snakemake(*target, env=env)
    assert proxied_server.request_ids[sent_before:] == []
    assert pd.read_parquet(responses).equals(answered)
