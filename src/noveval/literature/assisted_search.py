"""The judge study's LLM-assisted search for the retrieval change (their
``retrieval/retrieve_candidates.py`` and ``retrieval_common.py``).

Per idea:
1. **contributions**: the LLM lists up to ``max_contributions`` contribution dimensions with
   statements (their ``contribution_system`` / ``contribution_user`` templates);
2. **queries**: from the idea and a summary of those contributions the LLM writes up to
   ``n_queries`` search queries (``query_gen_system`` / ``query_gen_user``);
3. **search**: each query is searched (``top_k`` papers each);
4. **selection**: candidates published on or after the cutoff dropped (their date rule below),
   the idea's own paper (same title) and same or repeated abstracts dropped, ids deduplicated,
   then up to ``top_k`` taken with an equal quota per query, the rest filled round-robin;
5. **prompt**: the selected papers formatted as their ``format_papers_for_prompt`` does.

Their one LLM call is the system template, a blank line and the user template as one user
message; the JSON answer is read with their ``extract_json_choice`` (our
:func:`noveval.judges.authors.extract_json`). An answer that cannot be read leaves the idea
without queries (counted), never a crash.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import date

import jinja2

from noveval.core.answers import extract_json
from noveval.core.registry import ModelSpec
from noveval.core.templates import render
from noveval.core.upstream import UpstreamSource
from noveval.inference.requests import build_request

TEMPLATES = "src/novelty_eval/retrieval/templates/"
CONTRIBUTIONS = ("contribution_system.jinja2", "contribution_user.jinja2")
QUERIES = ("query_gen_system.jinja2", "query_gen_user.jinja2")
AUTHORS_FILES = tuple(TEMPLATES + name for name in (*CONTRIBUTIONS, *QUERIES))
BUILTIN = {
    CONTRIBUTIONS: "judges/search_contributions.j2",
    QUERIES: "judges/search_queries.j2",
}
# JSON schemas of the two answers, for engines that constrain output (our prompts only).
CONTRIBUTIONS_SCHEMA = {
    "type": "object",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}
QUERIES_SCHEMA = {
    "type": "object",
    "properties": {"queries": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "required": ["queries"],
    "additionalProperties": False,
}
# The fields their Semantic Scholar search asks for (semantic_scholar.py, search_papers).
SEARCH_FIELDS = ["title", "authors", "abstract", "paperId", "year"]


class AssistedSearchPrompts:
    """The prompts of the two LLM steps: the authors' four templates read from a pinned copy of
    their repository (``source``), or without one our own (``judges/search_*.j2``), each step
    one user message."""

    def __init__(self, source: UpstreamSource | None = None):
        self.source = source
        self.environment = (
            jinja2.Environment(
                loader=jinja2.FunctionLoader(lambda name: source.text(TEMPLATES + name)),
                keep_trailing_newline=True,
            )
            if source
            else None
        )

    def _message(self, templates: tuple[str, str], system: dict, user: dict) -> list[dict]:
        if self.environment is None:
            builtin = BUILTIN[templates]
            return [{"role": "user", "content": render(builtin, **system, **user)}]
        system_text = self.environment.get_template(templates[0]).render(**system)
        user_text = self.environment.get_template(templates[1]).render(**user)
        return [{"role": "user", "content": f"{system_text}\n\n{user_text}"}]

    def contributions(self, idea: str, max_contributions: int) -> list[dict]:
        """The messages of step 1."""
        return self._message(
            CONTRIBUTIONS, {}, {"idea_text": idea, "n_contributions": max_contributions}
        )

    def queries(self, idea: str, summary: str, n_queries: int) -> list[dict]:
        """The messages of step 2."""
        return self._message(
            QUERIES,
            {"n_queries": n_queries},
            {"idea_text": idea, "contributions_summary": summary},
        )


@dataclass(frozen=True)
class SearchCalls:
    """How a step's calls are made: its prompts, the model, the decoding and the answer's format
    (``response_format``: a constraint for engines that take one, else None)."""

    prompts: AssistedSearchPrompts
    spec: ModelSpec
    decoding: dict
    response_format: dict | None = None

    def request(self, key: str, messages: list[dict]) -> dict:
        """The request row of idea ``key``'s call with ``messages``."""
        return build_request(key, self.spec, messages, self.decoding, self.response_format)


def contribution_requests(
    ideas: dict[str, str], calls: SearchCalls, max_contributions: int
) -> list[dict]:
    """One step-1 request per idea (``item_id``: the idea's key)."""
    return [
        calls.request(key, calls.prompts.contributions(idea, max_contributions))
        for key, idea in ideas.items()
    ]


def contributions_summary(contributions: dict) -> str:
    """Their summary of step 1's answer: each dimension with a non-empty list of statements,
    then its statements as indented bullets; empty when there is none."""
    lines = []
    for dimension, statements in contributions.items():
        if isinstance(statements, list) and statements:
            lines.append(f"{dimension}:")
            lines.extend(f"  - {statement}" for statement in statements)
    return "\n".join(lines)


