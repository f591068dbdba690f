"""Stage construction_judges_release: the release layout and the construction summary."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

import pandas as pd

from noveval.construction import judge_calls, judge_release
from noveval.core.files import read_json, write_json

log = logging.getLogger(__name__)


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


def run(job) -> None:
    """One job of rule construction_judges_release."""
    release(
        labelled_path=job.input.labelled,
        strip_responses=job.input.strip,
        generation_responses=job.input.generation,
        skipped_paths=list(job.input.skipped),
        seed=job.params.seed,
        venue=job.params.venue,
        release_dir=job.params.release_dir,
        summary_path=job.output.summary,
    )
