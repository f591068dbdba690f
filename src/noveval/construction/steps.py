"""The NovBench construction and its validation as file-to-file functions; each rule calls one."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from noveval.batches import SENTENCES, read_responses
from noveval.chat_requests import REQUEST_COLUMNS, build_request
from noveval.construction import authors, extraction, nlpeer, records, retrieval, validation
from noveval.files import write_bytes, write_table
from noveval.registry import load_registry

log = logging.getLogger(__name__)

# The prompt of each kind of sentence in the construction (the paper's best introduction prompt).
CONSTRUCTION_PROMPTS = {records.INTRODUCTION: "context", records.REVIEW: "review"}
PER_OCCURRENCE, PER_PROMPT = "per_occurrence", "per_prompt"  # construction.novbench.calls


def read_sources(
    nlpeer_root: str,
    reading: dict,
    punkt_model: str | None,
    papers_path: str,
    sentences_path: str,
    skipped_path: str,
) -> None:
    """NLPeer folder → papers, their sentences (with context windows) and the papers left out.
    ``reading``: ``review_fields``, ``introduction_nodes``, ``review_sentences`` and
    ``carry_over_reviews`` of ``construction.novbench``; ``punkt_model``: the downloaded
    punkt_tab ``english`` folder (None: the package's copy)."""
    if not Path(nlpeer_root).is_dir():
        raise FileNotFoundError(
            f"construction.novbench.nlpeer: {nlpeer_root} is not a folder (the venue's papers "
            "and reviews in the NLPeer layout, one folder per paper)"
        )
    settings = nlpeer.Extraction(
        review_fields=tuple(reading["review_fields"]),
        introduction_nodes=reading["introduction_nodes"],
        review_sentences=reading["review_sentences"],
        carry_over_reviews=reading["carry_over_reviews"],
        punkt_model=punkt_model,
    )
    papers, sentences, skipped = records.read_nlpeer(nlpeer_root, settings)
    log.info(
        "%s: %d papers read, %d left out, %d sentences",
        nlpeer_root,
        len(papers),
        len(skipped),
        len(sentences),
    )
    for row in skipped.itertuples():
        log.warning("paper %s left out: %s", row.paper_id, row.reason)
    write_table(papers, papers_path)
    write_table(sentences, sentences_path)
    write_table(skipped, skipped_path)


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
    log.info("%s: %d %s sentences", model, len(rows), kind)
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def normalisation_requests(
    papers_path: str,
    sentences_path: str,
    responses_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    upstream_root: str,
    requests_path: str,
    extracted_path: str,
    skipped_path: str,
) -> None:
    """The papers' novelty sentences (``extracted_path``) and one normalisation request per
    paper with both kinds, its review novelty sentences inserted as their list's repr (as the
    authors insert them); the papers with none of either are left out."""
    sentences = pd.read_parquet(sentences_path)
    answers = pd.concat(
        [read_responses(responses_path, cell) for cell in records.SENTENCE_CELLS.values()],
        ignore_index=True,
    )
    marked = records.novelty_sentences(sentences, answers)
    unanswered = int((~marked["answered"]).sum())
    if unanswered:
        log.warning("%d sentence calls failed; their sentences count as not novelty", unanswered)
    extracted, skipped = records.normalisation_inputs(pd.read_parquet(papers_path), marked)
    spec = load_registry(registry_path).model(model)
    template = authors.template(upstream_root, "normalisation")
    rows = [
        build_request(
            item_id=paper["paper_id"],
            spec=spec,
            messages=[
                {"role": "user", "content": template.render(reviews=list(paper["review_novelty"]))}
            ],
            decoding=decoding,
        )
        for paper in extracted.to_dict("records")
    ]
    log.info("%d papers to normalise, %d left out", len(rows), len(skipped))
    write_table(extracted, extracted_path)
    write_table(skipped, skipped_path)
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def retrieve(
    papers_path: str, corpus_path: str, encoder_reference: str, top_k: int, retrieved_path: str
) -> None:
    """The top-k related corpus papers of every paper, by abstract."""
    if not Path(corpus_path).is_file():
        raise FileNotFoundError(
            f"construction.novbench.retrieval.corpus: no file at {corpus_path} (a YAML list of "
            "{title, abstract})"
        )
    from noveval.judges.retrieval import load_corpus

    papers = pd.read_parquet(papers_path)
    related = retrieval.related_papers(papers, load_corpus(corpus_path), encoder_reference, top_k)
    write_table(related, retrieved_path)


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
    from noveval.batches import NORMALISATION

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


def labelled_sentences(prompt: str, labels: dict) -> pd.DataFrame:
    """The labelled sentences a validated prompt is scored on (``labels``: the config's
    ``validation`` section)."""
    if prompt == "review":
        return validation.review_labels(
            labels["review_labels"]["novelty"], labels["review_labels"]["other"], labels["limit"]
        )
    return validation.introduction_labels(labels["introduction_labels"], labels["limit"])


def validation_requests(
    prompt: str,
    model: str,
    registry_path: str,
    decoding: dict,
    upstream_root: str,
    labels: dict,
    requests_path: str,
) -> None:
    """The first-round requests of one validated prompt on its labelled sentences."""
    spec = load_registry(registry_path).model(model)
    sentences = labelled_sentences(prompt, labels)
    rows = extraction.prompt_requests(sentences, prompt, spec, decoding, upstream_root)
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def step_requests(
    responses_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    upstream_root: str,
    requests_path: str,
) -> None:
    """The second calls of the step prompt, from the answers of its first."""
    spec = load_registry(registry_path).model(model)
    first = read_responses(responses_path, "step")
    rows = extraction.step_decision_requests(first, spec, decoding, upstream_root)
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def validation_scores(
    responses: dict[str, dict[str, str]],
    prompts: list[str],
    labels: dict,
    max_tokens: int | None,
    scores_path: str,
) -> None:
    """Accuracy and macro-F1 per model and prompt (``responses``: model → batch → responses
    table), with the token cap the calls were sent with."""
    rows = []
    for model, batches in responses.items():
        for prompt in prompts:
            sentences = labelled_sentences(prompt, labels)
            if prompt == "step":
                answers = _cell_or_none(batches["step"], "step_decision")
            else:
                answers = _cell_or_none(batches[SENTENCES], prompt)
            decided = extraction.decisions(sentences["item_id"], answers)
            step = "review" if prompt == "review" else "introduction"
            scored = validation.scores(sentences, decided)
            rows.append(
                {"step": step, "model": model, "prompt": prompt, **scored, "max_tokens": max_tokens}
            )
    table = pd.DataFrame(rows, columns=[*validation.SCORE_COLUMNS, "max_tokens"])
    write_bytes(table.to_csv(index=False).encode("utf-8"), scores_path)


def _cell_or_none(path: str, cell: str) -> pd.DataFrame:
    """A cell's responses, or none when the batch held no request of it."""
    responses = pd.read_parquet(path)
    if cell not in set(responses["cell"]):
        return pd.DataFrame(columns=["item_id", "text"])
    return responses[responses["cell"] == cell]
