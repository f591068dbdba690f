"""Run one inference job: the calls of a batch of requests tables that no journal has answered.

A job serves one model once for a chunk of a batch (``noveval.inference.chunks``): a batch is every
cell of the model on one dataset (or one preliminary step: paraphrases, generated ideas, rewrites).
Its responses table holds the rows of every cell whose calls fall in the chunk, told apart by
the ``cell`` column (the cell's folder under the model's, as ``zero-none`` or
``pairwise/human-only/reference``); the batch's table gathers its chunks', and
``batches.read_responses`` reads one cell of it.

A call that fails for good (after its retries) is never an answer: the job fails, writing no
responses, unless the config's ``inference.failure_budget`` allows that many failures; then the
responses carry the failed calls with their error. Either way the job writes a small failure
report that :func:`noveval.core.logs.failure_summary` gathers at the end of the run.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noveval.core.files import write_table
from noveval.core.registry import load_registry
from noveval.inference.chunks import chunk_ids
from noveval.inference.engines.client import ClientSettings, retry_window, send_requests
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.provider_batches import BatchSettings, send_batches, uses_batch_api
from noveval.inference.engines.servers import serve
from noveval.inference.ledger import Budget, Spending
from noveval.inference.requests import RESPONSE_COLUMNS
from noveval.inference.weights import local_weights

log = logging.getLogger(__name__)


class FailedCallsError(RuntimeError):
    """More calls of a job failed for good than its failure budget allows."""


@dataclass(frozen=True)
class Sent:
    """The calls one run of a job sent: their request ids, the seconds its server took to start
    (0 for a hosted model) and the seconds from the first call sent to the last answer."""

    request_ids: tuple[str, ...]
    server_start_s: float
    send_s: float


def run_inference(
    requests_paths: list[str | Path],
    responses_path: str | Path,
    model: str,
    registry_path: str | Path,
    cache_dir: str | Path,
    settings: dict,
    log_path: str | Path,
    failures_path: str | Path,
    job: str,
    threads: int = 1,
    weights_manifests: list[str | Path] = (),
    chunk: str = "1-of-1",
    budget: dict | None = None,
    track: str = "",
) -> Sent | None:
    """Answer every request of the batch, reusing journaled answers, and write its responses.

    Answers come from the model's journals when any job has already made the same call; only
    the rest reach the model, through one server started for the whole batch, so a rerun sends
    exactly the calls that failed before. A hosted model that ``settings["batch_api"]`` selects
    answers through its provider's batch API (:mod:`noveval.inference.engines.provider_batches`).
    Raises :class:`FailedCallsError` (writing no responses) when more calls failed for good than
    ``settings["failure_budget"]`` allows; within the budget they are written with their error.
    ``failures_path`` receives the count per cell for the run's summary. ``weights_manifests``:
    the downloaded weights a vLLM server reads offline (rule weights). ``chunk`` (``k-of-n``):
    the share of the batch's calls this job answers (``noveval.inference.chunks``). ``budget``
    (config ``budget``): the job reads the ledger before each slice of its calls and stops with
    :class:`noveval.inference.ledger.BudgetExceeded` past a cap of ``track``
    (``noveval.inference.ledger``), its answered calls journaled. Returns what this run sent, and
    when (None: the journals answered every call).
    """
    registry = load_registry(registry_path)
    spec = registry.model(model)
    batched = uses_batch_api(registry, model, settings.get("batch_api"))
    model_folder = Path(responses_path).parents[2]
    requests = batch_requests(requests_paths, model_folder, model)
    mine = chunk_ids(requests["request_id"].drop_duplicates().tolist(), chunk)
    requests = requests[requests["request_id"].isin(mine)].reset_index(drop=True)
    unique = requests.drop_duplicates("request_id")
    job_name = _job_name(responses_path)
    journal = Journal(Path(cache_dir) / model, job_name=job_name)
    caps = Budget.from_config({"budget": budget})
    finished = journal.finished()
    pending = unique[~unique["request_id"].isin(finished)].to_dict("records")
    log.info(
        "%s: %d cells, %d requests, %d answered by earlier calls, %d to send%s",
        job,
        requests["cell"].nunique(),
        len(unique),
        len(unique) - len(pending),
        len(pending),
        " through the provider's batch API" if batched else "",
    )
    sent = None
    if pending:
        client_settings = ClientSettings(
            # llama_cpp.server answers one request at a time: queued ones would only time out.
            concurrency=1 if spec.engine == "llamacpp" else settings["concurrency"],
            request_timeout_s=settings["request_timeout_s"],
            retry_for_s=retry_window(spec.engine, settings["retry_for"]),
            requests_per_minute=spec.requests_per_minute,
            tokens_per_minute=spec.tokens_per_minute,
        )
        weights = local_weights(weights_manifests[0]) if weights_manifests else None
        timeout = settings["server_start_timeout_s"]
        probe = json.loads(pending[0]["messages"])  # a local server's probe: a real call's shape
        starting = time.monotonic()
        with journal, serve(spec, log_path, timeout, threads, weights, probe) as end:
            sending = time.monotonic()
            if batched:  # one submission: the provider's batch is not cut into slices

                def send(part):
                    send_batches(part, end, journal, BatchSettings.of(settings), spec.cost_usd)
            else:

                def send(part):
                    send_requests(part, end, journal, client_settings, spec.cost_usd)

            Spending(caps, cache_dir, track).send(pending, journal.path, send, sliced=not batched)
            sent = Sent(
                tuple(request["request_id"] for request in pending),
                server_start_s=sending - starting,
                send_s=time.monotonic() - sending,
            )
        finished = journal.finished()
    failed = {r["request_id"]: r for r in _latest_failures(journal, finished, unique)}
    allowed = allowed_failures(settings["failure_budget"], len(unique))
    failed_cells = requests[requests["request_id"].isin(failed)]
    _write_failure_report(
        failures_path, job, len(unique), failed_cells, list(failed.values()), allowed
    )
    if len(failed) > allowed:
        first = next(iter(failed.values()))["error"]
        raise FailedCallsError(
            f"{job}: {len(failed)} of {len(unique)} calls failed for good after their retries "
            f"(inference.failure_budget allows {allowed}; cells: "
            f"{', '.join(sorted(failed_cells['cell'].unique()))}); no responses written, a "
            f"rerun retries exactly these calls; first error: {first}"
        )
    if failed:
        log.warning(
            "%s: %d of %d calls failed for good (within the failure budget of %d); "
            "they are written with their error",
            job,
            len(failed),
            len(unique),
            allowed,
        )
    rows = []
    for request in requests.to_dict("records"):
        answer = finished.get(request["request_id"]) or failed[request["request_id"]]
        rows.append({**answer, "item_id": request["item_id"], "cell": request["cell"]})
    write_table(pd.DataFrame(rows, columns=[*RESPONSE_COLUMNS, "cell"]), responses_path)
    return sent


def batch_requests(paths: list[str | Path], model_folder: Path, model: str) -> pd.DataFrame:
    """The requests tables of a batch as one frame, each row with its cell (the table's folder
    under the model's folder)."""
    frames = []
    for path in map(Path, paths):
        frame = pd.read_parquet(path)
        if (frame["model"] != model).any():
            raise ValueError(f"{path}: holds requests for another model than '{model}'")
        frames.append(frame.assign(cell=path.parent.relative_to(model_folder).as_posix()))
    return pd.concat(frames, ignore_index=True)


def allowed_failures(budget: float, calls: int) -> int:
    """Failed calls a job of ``calls`` unique calls may keep: a budget of 1 or more is a count,
    one below 1 a share of the calls (rounded down); 0 allows none."""
    return int(budget) if budget >= 1 else math.floor(budget * calls)


def _write_failure_report(
    path: str | Path,
    job: str,
    calls: int,
    failed_requests: pd.DataFrame,
    failed: list[dict],
    allowed: int,
) -> None:
    per_cell = failed_requests.drop_duplicates(["cell", "request_id"])["cell"].value_counts()
    report = {
        "job": job,
        "calls": calls,
        "failed": len(failed),
        "allowed": allowed,
        "cells": {cell: int(count) for cell, count in sorted(per_cell.items())},
        "errors": [record["error"] for record in failed],
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def _job_name(responses_path: str | Path) -> str:
    """A journal name unique to the job (its output path, flattened)."""
    return str(Path(responses_path).with_suffix("")).strip("/").replace("/", "__")


def _latest_failures(
    journal: Journal, finished: dict[str, dict], requests: pd.DataFrame
) -> list[dict]:
    """This job's failed calls of ``requests`` that no later attempt answered, oldest first."""
    if not journal.path.exists():
        return []
    wanted = set(requests["request_id"]) - set(finished)
    return [r for r in read_records(journal.path) if r["request_id"] in wanted]


def job_arguments(snakemake) -> dict:
    """What every rule that answers a requests table (``infer``, ``pilot_infer``,
    ``construction_judges_infer``) gives :func:`run_inference` from its Snakemake job: the
    requests, weights, model, registry, journal folder, settings with the failure budget, logs,
    threads, and the budget and track its calls count against."""
    return {
        "requests_paths": list(snakemake.input.requests),
        "weights_manifests": list(snakemake.input.weights),
        "model": snakemake.wildcards.model,
        "registry_path": snakemake.params.registry,
        "cache_dir": snakemake.params.cache,
        "settings": {
            **snakemake.config["inference"],
            "failure_budget": snakemake.params.failure_budget,
        },
        "log_path": snakemake.log[0],
        "failures_path": snakemake.log.failures,
        "threads": snakemake.threads,
        "budget": snakemake.config.get("budget"),
        "track": snakemake.wildcards.get("track", "construction"),
    }
