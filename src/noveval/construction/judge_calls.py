"""The judge study's construction calls, with the authors' templates read as pinned data.

Three steps reach a model, each a requests table answered by the request layer and its journal:
the novelty signals of every candidate's reviews (``extract_novelty_signals.jinja2``), the
abstracts stripped of results and artefacts (``remove_eval_data.jinja2``) and, for the
Human+Generated setup, one generated idea per D₊ idea from its primary area alone
(``idea_generation.jinja2``). Answers are parsed with the authors' semantics; an answer that
cannot be parsed is counted, never a crash: no signals, the abstract as written, no generated
idea.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import jinja2
import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.core.upstream import UpstreamSource
from noveval.inference.requests import build_request, requests_table

log = logging.getLogger(__name__)

TEMPLATES = "src/novelty_eval/benchmark_data/templates/"
SIGNALS = TEMPLATES + "extract_novelty_signals.jinja2"
STRIP = TEMPLATES + "remove_eval_data.jinja2"
GENERATE = TEMPLATES + "idea_generation.jinja2"
BLOCKLIST = "src/novelty_eval/benchmark_data/paper_blocklist.yaml"
FILES = [SIGNALS, STRIP, GENERATE, BLOCKLIST]
# Answer keys of the signal extraction → our record's keys.
SIGNAL_KEYS = {
    "positive_novelty_snippets": "positive_signals",
    "negative_novelty_snippets": "negative_signals",
    "similar_papers_mentioned": "similar_papers_mentioned",
}
_ABSTRACT_LABEL = re.compile(r"(?:\*\*)?abstract(?:\*\*)?\s*:\s*(.+)", re.DOTALL | re.IGNORECASE)


def upstream_root(first_file: str) -> str:
    """The folder, laid out like the authors' repository, whose ``FILES[0]`` is ``first_file``."""
    return first_file.removesuffix(FILES[0]).rstrip("/")


def template(root: str | Path, path: str) -> jinja2.Template:
    """One of the authors' templates, digest-checked (rendered as their Jinja2 environment does)."""
    return jinja2.Template(UpstreamSource("judges", Path(root)).text(path))


def user_request(item_id: str, spec: ModelSpec, prompt: str, decoding: dict) -> dict:
    return build_request(
        item_id=item_id,
        spec=spec,
        messages=[{"role": "user", "content": prompt}],
        decoding=decoding,
    )


def signal_requests(
    candidates: list[dict], root: str | Path, spec: ModelSpec, decoding: dict
) -> pd.DataFrame:
    """One extraction request per review with both a Strengths and a Weaknesses section (a review
    missing either has no signals, as for the authors); item id = the review's note id."""
    prompt = template(root, SIGNALS)
    rows = [
        user_request(
            review["id"],
            spec,
            prompt.render(
                strengths_review=review["strengths"], weaknesses_review=review["weaknesses"]
            ),
            decoding,
        )
        for record in candidates
        for review in record["reviews"]
        if review["strengths"] and review["weaknesses"]
    ]
    return requests_table(rows).drop_duplicates("item_id")


def parse_json_answer(text: str | None) -> dict | None:
    """The JSON object of an answer, fenced (```json) or bare; None when there is none."""
    candidate = (text or "").strip()
    if candidate.startswith("```"):
        lines = candidate.splitlines()[1:]
        if lines and lines[-1].strip() == "```":
            lines = lines[:-1]
        candidate = "\n".join(lines).strip()
        if candidate.lower().startswith("json"):
            candidate = candidate[4:].strip()
    try:
        parsed = json.loads(candidate)
    except json.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


def answers(responses: pd.DataFrame) -> dict[str, str | None]:
    """Answer text per item id (None for a failed call)."""
    return {
        row["item_id"]: None if pd.notna(row["error"]) else row["text"]
        for row in responses.to_dict("records")
    }


def with_signals(candidates: list[dict], responses: pd.DataFrame) -> tuple[list[dict], int]:
    """The candidates with each review's signals, and the count of unusable answers (a failed
    call or no JSON object: that review has no signals)."""
    texts, garbled = answers(responses), 0
    result = []
    for record in candidates:
        reviews = []
        for review in record["reviews"]:
            signals = dict.fromkeys(SIGNAL_KEYS.values(), [])
            if review["id"] in texts:
                parsed = parse_json_answer(texts[review["id"]])
                if parsed is None:
                    garbled += 1
                else:
                    signals = {
                        ours: [str(s) for s in parsed.get(theirs) or [] if str(s).strip()]
                        for theirs, ours in SIGNAL_KEYS.items()
                    }
            reviews.append({**review, **signals})
        result.append({**record, "reviews": reviews})
    return result, garbled


def strip_requests(
    papers: list[dict], root: str | Path, spec: ModelSpec, decoding: dict
) -> pd.DataFrame:
    """One rewrite request per labelled paper (item id = its note id)."""
    prompt = template(root, STRIP)
    rows = [
        user_request(paper["id"], spec, prompt.render(abstract=paper["abstract"]), decoding)
        for paper in papers
    ]
    return requests_table(rows)


def stripped_abstract(text: str | None) -> str | None:
    """The rewritten abstract of an answer (code fences removed), or None when it is empty."""
    cleaned = (text or "").strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    return cleaned.strip() or None


def with_stripped_abstracts(papers: list[dict], responses: pd.DataFrame) -> tuple[list[dict], int]:
    """Papers whose ``idea`` is the stripped abstract; a failed or empty rewrite keeps the
    abstract as written (the authors' fallback) and is counted."""
    texts, failed = answers(responses), 0
    result = []
    for paper in papers:
        idea = stripped_abstract(texts.get(paper["id"]))
        failed += idea is None
        result.append({**paper, "idea": idea or paper["abstract"]})
    return result, failed


def generation_requests(
    positives: list[dict], root: str | Path, spec: ModelSpec, decoding: dict
) -> pd.DataFrame:
    """One generated idea per D₊ paper of an area, from the area alone: the k-th request of an
    area has seed + k, so each is a call of its own (item id = ``{area}|{k}``)."""
    prompt = template(root, GENERATE)
    counts: dict[str, int] = {}
    for paper in positives:
        counts[paper["area"]] = counts.get(paper["area"], 0) + 1
    rows = [
        user_request(
            f"{area}|{k}",
            spec,
            prompt.render(area=area),
            {**decoding, "seed": int(decoding.get("seed") or 0) + k},
        )
        for area, count in sorted(counts.items())
        for k in range(count)
    ]
    return requests_table(rows)


def generated_abstract(text: str | None) -> str | None:
    """The abstract of a generation answer: the text after its ``abstract:`` label (quotes and
    bold marks removed), else the whole answer; None when empty."""
    raw = (text or "").strip()
    if match := _ABSTRACT_LABEL.search(raw):
        raw = match.group(1).strip().strip("*").strip()
        if len(raw) > 1 and raw[0] in '"“' and raw[-1] in '"”':
            raw = raw[1:-1].strip()
    return raw or None


def generated_ideas(responses: pd.DataFrame) -> tuple[dict[str, list[dict]], int]:
    """Generated ideas per area, titled ``LLM-{area}-{k}`` as in the release; a failed or empty
    generation is counted and left out."""
    ideas: dict[str, list[dict]] = {}
    failed = 0
    for item_id, text in sorted(answers(responses).items()):
        area, k = item_id.rsplit("|", 1)
        abstract = generated_abstract(text)
        if abstract is None:
            failed += 1
            continue
        ideas.setdefault(area, []).append(
            {"id": item_id, "title": f"LLM-{area}-{k}", "idea": abstract, "area": area}
        )
    return ideas, failed
