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

import json
import logging
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from noveval.chat_requests import build_request
from noveval.engines.client import ClientSettings, send_requests
from noveval.engines.journal import Journal, read_records
from noveval.engines.providers import Endpoint
from noveval.engines.servers import serve
from noveval.judges.aggregation import Rules, aggregate_pointwise
from noveval.judges.novelty_checker_prompts import (
    BuiltinPrompts,
    Prompts,
    decision_of,
    load_prompts,
    parse_keywords,
    parse_verdict,
)
from noveval.judges.novelty_checker_ranking import (
    EMBEDDED_PAPERS,
    STEP,
    WINDOW,
    most_similar,
    passage,
    reranked,
    windows,
)
from noveval.judges.novelty_checker_search import (
    Literature,
)
from noveval.judges.prompts import call_item_id
from noveval.judges.verdicts import VERDICT_COLUMNS
from noveval.ledger import Spending, send_within
from noveval.registry import ModelSpec

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
TOTALS = {  # the journal's numbers a verdict row sums over the idea's calls
    "input_tokens": int,
    "output_tokens": int,
    "cost_usd": float,
    "cached_input_tokens": int,
    "cache_creation_tokens": int,
    "latency_s": float,
}


@dataclass(frozen=True)
class Backbone:
    """A model with where it answers, its journal and its decoding."""

    spec: ModelSpec
    endpoint: Endpoint
    journal: Journal
    decoding: dict
    spending: Spending | None = None  # the ledger its calls read and write (None: none)


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


def answers(rows: dict, backbone: Backbone, settings: ClientSettings, step: str) -> dict:
    """Each row's journal record (its answer or its error), sending only unanswered rows."""
    finished = backbone.journal.finished()
    pending = [row for row in rows.values() if row["request_id"] not in finished]
    log.info("%s: %d calls, %d to send", step, len(rows), len(pending))
    if pending:
        send_within(
            backbone.spending,
            pending,
            backbone.journal.path,
            lambda part: send_requests(
                part, backbone.endpoint, backbone.journal, settings, backbone.spec.cost_usd
            ),
        )
        finished = backbone.journal.finished()
    failed = {
        r["request_id"]: r
        for r in (read_records(backbone.journal.path) if backbone.journal.path.exists() else [])
        if r.get("error")
    }
    return {
        key: finished.get(row["request_id"]) or failed[row["request_id"]]
        for key, row in rows.items()
    }


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
    found = answers(first, checker, settings, "keywords and facets")
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
    found = answers(rerank_rows, reranker, settings, "rerank windows") if rerank_rows else {}
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
    found = answers(verdict_rows, checker, settings, "verdicts") if verdict_rows else {}
    for check in checks:
        if check.instance_id not in found:
            log.info("%s: no paper to compare with, no verdict", check.instance_id)
            continue
        check.answer = record(check, "verdict", found[check.instance_id])
        parsed = parse_verdict(check.answer)
        if parsed:
            check.category, check.review = parsed
        log.info("%s: class %r, decision %s", check.instance_id, check.category, check.decision)
    return checks, calls


def verdict_rows(checks: list[Transcript], calls: list[dict], all_failed: str) -> pd.DataFrame:
    """One row per idea in the judges' verdict columns: the decision (no decision: a tie, or
    wrong with ``all_failed`` 'wrong'), and the totals of every call made for it."""
    rules = Rules(all_failed=all_failed)
    frame = pd.DataFrame(calls, columns=["instance_id", *TOTALS])
    rows = []
    for check in checks:
        own = frame[frame["instance_id"] == check.instance_id]
        rows.append(
            {
                "instance_id": check.instance_id,
                "run": 0,
                "verdict": aggregate_pointwise([check.decision], rules),
                "n_calls": len(own),
                "n_failed": int(check.decision is None),
                **{name: kind(own[name].fillna(0).sum()) for name, kind in TOTALS.items()},
                "batch_calls": 0,
                "web_searches": 0,
            }
        )
    return pd.DataFrame(rows)


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