def read_contributions(text: str | None) -> dict:
    """Step 1's JSON object, or an empty dict when the answer holds none."""
    parsed = extract_json(text)
    return parsed if isinstance(parsed, dict) else {}


def query_requests(
    ideas: dict[str, str], answers: dict[str, str | None], calls: SearchCalls, n_queries: int
) -> list[dict]:
    """One step-2 request per idea whose step-1 answer gave a contribution summary."""
    requests = []
    for key, idea in ideas.items():
        summary = contributions_summary(read_contributions(answers.get(key)))
        if summary:
            requests.append(calls.request(key, calls.prompts.queries(idea, summary, n_queries)))
    return requests


def read_queries(text: str | None) -> list[str]:
    """The ``queries`` list of step 2's answer (strings only), or [] when it has none."""
    parsed = extract_json(text)
    queries = parsed.get("queries") if isinstance(parsed, dict) else None
    return [q for q in queries if isinstance(q, str) and q.strip()] if queries else []


def before_cutoff(candidates: list[dict], cutoff: str) -> list[dict]:
    """Their date rule (``_filter_by_date``): kept when ``publication_date`` (YYYY-MM-DD) is
    before the cutoff day; without a readable one, when ``year`` is before the cutoff's year (a
    paper of the cutoff's year is dropped: its day is unknown); dropped with neither."""
    limit = date.fromisoformat(cutoff)
    kept = []
    for candidate in candidates:
        try:
            published = date.fromisoformat(candidate.get("publication_date") or "")
        except ValueError:
            published = None
        if published is not None:
            if published < limit:
                kept.append(candidate)
            continue
        try:
            if candidate.get("year") and int(candidate["year"]) < limit.year:
                kept.append(candidate)
        except (TypeError, ValueError):
            pass
    return kept


def _distinct(candidates: list[dict], idea: str, title: str | None) -> list[dict]:
    """Their ``_deduplicate_candidates`` without a relevance threshold: not the idea's own
    paper (title equal after strip and lower case), not the idea's text, no abstract twice."""
    own_title = title.strip().lower() if title else None
    own_text = idea.strip().lower()
    seen, kept = set(), []
    for candidate in candidates:
        if own_title and (candidate.get("title") or "").strip().lower() == own_title:
            continue
        text = (candidate.get("abstract") or candidate.get("text") or "").strip().lower()
        if text and (text == own_text or text in seen):
            continue
        if text:
            seen.add(text)
        kept.append(candidate)
    return kept


def _per_query(candidates: list[dict], top_k: int) -> list[dict]:
    """Their ``_select_candidates_per_query``: an equal quota per query, then round-robin."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for candidate in candidates:
        groups[candidate.get("source_query", "")].append(candidate)
    quota = math.floor(top_k / len(groups)) if groups else top_k
    selected = [c for papers in groups.values() for c in papers[:quota]]
    surplus = [papers[quota:] for papers in groups.values()]
    while len(selected) < top_k and any(surplus):
        for papers in surplus:
            if papers and len(selected) < top_k:
                selected.append(papers.pop(0))
    return selected[:top_k]


def select_candidates(
    candidates: list[dict], top_k: int, idea: str, title: str | None, cutoff: str | None
) -> list[dict]:
    """Step 4 on the candidates of every query, in the order the searches returned them."""
    if cutoff:
        candidates = before_cutoff(candidates, cutoff)
    unique, seen = [], set()
    for candidate in _distinct(candidates, idea, title):
        paper_id = candidate.get("corpus_id") or candidate.get("paperId")
        if paper_id and paper_id not in seen:
            seen.add(paper_id)
            unique.append(candidate)
    return _per_query(unique, top_k)


def search_candidates(s2, queries: list[str], top_k: int) -> list[dict]:
    """Every query's papers as their Semantic Scholar path shapes them: ``text`` (the
    abstract), ``corpus_id`` (the paperId), ``url`` and ``source_query``."""
    candidates = []
    for query in queries:
        for paper in s2.search(query, top_k, SEARCH_FIELDS):
            candidates.append(
                {
                    **paper,
                    "text": paper.get("abstract") or "",
                    "corpus_id": paper.get("paperId"),
                    "url": f"https://www.semanticscholar.org/paper/{paper.get('paperId', '')}",
                    "source_query": query,
                }
            )
    return candidates


def format_papers_for_prompt(papers: list[dict]) -> str:
    """Their related-work block: per paper a metadata section (title, the query that found it,
    the relevance summary) and its abstract, numbered from 1, separated by blank lines."""
    blocks = []
    for index, paper in enumerate(papers, 1):
        why = (paper.get("relevance_judgement") or {}).get("relevance_summary", "")
        abstract = paper.get("abstract") or paper.get("text", "No abstract available")
        blocks.append(
            f"[metadata-{index}]\n"
            f"title: {paper.get('title', 'Unknown Title')}\n"
            f"retrieval_query: {paper.get('source_query', '')}\n"
            f"why_relevant: {why}\n"
            f"[abstract-{index}]\n{abstract}\n"
        )
    return "\n".join(blocks)
