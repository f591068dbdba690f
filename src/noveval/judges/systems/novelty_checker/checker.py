"""Scideator's Idea Novelty Checker as the judge study ran it (their ``baselines/scideator``,
vendored from the checker's repository, upstream source ``novelty_checker``).

Per idea:
1. the model writes keywords and paper titles (``prompt_PaperRetrieval_Keywords``) and, beside
   it, the idea's key facets (``prompt_RankGPT_IdeaFacets``; the whole answer is kept);
2. Semantic Scholar is searched: each keyword and title (100 papers each), and the idea itself
   in the snippet search (100 snippets, whose papers' details are fetched in batches of 100);
   every search without the idea's own paper and, through the API's filter, nothing after the
   cutoff. Snippet papers come first, keyword papers not found by the snippets after;
3. the papers and the idea are embedded (title, separator, abstract) and the 100 papers most
   cosine-similar to the idea kept; those without a title or an abstract are dropped;
4. RankGPT reranks them in windows of 20 passages moved back to front by 10 (one call per
   window, with the facets in the "priority" variant); fewer than 20 papers: no window, the
   embedding order stays (the sizes are settings: ``papers_embedded``, ``rerank_window``,
   ``rerank_step``, theirs by default);
5. the model reads the idea and the first ten papers (``prompt_NoveltyChecker_…``) and answers
   "Class: … Review: …"; the class gives the decision (their runner's reading: "novel" 1,
   "not novel" 0, another class with "novel" in it 0 when it holds "not", else 1).

In paper mode (``judges.prompts: authors``) the prompts are rendered from the upstream
files read with ``ast``, never executed; in the builtin mode they are the project's own
(``prompts/judges/novelty_checker.yaml``, with in-context examples of its own), asking for the same
answer shapes, with RankGPT's facets always given (like the "priority" variant). Their
windows are sent at once and each answer reorders the list as it arrives; we apply them back
to front, the order they were built in. A call that fails for good leaves its step empty (no
keywords, no facets, a window unchanged, no decision).

Every call goes through the request layer and the model's journal, one step of all ideas at a
time; searches go through the cached Semantic Scholar client: a rerun sends nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from noveval.inference.engines.client import ClientSettings
from noveval.inference.requests import build_request
from noveval.judges.prompts import call_item_id
from noveval.judges.systems.base import (
    TOTALS,
    Backbone,
    Decision,
    DedicatedJudge,
    Instance,
    Session,
)
from noveval.judges.systems.novelty_checker.prompts import (
    BuiltinPrompts,
    Prompts,
    decision_of,
    parse_checker_verdict,
    parse_keywords,
)
from noveval.judges.systems.novelty_checker.ranking import (
    EMBEDDED_PAPERS,
    STEP,
    WINDOW,
    most_similar,
    passage,
    reranked,
    windows,
)
from noveval.judges.systems.novelty_checker.search import Literature

log = logging.getLogger(__name__)

# A cell's journal per model: <JOURNAL>-<setup>.jsonl. Calls are found by request id (no system
# name in it) in every journal of the folder: those named scideator-<setup> still answer.
JOURNAL = "novelty_checker"
KEYWORDS_CALL, FACETS_CALL, VERDICT_CALL, FIRST_WINDOW_CALL = 0, 1, 2, 3
# What the plan assumes of one idea: 5 keywords and 4 titles searched (their prompt asks 3-6 and
# 4), the snippet search and its papers' batch; a full embedding cut (9 RankGPT windows); prompt
# tokens per call counted from the prompts' text with an idea and abstracts of 200 words.
PLANNED_SEARCHES = 5 + 4 + 2
PLANNED_WINDOWS = 9  # windows(EMBEDDED_PAPERS)
PLANNED_PROMPT_TOKENS = {"checker": 600 + 1050 + 3350, "rerank": 7400}  # keywords+facets+verdict


@dataclass(frozen=True)
class Cut:
    """How many papers each stage keeps: the embedding cut, RankGPT's window and its step, the
    papers the verdict reads (their defaults but ``shown``)."""

    shown: int
    embedded: int = EMBEDDED_PAPERS
    window: int = WINDOW
    step: int = STEP

    @classmethod
    def of(cls, settings: dict) -> Cut:
        """From the settings' papers_shown, papers_embedded, rerank_window and rerank_step."""
        return cls(
            settings["papers_shown"],
            settings.get("papers_embedded", EMBEDDED_PAPERS),
            settings.get("rerank_window", WINDOW),
            settings.get("rerank_step", STEP),
        )


@dataclass
class Transcript:
    """One idea's transcript: its way through the Idea Novelty Checker (transcript.jsonl)."""

    instance_id: str
    idea: str
    titles: list[str]
    keywords: list[str] = field(default_factory=list)
    title_queries: list[str] = field(default_factory=list)
    facets: str = ""
    papers: list[dict] = field(default_factory=list)
    ranked: list[dict] = field(default_factory=list)
    shown: list[dict] = field(default_factory=list)
    answer: str | None = None
    category: str | None = None
    review: str | None = None

    @property
    def decision(self) -> int | None:
        return decision_of(self.category)


