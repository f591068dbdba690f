"""Durable response journals: every finished call is appended and fsynced as it arrives.

Each inference job appends to its own JSON-lines file in the model's cache folder, so no two
processes ever write one file. Lookups read every journal of the model, so a rerun, a resumed
job or another configuration that renders the same request never calls the model again.

A job that sends its calls through a provider's batch API also journals each batch it submits
(and, once its results are journaled, that it was collected) in ``batches/<job>.jsonl`` of the
model's cache folder, so a killed job polls the same batch again instead of submitting another.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


class Journal:
    """Append-only JSON-lines log of responses for one job, readable across jobs."""

    def __init__(self, cache_dir: str | Path, job_name: str):
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.cache_dir / f"{job_name}.jsonl"
        self.batches_path = self.cache_dir / "batches" / f"{job_name}.jsonl"
        self._handle = None

    def finished(self) -> dict[str, dict]:
        """Responses without error from every journal of this model, by request id."""
        done: dict[str, dict] = {}
        for journal_file in sorted(self.cache_dir.glob("*.jsonl")):
            for record in read_records(journal_file):
                if not record.get("error"):
                    done.setdefault(record["request_id"], record)
        return done

    def append(self, record: dict) -> None:
        """Write one response and force it to disk before returning."""
        if self._handle is None:
            self._handle = _open_for_append(self.path)
        _write_durably(self._handle, record)

    def append_batch_event(self, event: dict) -> None:
        """Write one event of a provider batch of this job (submitted, collected) to disk."""
        self.batches_path.parent.mkdir(exist_ok=True)
        with _open_for_append(self.batches_path) as handle:
            _write_durably(handle, event)

    def open_batches(self) -> list[dict]:
        """This job's submitted provider batches whose results are not journaled yet, oldest
        first."""
        if not self.batches_path.exists():
            return []
        events = read_records(self.batches_path)
        collected = {event["batch_id"] for event in events if event["event"] == "collected"}
        return [
            event
            for event in events
            if event["event"] == "submitted" and event["batch_id"] not in collected
        ]

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_records(path: Path) -> list[dict]:
    """Records of one journal; a line cut short by a killed writer is skipped with a warning."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                log.warning("%s:%d: incomplete journal line skipped", path, number)
    return records


def _open_for_append(path: Path):
    handle = open(path, "a", encoding="utf-8")
    if handle.tell() and not _ends_with_newline(path):
        handle.write("\n")  # seal a line cut short by a killed writer
    return handle


def _write_durably(handle, record: dict) -> None:
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
