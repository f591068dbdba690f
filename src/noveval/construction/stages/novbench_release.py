"""Stage construction_novbench_release: the built release file and the construction summary."""

from __future__ import annotations

import json
import logging

import pandas as pd

from noveval.construction import records
from noveval.core.files import write_bytes
from noveval.inference.batches import read_responses

log = logging.getLogger(__name__)


def assemble(
    extracted_path: str,
    responses_path: str,
    retrieved_path: str,
    papers_path: str,
    skipped_paths: list[str],
    release_path: str,
    summary_path: str,
) -> None:
    """The release file (the authors' record format) and the construction summary."""
    from noveval.inference.batches import NORMALISATION

    extracted = pd.read_parquet(extracted_path)
    normalised = (
        read_responses(responses_path, NORMALISATION)
        if len(extracted)
        else pd.DataFrame(columns=["item_id", "text"])
    )
    release, unnormalised = records.release_records(
        extracted, normalised, pd.read_parquet(retrieved_path)
    )
    skipped = pd.concat(
        [*(pd.read_parquet(path) for path in skipped_paths), unnormalised], ignore_index=True
    )
    total = len(pd.read_parquet(papers_path)) + int((skipped["stage"] == "read").sum())
    summary = records.summary_markdown(total, len(release), skipped)
    if not release:
        raise ValueError(f"no NovBench record built, every paper was left out:\n{summary}")
    text = json.dumps(release, ensure_ascii=False, indent=1)
    write_bytes(text.encode("utf-8"), release_path)
    write_bytes(summary.encode("utf-8"), summary_path)
    log.info("%s: %d records of %d papers", release_path, len(release), total)


def run(job) -> None:
    """One job of rule construction_novbench_release."""
    assemble(
        job.input.extracted,
        job.input.responses,
        job.input.retrieved,
        job.input.papers,
        list(job.input.skipped),
        job.output.release,
        job.output.summary,
    )
