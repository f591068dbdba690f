"""``noveval status`` on a copy of the embedded run killed with ``kill -9`` after its first
inference job, and after the rerun: its counts equal Snakemake's own plan and the journals'."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from conftest import REPO, SNAKEMAKE, planned_jobs

from noveval.inference.engines.journal import read_records

pytestmark = pytest.mark.workflow

ROW = ("novbench", "tiny", "gpt-4o")


def status(run) -> tuple[dict[tuple[str, str, str], dict], str]:
    """``noveval status novbench`` on the run, by (track, dataset, model), and what it printed;
    also checks that the printed table and results/status.json agree."""
    result = subprocess.run(
        [sys.executable, "-m", "noveval.workflow.cli", "status", "novbench", "--configfile",
         str(run.config_path)],
        cwd=REPO, env=run.env, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = json.loads((run.results / "status.json").read_text())
    for row in rows:
        assert f"| {row['track']} " in result.stdout
    return {(row["track"], row["dataset"], row["model"]): row for row in rows}, result.stdout


def jobs_of(dry_run: str, dataset: str, model: str) -> int:
    return sum(
        wildcards.get("dataset") == dataset and wildcards.get("model") == model
        for _, wildcards in planned_jobs(dry_run)
    )


def answered_in_journals(run, model: str) -> set[str]:
    return {
        record["request_id"]
        for path in (run.results / "cache" / model).glob("*.jsonl")
        for record in read_records(path)
        if not record["error"]
    }


def test_status_after_a_kill_and_after_the_rerun(embedded_run, tmp_path):
    run = embedded_run.copy(tmp_path)
    gpt4o = run.results / "novbench" / "tiny" / "gpt-4o"
    first_chunk = gpt4o / "responses" / "cells" / "1-of-1.parquet"
    # Snakemake rebuilds a missing intermediate only for an output that needs it: the tables too.
    tables = [p for p in gpt4o.parent.iterdir() if p.is_file() and p.name != "papers.parquet"]
    for path in [*tables, *sorted(gpt4o.rglob("*"), reverse=True)]:
        path.unlink() if path.is_file() else path.rmdir()
    command = [*SNAKEMAKE, "--cores", "1", "novbench", "--configfile", str(run.config_path)]
    running = subprocess.Popen(
        command, cwd=REPO, env=run.env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while not first_chunk.exists() and running.poll() is None:
            assert time.monotonic() < deadline, "the first inference job did not finish"
            time.sleep(0.2)
    finally:
        if running.poll() is None:
            os.killpg(running.pid, signal.SIGKILL)
        running.wait()
    assert first_chunk.exists()

    killed, killed_output = status(run)
    # Snakemake's own plan: every job of the row, and those it would run now.
    planning = ("-n", "--nolock", "--rerun-incomplete", "novbench")
    everything = run.snakemake("--forceall", *planning).stdout
    to_run = run.snakemake(*planning).stdout
    row = killed[ROW]
    jobs = [row[f"jobs_{state}"] for state in ("done", "running", "pending", "failed")]
    assert sum(jobs) == jobs_of(everything, "tiny", "gpt-4o")
    assert row["jobs_pending"] + row["jobs_failed"] == jobs_of(to_run, "tiny", "gpt-4o")
    assert row["jobs_done"] >= 1 and row["jobs_running"] == 0  # nothing runs after the kill
    assert all(r["jobs_running"] == 0 for r in killed.values())
    requests = pd.read_parquet(gpt4o / "responses" / "cells" / "1-of-1.parquet")
    assert row["calls_planned"] == row["calls_answered"] == requests["request_id"].nunique()
    assert set(requests["request_id"]) <= answered_in_journals(run, "gpt-4o")
    assert row["eta"] is not None  # jobs are left, and the run's finished jobs give a rate

    assert "no Snakemake runs here: a killed run left it" in killed_output
    # docs/recovery.md, a stale lock: the rerun is refused until --unlock removes it.
    refused = run.snakemake("--cores", "1", "novbench", "--rerun-incomplete", check=False)
    assert refused.returncode != 0, refused.stdout[-2000:] + refused.stderr[-2000:]
    assert "Directory cannot be locked" in refused.stdout + refused.stderr
    run.snakemake("--unlock", "novbench")
    run.snakemake("--cores", "1", "novbench", "--rerun-incomplete")
    finished, finished_output = status(run)
    assert "a killed run left it" not in finished_output
    for key, counts in finished.items():
        assert counts["jobs_pending"] == counts["jobs_failed"] == counts["jobs_running"] == 0, key
        assert counts["eta"] is None and counts["calls_answered"] == counts["calls_planned"]
    assert finished[ROW]["jobs_done"] == jobs_of(everything, "tiny", "gpt-4o")
    assert finished[ROW]["spend_usd"] == pytest.approx(killed[ROW]["spend_usd"])  # no new call