def judge_cell(
    instances_path: str,
    verdicts_path: str,
    transcript_path: str,
    cell: dict,
    registry_path: str,
    cache_dir: str,
    inference: dict,
    settings: dict,
    literature: dict,
    checker_root: str | None,
    log_path: str,
    all_failed: str,
    weights_manifests: list[str] = (),
    budget: dict | None = None,
) -> None:
    """One cell (``cell``: model, setup, change) of the checker on the pointwise instances:
    its verdicts and each idea's transcript (JSON lines). ``settings``: the config's
    ``judges.novelty_checker``; ``literature``: the Semantic Scholar settings, its cache folder and
    the cutoff. The encoder (``settings['encoder']``) loads from its snapshot of
    ``weights_manifests`` (rule weights) when it is a hub encoder. ``checker_root``: the upstream
    files (paper mode), or None for the builtin messages. ``budget`` (config ``budget``): its
    calls read the ledger as every calling job's do (``noveval.ledger``)."""
    from noveval.weights import use_offline

    located = use_offline(weights_manifests)
    from noveval.encoders import SentenceEncoder
    from noveval.files import write_table
    from noveval.judges.instances import read_instances
    from noveval.literature.semantic_scholar import from_settings
    from noveval.registry import load_registry

    table = read_instances(instances_path)
    instances = [
        {"instance_id": row["instance_id"], "ideas": row["ideas"], "own_titles": row["titles"]}
        for row in table.to_dict("records")
    ]
    prompts = load_prompts(checker_root, settings)
    registry = load_registry(registry_path)
    names = {"checker": cell["model"], "reranker": settings.get("reranker") or cell["model"]}
    local = any(registry.model(name).engine == "llamacpp" for name in names.values())
    client_settings = ClientSettings(
        # llama_cpp.server answers one request at a time: queued ones would only time out.
        concurrency=1 if local else inference["concurrency"],
        request_timeout_s=inference["request_timeout_s"],
        max_retries=inference["max_retries"],
    )
    search = Literature(
        from_settings(literature["semantic_scholar"], Path(literature["cache_dir"])),
        literature["cutoff"],
    )
    reference = registry.encoder(settings["encoder"])
    encoder = SentenceEncoder(located.get(reference, reference))
    probe = prompts.keywords(instances[0]["ideas"][0]) if instances else None
    with ExitStack() as stack:
        served = {}
        for name in dict.fromkeys(names.values()):
            spec = registry.model(name)
            served[name] = (
                spec,
                stack.enter_context(
                    serve(spec, log_path, inference["server_start_timeout_s"], 1, None, probe)
                ),
                stack.enter_context(Journal(Path(cache_dir) / name, f"{JOURNAL}-{cell['setup']}")),
            )
        spending = Spending.of(budget, cache_dir)
        checker = Backbone(*served[names["checker"]], settings["decoding"], spending)
        reranker = Backbone(*served[names["reranker"]], settings["rerank_decoding"], spending)
        checks, calls = run_checks(
            instances, checker, reranker, client_settings, search, encoder.encode, prompts,
            Cut.of(settings),
        )  # fmt: skip
    counts = search.client.counts()
    log.info(
        "%d ideas, %d calls, %d Semantic Scholar requests sent (retries included), %d answered "
        "from the cache",
        len(checks), len(calls), counts["requests_made"], counts["requests_cached"],
    )  # fmt: skip
    frame = table[["instance_id", "label"]].merge(
        verdict_rows(checks, calls, all_failed), on="instance_id", how="left"
    )
    for key, value in cell.items():
        frame[key] = value
    write_table(frame[VERDICT_COLUMNS], verdicts_path)
    Path(transcript_path).write_text(
        "".join(json.dumps(transcript_line(check), ensure_ascii=False) + "\n" for check in checks)
    )
