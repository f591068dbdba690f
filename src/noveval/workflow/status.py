"""Where a run stands: ``noveval status``, beside a running ``snakemake`` (it takes no lock and
starts no job).

For each track, dataset and model (the folders of a job's first output under the results folder
and its ``dataset`` and ``model`` wildcards): jobs done (every output there and none marked
incomplete), running, failed and pending; calls answered of those planned, from the request
tables and the call journals (the DAG's estimate for a batch not rendered yet); spend so far from
the journals against the compute plan's; the failed jobs with their log and its last error line;
and an estimated end from the throughput so far.

A job marked incomplete is running while its SLURM job is queued or running (``squeue``, for the
job ids Snakemake recorded), or, with no job id, while a Snakemake process runs in the checkout;
otherwise it was killed and counts as failed, as does a job whose log exists but whose outputs
do not, once no Snakemake runs here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from noveval.core.markdown import markdown_table
from noveval.inference.chunks import chunk_ids
from noveval.inference.ledger import journal_cost
from noveval.planning.budget import GRID_RULES, answered_ids, journal_track
from noveval.workflow.dag import PlannedJob, WorkflowDag, workflow_dag

STATUS_FILE = "status.json"
ERROR_LINE = re.compile(r"error|exception|traceback|killed|cancelled|failed", re.IGNORECASE)
RETRY_LINE = re.compile(r"request \S+: \w+, retry \d+ in")


@dataclass
class StatusRow:
    """One track, dataset and model of the run."""

    track: str
    dataset: str
    model: str
    jobs_done: int = 0
    jobs_running: int = 0
    jobs_pending: int = 0
    jobs_failed: int = 0
    calls_answered: int = 0
    calls_planned: int = 0
    spend_usd: float = 0.0
    planned_usd: float | None = None
    eta: str | None = None
    failed: list[dict] = field(default_factory=list)  # {rule, log, error}
    retrying: list[str] = field(default_factory=list)  # a running job's last retry line


def run_status(
    checkout: Path, configfiles: list[Path], targets: list[str], now: float | None = None
) -> tuple[list[StatusRow], list[str]]:
    """The rows of the run that ``targets`` under ``configfiles`` make, in ``checkout`` (also
    written to ``results/status.json``), and notes on what needs doing (a stale lock)."""
    dag = workflow_dag(checkout, configfiles, targets)
    results = Path(dag.config["results"])
    if not results.is_absolute():
        results = checkout / results
    active = snakemake_running(checkout)
    rows = status_rows(dag, checkout, results, now or time.time(), active)
    results.mkdir(parents=True, exist_ok=True)
    (results / STATUS_FILE).write_text(
        json.dumps([asdict(row) for row in rows], indent=1) + "\n", encoding="utf-8"
    )
    notes = []
    if dag.locked and not active:
        configs = " ".join(map(str, configfiles)) or "config/config.yaml"
        notes.append(
            "A lock of this checkout covers the run's files, but no Snakemake runs here: a "
            f"killed run left it. `snakemake --unlock --configfile {configs}` removes it "
            "(docs/recovery.md)."
        )
    return rows, notes


def status_rows(
    dag: WorkflowDag, checkout: Path, results: Path, now: float, active: bool
) -> list[StatusRow]:
    """One row per track, dataset and model of ``dag``'s jobs (see the module's docstring);
    ``active``: whether a Snakemake process runs in the checkout."""
    queued = slurm_jobs({i for job in dag.jobs for i in job.external_ids})
    rows: dict[tuple[str, str, str], StatusRow] = {}
    finished: dict[tuple[str, str, str], list[PlannedJob]] = defaultdict(list)
    answered = AnsweredCalls(results / "cache")  # read once per model
    for job in dag.jobs:
        key = row_key(job, checkout, results)
        row = rows.setdefault(key, StatusRow(*key))
        state = job_state(job, checkout, active, queued)
        setattr(row, f"jobs_{state}", getattr(row, f"jobs_{state}") + 1)
        if state == "done":
            finished[key].append(job)
        if state == "failed":
            log = next((path for path in job.logs if (checkout / path).is_file()), None)
            row.failed.append(
                {"rule": job.rule, "log": log, "error": last_error(checkout / log) if log else ""}
            )
        if state == "running":
            retry = last_matching(checkout / job.logs[0], RETRY_LINE) if job.logs else ""
            if retry:
                row.retrying.append(retry)
        if job.rule in GRID_RULES:
            planned, done = calls_of(job, checkout, dag.inference_jobs, answered)
            row.calls_planned += planned
            row.calls_answered += done
    add_spend(rows, results, dag.config["results"])
    add_eta(rows, finished, now)
    return sorted(rows.values(), key=lambda row: (row.track, row.dataset, row.model))


def row_key(job: PlannedJob, checkout: Path, results: Path) -> tuple[str, str, str]:
    """(track, dataset, model): the first folder of the job's first output under the results
    folder, and its wildcards."""
    output = Path(job.outputs[0])
    output = output if output.is_absolute() else checkout / output
    try:
        track = output.relative_to(results).parts[0]
    except ValueError:
        track = "other"
    return track, job.wildcards.get("dataset", ""), job.wildcards.get("model", "")


def job_state(job: PlannedJob, checkout: Path, active: bool, queued: set[str]) -> str:
    """done, running, failed or pending (see the module's docstring)."""
    present = all((checkout / path).exists() for path in job.outputs)
    if job.incomplete:
        if job.external_ids:
            return "running" if queued & set(job.external_ids) else "failed"
        return "running" if active else "failed"
    if present:
        return "done"
    started = any((checkout / path).is_file() for path in job.logs)
    return "failed" if started and not active else "pending"


def snakemake_running(checkout: Path) -> bool:
    """Whether a Snakemake process (not this one) runs in ``checkout`` (read from /proc)."""
    root = Path("/proc")
    if not root.is_dir():
        return False
    target = checkout.resolve()
    for entry in root.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if not any(b"snakemake" in part for part in command[:3]):
                continue
            if Path(os.readlink(entry / "cwd")).resolve() == target:
                return True
        except OSError:
            continue
    return False


def slurm_jobs(ids: set[str]) -> set[str]:
    """Which of the SLURM job ``ids`` are still queued or running (``squeue``); none where
    there is no ``squeue``."""
    if not ids:
        return set()
    try:
        result = subprocess.run(
            ["squeue", "--noheader", "--format=%i", f"--jobs={','.join(sorted(ids))}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {line.strip() for line in result.stdout.splitlines() if line.strip()} & ids


def log_lines(path: Path) -> list[str]:
    """The non-empty lines of a log's last 64 KiB; none for a missing file."""
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", errors="replace") as handle:
        return [line.strip() for line in handle.read()[-65536:].splitlines() if line.strip()]


def last_matching(path: Path, pattern: re.Pattern) -> str:
    """The last line of a log that matches ``pattern``; empty if none does."""
    return next((line for line in reversed(log_lines(path)) if pattern.search(line)), "")


def last_error(path: Path) -> str:
    """The last error line of a log, else its last line; empty for a missing or empty file."""
    return last_matching(path, ERROR_LINE) or next(reversed(log_lines(path)), "")


class AnsweredCalls:
    """The request ids each model's journals answered (``answered_ids``), read once per model."""

    def __init__(self, cache: Path):
        self.cache = cache
        self.by_model: dict[str, set[str]] = {}

    def of(self, model: str) -> set[str]:
        if model not in self.by_model:
            self.by_model[model] = answered_ids(self.cache / model)
        return self.by_model[model]


def calls_of(job: PlannedJob, checkout: Path, inference_jobs, answered: AnsweredCalls):
    """(planned, answered) calls of an inference chunk: its share of the batch's request ids
    where the requests tables are written, else the DAG's estimate and none answered."""
    tables = [checkout / path for path in job.inputs.get("requests", ())]
    chunk = job.wildcards.get("chunk", "1-of-1")
    if tables and all(path.is_file() for path in tables):
        ids = pd.concat([pd.read_parquet(path, columns=["request_id"]) for path in tables])
        mine = set(chunk_ids(ids["request_id"].drop_duplicates().tolist(), chunk))
        return len(mine), len(mine & answered.of(job.wildcards["model"]))
    if inference_jobs is None:
        return 0, 0
    wildcards = job.wildcards
    key = (wildcards["track"], wildcards["dataset"], wildcards["model"], wildcards["batch"])
    return inference_jobs.size(*key)[1], 0


def add_spend(rows: dict[tuple[str, str, str], StatusRow], results: Path, configured: str) -> None:
    """Each row's spend from its model's journals and its planned cost from the compute plan,
    where it is written. An inference journal is named after the job's output, flattened
    (``...__<track>__<dataset>__<model>__responses__<batch>__<chunk>``): its track and dataset;
    the judges' dedicated systems' journals go to the judges' row of their model whose dataset
    their name holds."""
    prefix = str(configured).strip("/").replace("/", "__") + "__"
    for path in sorted((results / "cache").glob("*/*.jsonl")):
        model, job = path.parent.name, path.stem
        parts = job.split("__")
        if len(parts) >= 6 and parts[-3] == "responses" and parts[-4] == model:
            row = rows.get((parts[-6], parts[-5], model))
        else:
            track = journal_track(job, prefix)
            mine = [r for (t, d, m), r in rows.items() if t == track and m == model]
            row = next((r for r in mine if r.dataset and r.dataset in job), None)
        if row is not None:
            row.spend_usd += journal_cost(path)
    plan = results / "plan" / "compute_plan.csv"
    if plan.is_file():
        table = pd.read_csv(plan)
        table = table[table["model"] != "all"]
        costs = table.groupby(["track", "dataset", "model"])["api_cost_usd"].sum()
        for (track, dataset, model), usd in costs.items():
            if (row := rows.get((track, str(dataset), model))) is not None:
                row.planned_usd = float(usd)


def add_eta(rows: dict, finished: dict, now: float) -> None:
    """Each row's estimated end: its jobs left at the rate its finished jobs ran (the whole
    run's rate where none of its own has finished); None when nothing is left, or when no job
    of the run has finished yet."""

    def rate(jobs: list[PlannedJob]) -> float | None:
        times = [(job.started, job.ended) for job in jobs if job.started and job.ended]
        if not times:
            return None
        span = max(end for _, end in times) - min(start for start, _ in times)
        return len(times) / max(span, 1.0)

    overall = rate([job for jobs in finished.values() for job in jobs])
    for key, row in rows.items():
        left = row.jobs_pending + row.jobs_running + row.jobs_failed
        speed = rate(finished.get(key, [])) or overall
        if left and speed:
            row.eta = datetime.fromtimestamp(now + left / speed, UTC).isoformat(timespec="seconds")


def status_table(rows: list[StatusRow], notes: list[str] = ()) -> str:
    """The rows as a Markdown table, then each failed job with its log and error line, each
    running job's last retry, and the ``notes``."""
    columns = [
        "track", "dataset", "model", "jobs_done", "jobs_running", "jobs_pending", "jobs_failed",
        "calls_answered", "calls_planned", "spend_usd", "planned_usd", "eta",
    ]  # fmt: skip
    frame = pd.DataFrame([asdict(row) for row in rows], columns=columns)
    frame = frame.rename(columns=lambda name: name.replace("jobs_", "").replace("_", " "))
    text = [markdown_table(frame, floatfmt=".4f")]
    failed = [(row, job) for row in rows for job in row.failed]
    if failed:
        text.append(f"\n{len(failed)} failed jobs:")
        text += [f"- {job['rule']}: {job['log']}: {job['error']}" for _, job in failed]
    retrying = [line for row in rows for line in row.retrying]
    if retrying:
        text.append(f"\n{len(retrying)} running jobs waiting on retries:")
        text += [f"- {line}" for line in retrying]
    text += [f"\n{note}" for note in notes]
    return "\n".join(text) + "\n"