def run_checks(
    instances: list[dict],
    checker: Backbone,
    reranker: Backbone,
    settings: ClientSettings,
    literature: Literature,
    encode: Callable[[list[str]], dict],
    prompts: Prompts | BuiltinPrompts,
    cut: Cut,
) -> tuple[list[Transcript], list[dict]]:
    """Every idea (pointwise ``instances``: ``instance_id``, ``ideas``, ``own_titles``) through
    the checker (``cut``'s papers at each stage): the ideas' transcripts, the calls' records."""
    checks = [
        Transcript(i["instance_id"], i["ideas"][0], list(i.get("own_titles") or []))
        for i in instances
    ]
    calls = []

    def record(check: Transcript, step: str, found: dict) -> str | None:
        calls.append({**found, "instance_id": check.instance_id, "step": step})
        return None if found.get("error") else found.get("text")

    def request(backbone: Backbone, check: Transcript, call: int, messages: list[dict]) -> dict:
        item = call_item_id(check.instance_id, 0, call)
        return build_request(item, backbone.spec, messages, backbone.decoding)

    first = {}
    for check in checks:
        first[check.instance_id, "keywords"] = request(
            checker, check, KEYWORDS_CALL, prompts.keywords(check.idea)
        )
        first[check.instance_id, "facets"] = request(
            checker, check, FACETS_CALL, prompts.facets(check.idea)
        )
    found = checker.answers(first, settings, "keywords and facets")
    for check in checks:
        text = record(check, "keywords", found[check.instance_id, "keywords"])
        check.keywords, check.title_queries = parse_keywords(text or "")
        check.facets = record(check, "facets", found[check.instance_id, "facets"]) or ""
        check.papers = literature.papers(
            check.idea, check.keywords + check.title_queries, check.titles
        )
        check.ranked = most_similar(check.idea, check.papers, encode, cut.embedded)
        log.info(
            "%s: %d queries, %d papers, %d embedded",
            check.instance_id, len(check.keywords + check.title_queries), len(check.papers),
            len(check.ranked),
        )  # fmt: skip

    spans = {
        check.instance_id: windows(len(check.ranked), cut.window, cut.step) for check in checks
    }
    rerank_rows = {
        (check.instance_id, span): request(
            reranker,
            check,
            FIRST_WINDOW_CALL + number,
            prompts.rerank(
                check.idea, check.facets, [passage(p) for p in check.ranked[span[0] : span[1]]]
            ),
        )
        for check in checks
        for number, span in enumerate(spans[check.instance_id])
    }
    found = reranker.answers(rerank_rows, settings, "rerank windows") if rerank_rows else {}
    for check in checks:
        window_answers = {
            span: record(check, "rerank", found[check.instance_id, span])
            for span in spans[check.instance_id]
        }
        check.ranked = reranked(check.ranked, window_answers, cut.window, cut.step)
        check.shown = check.ranked[: cut.shown]

    verdict_rows = {
        check.instance_id: request(
            checker,
            check,
            VERDICT_CALL,
            prompts.verdict(check.idea, check.shown),
        )
        for check in checks
        if check.shown
    }
    found = checker.answers(verdict_rows, settings, "verdicts") if verdict_rows else {}
    for check in checks:
        if check.instance_id not in found:
            log.info("%s: no paper to compare with, no verdict", check.instance_id)
            continue
        check.answer = record(check, "verdict", found[check.instance_id])
        parsed = parse_checker_verdict(check.answer)
        if parsed:
            check.category, check.review = parsed
        log.info("%s: class %r, decision %s", check.instance_id, check.category, check.decision)
    return checks, calls


def decisions(checks: list[Transcript], calls: list[dict]) -> list[Decision]:
    """Each idea's decision (none: a failed step), the totals of every call made for it and its
    transcript line."""
    frame = pd.DataFrame(calls, columns=["instance_id", *TOTALS])
    made = []
    for check in checks:
        own = frame[frame["instance_id"] == check.instance_id]
        made.append(
            Decision(
                check.instance_id,
                check.decision,
                int(check.decision is None),
                [call for call in calls if call["instance_id"] == check.instance_id],
                {name: kind(own[name].fillna(0).sum()) for name, kind in TOTALS.items()},
                [transcript_line(check)],
            )
        )
    return made


def transcript_line(check: Transcript) -> dict:
    """One idea's transcript as its line of the cell's transcript.jsonl."""
    keep = ("corpusId", "title", "source", "similarity")
    return {
        "instance_id": check.instance_id,
        "keywords": check.keywords,
        "titles": check.title_queries,
        "facets": check.facets,
        "papers": len(check.papers),
        "ranked": [{k: p.get(k) for k in keep} for p in check.ranked],
        "shown": [{k: p.get(k) for k in keep} for p in check.shown],
        "answer": check.answer,
        "category": check.category,
        "review": check.review,
        "decision": check.decision,
    }


@dataclass(frozen=True)
class NoveltyChecker(DedicatedJudge):
    """The checker as the dedicated judge of one cell: ``model`` (its checker; the reranker is
    ``settings['reranker']`` or the same), ``setup``, ``settings`` (the config's
    ``judges.novelty_checker``), the search ``cutoff`` and the encoder's ``encode``."""

    model: str
    setup: str
    prompts: Prompts | BuiltinPrompts
    settings: dict
    cutoff: str | None
    encode: Callable[[list[str]], dict]

    @property
    def models(self) -> list[str]:
        return [self.model, self.settings.get("reranker") or self.model]

    @property
    def journal(self) -> str:
        return f"{JOURNAL}-{self.setup}"

    def probe(self, instance: Instance) -> list[dict]:
        return self.prompts.keywords(instance.idea)

    def decide(self, instances: list[Instance], session: Session) -> list[Decision]:
        checks, calls = run_checks(
            [i.record() for i in instances],
            session.backbone(self.models[0], self.settings["decoding"]),
            session.backbone(self.models[1], self.settings["rerank_decoding"]),
            session.settings,
            Literature(session.literature, self.cutoff),
            self.encode,
            self.prompts,
            Cut.of(self.settings),
        )
        return decisions(checks, calls)
