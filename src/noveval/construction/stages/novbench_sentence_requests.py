"""Stage construction_novbench_sentence_requests: one labelling call per sentence of a kind."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.construction import extraction, records
from noveval.core.registry import load_registry
from noveval.inference.requests import write_requests

log = logging.getLogger(__name__)


# The prompt of each kind of sentence in the construction (the paper's best introduction prompt).
CONSTRUCTION_PROMPTS = {records.INTRODUCTION: "context", records.REVIEW: "review"}


PER_OCCURRENCE, PER_PROMPT = "per_occurrence", "per_prompt"  # construction.novbench.calls


def sentence_requests(
    sentences_path: str,
    kind: str,
    model: str,
    registry_path: str,
    decoding: dict,
    upstream_root: str,
    calls: str,
    requests_path: str,
) -> None:
    """Requests labelling each sentence of ``kind`` (introduction or review): one call per
    occurrence of a sentence (``calls``: ``per_occurrence``, as the authors asked) or one per
    distinct prompt (``per_prompt``)."""
    spec = load_registry(registry_path).model(model)
    sentences = pd.read_parquet(sentences_path)
    chosen = sentences[sentences["kind"] == kind]
    rows = extraction.prompt_requests(
        chosen,
        CONSTRUCTION_PROMPTS[kind],
        spec,
        decoding,
        upstream_root,
        per_occurrence=calls == PER_OCCURRENCE,
    )
    write_requests(rows, requests_path, log, model, f"{kind} sentences")


def run(job) -> None:
    """One job of rule construction_novbench_sentence_requests."""
    sentence_requests(
        job.input.sentences,
        job.wildcards.kind,
        job.wildcards.model,
        job.params.registry,
        job.params.decoding,
        job.params.upstream_root,
        job.params.calls,
        job.output[0],
    )
