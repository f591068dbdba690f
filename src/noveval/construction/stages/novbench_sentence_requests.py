"""Stage construction_novbench_sentence_requests: one labelling call per sentence of a kind."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.construction import extraction, records
from noveval.inference.requests import RequestsTarget, write_requests

log = logging.getLogger(__name__)


# The prompt of each kind of sentence in the construction (the paper's best introduction prompt).
CONSTRUCTION_PROMPTS = {records.INTRODUCTION: "context", records.REVIEW: "review"}


PER_OCCURRENCE, PER_PROMPT = "per_occurrence", "per_prompt"  # construction.novbench.calls


def sentence_requests(
    target: RequestsTarget, sentences_path: str, kind: str, upstream_root: str, calls: str
) -> None:
    """Requests labelling each sentence of ``kind`` (introduction or review): one call per
    occurrence of a sentence (``calls``: ``per_occurrence``, as the authors asked) or one per
    distinct prompt (``per_prompt``)."""
    spec = target.spec()
    sentences = pd.read_parquet(sentences_path)
    chosen = sentences[sentences["kind"] == kind]
    rows = extraction.prompt_requests(
        chosen,
        CONSTRUCTION_PROMPTS[kind],
        spec,
        target.decoding,
        upstream_root,
        per_occurrence=calls == PER_OCCURRENCE,
    )
    write_requests(rows, target.requests_path, log, target.model, f"{kind} sentences")


def run(job) -> None:
    """One job of rule construction_novbench_sentence_requests."""
    sentence_requests(
        RequestsTarget.of_job(job),
        job.input.sentences,
        job.wildcards.kind,
        job.params.upstream_root,
        job.params.calls,
    )
