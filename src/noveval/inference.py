"""Run one inference job: the calls of a requests table that no journal has answered yet."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.engines.client import ClientSettings, send_requests
from noveval.engines.journal import Journal, read_records
from noveval.engines.servers import serve
from noveval.registry import load_registry
from noveval.requests import RESPONSE_COLUMNS, write_table

log = logging.getLogger(__name__)


def run_inference(
    requests_path: str | Path,
    responses_path: str | Path,
    model: str,
    registry_path: str | Path,
    cache_dir: str | Path,
    settings: dict,
    log_path: str | Path,
    threads: int = 1,
) -> None:
    """Answer every request, reusing journaled answers, and write the responses table.

    Answers come from the model's journals when any job has already made the same call;
    only the rest reach the model. Calls that fail for good are written with their error.
    """
    spec = load_registry(registry_path).model(model)
    requests = pd.read_parquet(requests_path)
    if (requests["model"] != model).any():
        raise ValueError(f"{requests_path}: holds requests for another model than '{model}'")
    unique = requests.drop_duplicates("request_id")
    journal = Journal(Path(cache_dir) / model, job_name=_job_name(responses_path))
    finished = journal.finished()
    pending = unique[~unique["request_id"].isin(finished)].to_dict("records")
    log.info(
        "%s: %d requests, %d answered by earlier calls, %d to send",
        model,
        len(unique),
        len(unique) - len(pending),
        len(pending),
    )
    failures = 0
    if pending:
        client_settings = ClientSettings(
            # llama_cpp.server answers one request at a time: queued ones would only time out.
            concurrency=1 if spec.engine == "llamacpp" else settings["concurrency"],
            request_timeout_s=settings["request_timeout_s"],
            max_retries=settings["max_retries"],
        )
        with journal, serve(spec, log_path, settings["server_start_timeout_s"], threads) as end:
            failures = send_requests(pending, end, journal, client_settings, spec.cost_usd)
        finished = journal.finished()
    if failures:
        log.warning("%s: %d calls failed for good; they are kept with their error", model, failures)
    failed = {r["request_id"]: r for r in _latest_failures(journal, finished)}
    rows = []
    for request in requests.to_dict("records"):
        answer = finished.get(request["request_id"]) or failed[request["request_id"]]
        rows.append({**answer, "item_id": request["item_id"]})
    write_table(rows, RESPONSE_COLUMNS, responses_path)


def _job_name(responses_path: str | Path) -> str:
    """A journal name unique to the job (its output path, flattened)."""
    return str(Path(responses_path).with_suffix("")).strip("/").replace("/", "__")


def _latest_failures(journal: Journal, finished: dict[str, dict]) -> list[dict]:
    """This job's failed calls that no later attempt answered."""
    if not journal.path.exists():
        return []
    return [r for r in read_records(journal.path) if r["request_id"] not in finished]
