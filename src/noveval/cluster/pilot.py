"""The pilot: a few papers and judge instances per model of the grid, through the real path.

Per model and track, one inference job (rule pilot_infer) answers the first ``pilot.papers``
papers of each of the model's unperturbed NovBench cells, or the first ``pilot.instances``
instances of each of its reference judge cells on released ideas (requests that need no other
model's answers first): its server starts once and its calls go through the request layer and a
journal of their own (under ``{results}/pilot``), so pilot answers never mix with the grid's.
Rule pilot writes what they took to the measured file (``noveval.inference.measured``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd

from noveval.core.files import write_table
from noveval.core.registry import load_registry
from noveval.inference.job import run_inference
from noveval.inference.measured import measure, write_measured
from noveval.judges.grid.cells import GENERATED, IDEATION, STANDARD
from noveval.judges.grid.inputs import JudgesGrid
from noveval.judges.layout import JudgesPaths, cell_keys
from noveval.novbench.grid import NovBenchGrid
from noveval.novbench.layout import NovBenchLayout

PILOT_CHANGE = "reference"


def pilot_sources(
    novbench: NovBenchGrid, judges: JudgesGrid, results: str
) -> dict[tuple[str, str], list[str]]:
    """(track, model) -> the grid's requests tables the pilot samples, in grid order."""
    sources: dict[tuple[str, str], list[str]] = {}
    layout = NovBenchLayout(results)
    for cell in novbench.cells:
        if cell.perturbation == "none":
            path = layout.requests(cell.dataset, cell.model, cell.name)
            sources.setdefault(("novbench", cell.model), []).append(path)
    for cell in judges.cells:
        pilot = cell.change == PILOT_CHANGE and cell.ideas == STANDARD
        if pilot and not cell.setup.startswith((GENERATED, IDEATION)):
            sources.setdefault(("judges", cell.model), []).append(
                JudgesPaths(results).requests(*cell_keys(cell))
            )
    return sources


def pilot_requests(requests_paths: list[str], items: int, output_path: str) -> None:
    """The calls of the first ``items`` items (papers, pairs or ideas) of each requests table,
    as one table."""
    frames = []
    for path in requests_paths:
        frame = pd.read_parquet(path)
        first = list(dict.fromkeys(frame["item_id"]))[:items]
        frames.append(frame[frame["item_id"].isin(first)])
    write_table(pd.concat(frames, ignore_index=True), output_path)


def run_pilot(sent_path: str, **inference) -> None:
    """One pilot job: ``noveval.inference.job.run_inference`` on the pilot's requests, and what
    this run sent (request ids, server start, seconds in flight) as JSON at ``sent_path``."""
    sent = run_inference(**inference)
    record = dataclasses.asdict(sent) if sent else {}
    Path(sent_path).write_text(json.dumps(record) + "\n", encoding="utf-8")


def measure_pilot(
    jobs: list[dict], registry_path: str, chars_per_token: float, output_path: str
) -> None:
    """Rule pilot: the measured file from the pilot jobs (each: track, model, responses, sent)."""
    registry = load_registry(registry_path)
    rows = [
        measure(
            pd.read_parquet(job["responses"]),
            json.loads(Path(job["sent"]).read_text(encoding="utf-8")),
            registry.model(job["model"]),
            job["track"],
            chars_per_token,
        )
        for job in jobs
    ]
    write_measured(rows, output_path)
