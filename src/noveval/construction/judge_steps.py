"""The judge study's construction steps, file in and file out (one call per Snakemake rule)."""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from pathlib import Path

import pandas as pd

from noveval.construction import judge_calls, judge_release, openreview_notes, selection
from noveval.files import write_table
from noveval.judges.authors import blocked_titles
from noveval.registry import load_registry

log = logging.getLogger(__name__)


def write_json(data, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def read_json(path: str | Path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def venue_notes(recorded: str | None, venue_ids: list[str], baseurl: str, notes_path: str) -> None:
    """A venue's notes: the recorded file (checked to be a JSON list of notes), or fetched from
    OpenReview (credentials: OPENREVIEW_USERNAME / OPENREVIEW_PASSWORD)."""
    if recorded:
        notes = openreview_notes.read_notes(recorded)
    else:
        notes = openreview_notes.fetch_notes(
            venue_ids,
            baseurl,
            os.environ.get("OPENREVIEW_USERNAME"),
            os.environ.get("OPENREVIEW_PASSWORD"),
        )
    openreview_notes.write_notes(notes, notes_path)
    log.info("%s: %d notes", notes_path, len(notes))


def candidates(
    notes_path: str,
    upstream_root: str | None,
    rules: dict,
    candidates_path: str,
    skipped_path: str,
) -> None:
    """The top and bottom candidates of every area; the notes left out, with their reasons."""
    skipped = openreview_notes.Skipped()
    records = openreview_notes.submissions(openreview_notes.read_notes(notes_path), skipped)
    blocked = blocked_titles(upstream_root) if upstream_root else set()
    chosen = selection.candidates(records, selection.Rules.of(rules), blocked, skipped)
    log.info(
        "%s: %d submissions, %d candidates, %d left out",
        notes_path,
        len(records),
        len(chosen),
        len(skipped.records),
    )
    write_json(chosen, candidates_path)
    write_json(skipped.records, skipped_path)


STAGE_REQUESTS = {
    "signals": judge_calls.signal_requests,
    "strip": judge_calls.strip_requests,
    "generation": judge_calls.generation_requests,
}


def stage_requests(
    stage: str,
    source_path: str,
    upstream_root: str,
    model: str,
    registry_path: str,
    decoding: dict,
    requests_path: str,
) -> None:
    """One construction step's requests: the candidates' reviews (signals), the labelled papers'
    abstracts (strip) or one idea per D₊ paper's area (generation)."""
    papers = read_json(source_path)
    if stage == "generation":
        papers = [paper for paper in papers if paper["pool"] == selection.POSITIVE]
    spec = load_registry(registry_path).model(model)
    rows = STAGE_REQUESTS[stage](papers, upstream_root, spec, decoding)
    log.info("%s %s: %d requests", model, stage, len(rows))
    write_table(rows, requests_path)


def labels(
    candidates_path: str,
    responses_path: str,
    rules: dict,
    labelled_path: str,
    skipped_path: str,
) -> None:
    """D₊ and D₋ by the labelling rules; the candidates that fail a rule, with the rule."""
    found, garbled = judge_calls.with_signals(
        read_json(candidates_path), pd.read_parquet(responses_path)
    )
    skipped = openreview_notes.Skipped()
    kept = selection.labelled(found, selection.Rules.of(rules), skipped)
    log.info(
        "%d labelled, %d left out, %d unusable signal answers",
        len(kept),
        len(skipped.records),
        garbled,
    )
    write_json(kept, labelled_path)
    write_json({"unusable_signal_answers": garbled, "skipped": skipped.records}, skipped_path)


def release(
    labelled_path: str,
    strip_responses: str,
    generation_responses: str,
    skipped_paths: list[str],
    seed: int,
    venue: dict,
    release_dir: str,
    summary_path: str,
) -> None:
    """The release layout (``human-only/`` and ``human-plus-generated/``, pairwise and pointwise)
    and the construction summary: instances per file, every note left out with its reason."""
    papers, failed_strips = judge_calls.with_stripped_abstracts(
        read_json(labelled_path), pd.read_parquet(strip_responses)
    )
    generated, failed_generations = judge_calls.generated_ideas(
        pd.read_parquet(generation_responses)
    )
    summary: dict = {"venue": venue, "files": {}, "unpaired_areas": {}}
    for setup, (positives, negatives) in judge_release.setup_pools(papers, generated).items():
        pairs, unpaired = judge_release.pairwise(positives, negatives, seed)
        ideas = judge_release.pointwise(positives, negatives, seed)
        for name, instances in (("pairwise", pairs), ("pointwise", ideas)):
            judge_release.write_instances(instances, Path(release_dir) / setup / f"{name}.yaml")
            summary["files"][f"{setup}/{name}.yaml"] = len(instances)
        summary["unpaired_areas"][setup] = unpaired
    skipped = []
    unusable = 0
    for path in skipped_paths:
        part = read_json(path)
        if isinstance(part, dict):
            unusable += part["unusable_signal_answers"]
            part = part["skipped"]
        skipped.extend(part)
    summary.update(
        {
            "labelled": dict(Counter(p["pool"] for p in papers)),
            "unusable_signal_answers": unusable,
            "abstracts_kept_as_written": failed_strips,
            "failed_generations": failed_generations,
            "skipped_by_reason": dict(Counter(r["reason"] for r in skipped)),
            "skipped": skipped,
        }
    )
    write_json(summary, summary_path)
    log.info("%s: %s", release_dir, summary["files"])
