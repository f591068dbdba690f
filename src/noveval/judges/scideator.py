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

In the paper mode (``judges.prompts: authors``) the prompts are rendered from the pinned
upstream files read with ``ast``, never executed; in the builtin mode they are the project's own
(``prompts/judges/scideator.yaml``, with in-context examples of its own), asking for the same
answer shapes, with RankGPT's facets always given (like the "priority" variant). Their
windows are sent at once and each answer reorders the list as it arrives; we apply them back
to front, the order they were built in. A call that fails for good leaves its step empty (no
keywords, no facets, a window unchanged, no decision).

Every call goes through the request layer and the model's journal, one step of all ideas at a
time; searches go through the cached Semantic Scholar client: a rerun sends nothing twice.
"""

from __future__ import annotations

import ast
import copy
import json
import logging
import re
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from noveval.chat_requests import build_request
from noveval.engines.client import ClientSettings, send_requests
from noveval.engines.journal import Journal, read_records
from noveval.engines.providers import Endpoint
from noveval.engines.servers import serve
from noveval.judges.aggregation import Rules, aggregate_pointwise
from noveval.judges.prompts import call_item_id
from noveval.judges.verdicts import VERDICT_COLUMNS
from noveval.literature.leakage import cutoff_filter, is_own_paper, without_leakage
from noveval.literature.semantic_scholar import CLIENT_FIELDS, SemanticScholar
from noveval.registry import ModelSpec
from noveval.templates import PROMPT_DIR
from noveval.upstream import UpstreamSource

log = logging.getLogger(__name__)

PIPELINE_PROMPTS = "noveltychecker/utils/prompts.py"  # upstream novelty_checker
CHECKER_PROMPTS = "noveltychecker/models/idea_novelty_checker/prompts.py"
EXAMPLES = "noveltychecker/models/idea_novelty_checker/incontext_examples/{}.json"
BUILTIN = PROMPT_DIR / "judges" / "scideator.yaml"
VERDICT_PROMPTS = {
    "relaxed": "prompt_NoveltyChecker_allowsIncrementalNovelty",
    "less-relaxed": "prompt_NoveltyChecker_allowsIncrementalNovelty_lessRelaxed",
}
RERANK_PROMPTS = {  # variant: (the messages before the passages, the last message)
    "base": ("prompt_RankGPT_prefixRanking", "prompt_RankGPT_postRanking"),
    "purpose": ("prompt_RankGPT_prefixRanking", "prompt_RankGPT_postRankingPurpose"),
    "priority": ("prompt_RankGPT_prefixRankingPriority", "prompt_RankGPT_IdeaPriority"),
}
# Their Semantic Scholar requests (baselines/_shared/s2_client.py).
SEARCH_LIMIT = 100
SEARCH_FIELDS = CLIENT_FIELDS
DETAIL_FIELDS = [
    "corpusId",
    "paperId",
    "url",
    "title",
    "year",
    "abstract",
    "authors.name",
    "fieldsOfStudy",
    "citationCount",
    "venue",
    "publicationDate",
]
DETAIL_BATCH = 100
EMBEDDED_PAPERS = 100  # max_papers_specter
SEPARATOR = "[SEP]"  # Specter2's tokenizer.sep_token between title and abstract
WINDOW, STEP, PASSAGE_WORDS = 20, 10, 300
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
_KEYWORDS = re.compile(r"<keywords>(.*?)</keywords>", re.DOTALL)
_TITLES = re.compile(r"<titles>(.*?)</titles>", re.DOTALL)
EDGES = " \n#:][]"  # their clean_text's characters


def upstream_files(examples: str) -> list[str]:
    """The pinned files a run reads: the two prompt modules and the in-context examples."""
    return [PIPELINE_PROMPTS, CHECKER_PROMPTS, EXAMPLES.format(examples)]


def upstream_root(first_file: str) -> str:
    """The folder, laid out like the checker's repository, holding ``first_file``."""
    return first_file.removesuffix(PIPELINE_PROMPTS).rstrip("/")


class UpstreamFunction:
    """A prompt function of the pinned files, rendered by reading its statements: assignments of
    literals and f-strings, ``x.extend(y)``, a ``for`` over the papers that appends one message
    each, and ``return``. Anything else is refused."""

    def __init__(self, source: str, name: str, where: str):
        found = [
            node
            for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef) and node.name == name
        ]
        if len(found) != 1:
            raise ValueError(f"{where}: no function {name}")
        self.node, self.where = found[0], f"{where}:{name}"
        self.parameters = [a.arg for a in self.node.args.args]

    def __call__(self, *arguments, papers: list[dict] | None = None):
        names = dict(zip(self.parameters, arguments, strict=True))
        for statement in self.node.body:
            match statement:
                case ast.Expr(value=ast.Constant(value=str())):
                    continue  # a docstring
                case ast.Assign(targets=[ast.Name(id=target)], value=value):
                    names[target] = self._value(value, names)
                case ast.Expr(
                    value=ast.Call(
                        func=ast.Attribute(value=ast.Name(id=target), attr="extend"),
                        args=[value],
                    )
                ):
                    names[target] = names[target] + self._value(value, names)
                case ast.For(body=[ast.Expr(value=ast.Call(func=ast.Attribute(attr="append")))]):
                    self._each_paper(statement, names, papers or [])
                case ast.Return(value=value):
                    return self._value(value, names)
                case _:
                    raise ValueError(f"{self.where}: cannot read {ast.unparse(statement)}")
        raise ValueError(f"{self.where}: no return")

    def _each_paper(self, loop: ast.For, names: dict, papers: list[dict]) -> None:
        """``for i, (_, row) in enumerate(…iterrows()): target.append(message)``."""
        match loop.target:
            case ast.Tuple(elts=[ast.Name(id=index), ast.Tuple(elts=[_, ast.Name(id=row)])]):
                pass
            case _:
                raise ValueError(f"{self.where}: cannot read {ast.unparse(loop.target)}")
        call = loop.body[0].value
        target = call.func.value.id
        for i, paper in enumerate(papers):
            names[target] = [*names[target], self._value(call.args[0], {index: i, row: paper})]

    def _value(self, node: ast.AST, names: dict):
        match node:
            case ast.Constant(value=value):
                return value
            case ast.JoinedStr(values=parts):
                return "".join(str(self._value(part, names)) for part in parts)
            case ast.FormattedValue(value=value, conversion=-1, format_spec=None):
                return self._value(value, names)
            case ast.Name(id=name) if name in names:
                return names[name]
            case ast.Subscript(value=value, slice=key):
                return self._value(value, names)[self._value(key, names)]
            case ast.List(elts=items):
                return [self._value(item, names) for item in items]
            case ast.Dict(keys=keys, values=values):
                return {self._value(k, names): self._value(v, names) for k, v in zip(keys, values)}
        raise ValueError(f"{self.where}: cannot read {ast.unparse(node)}")


def window_turns(passages: list[str]) -> list[dict]:
    """RankGPT's passages of a window: each a user turn acknowledged by the assistant."""
    turns = []
    for rank, passage in enumerate(passages, start=1):
        turns += [
            {"role": "user", "content": f"[{rank}] {passage}"},
            {"role": "assistant", "content": f"Received passage [{rank}]."},
        ]
    return turns


@dataclass(frozen=True)
class Prompts:
    """The checker's prompt functions and its in-context examples, from the pinned files (the
    paper mode)."""

    keywords: UpstreamFunction
    facets: UpstreamFunction
    rerank_prefix: UpstreamFunction
    rerank_last: UpstreamFunction
    verdict_function: UpstreamFunction
    examples: str

    @classmethod
    def read(
        cls, checker_root: str | Path, verdict: str, examples: str, rerank: str, as_run: bool
    ) -> Prompts:
        """``verdict``: the prompt style (relaxed, less-relaxed); ``examples``: the in-context
        file (relaxed, less-relaxed); ``rerank``: RankGPT's variant (base, purpose, priority).
        ``as_run``: the examples as their code passes them, the opened file (its text form is
        the file object's description, not the examples); else the examples' text."""
        source = UpstreamSource("novelty_checker", Path(checker_root))
        pipeline, checker = source.text(PIPELINE_PROMPTS), source.text(CHECKER_PROMPTS)
        for key, choices in (("verdict", VERDICT_PROMPTS), ("rerank", RERANK_PROMPTS)):
            if {"verdict": verdict, "rerank": rerank}[key] not in choices:
                raise ValueError(f"scideator.{key} must be one of {sorted(choices)}")
        if examples not in VERDICT_PROMPTS:
            raise ValueError(f"scideator.examples must be one of {sorted(VERDICT_PROMPTS)}")
        path = EXAMPLES.format(examples)
        prefix, last = RERANK_PROMPTS[rerank]
        return cls(
            UpstreamFunction(pipeline, "prompt_PaperRetrieval_Keywords", PIPELINE_PROMPTS),
            UpstreamFunction(pipeline, "prompt_RankGPT_IdeaFacets", PIPELINE_PROMPTS),
            UpstreamFunction(pipeline, prefix, PIPELINE_PROMPTS),
            UpstreamFunction(pipeline, last, PIPELINE_PROMPTS),
            UpstreamFunction(checker, VERDICT_PROMPTS[verdict], CHECKER_PROMPTS),
            opened_file(path) if as_run else json.loads(source.text(path)),
        )

    def rerank(self, idea: str, facets: str, passages: list[str]) -> list[dict]:
        """One RankGPT window: the instruction, each passage as a user turn acknowledged by the
        assistant, the last message (with the facets in the priority variant)."""
        arguments = (idea, facets) if len(self.rerank_prefix.parameters) == 3 else (idea,)
        chat = copy.deepcopy(self.rerank_prefix(*arguments, len(passages)))
        last = self.rerank_last(*arguments, len(passages))
        return [*chat, *window_turns(passages), {"role": "user", "content": last}]

    def verdict(self, idea: str, papers: list[dict]) -> list[dict]:
        """The final comparison of the idea with the papers shown."""
        return self.verdict_function(idea, papers, self.examples, papers=papers)


@dataclass(frozen=True)
class BuiltinPrompts:
    """The project's own messages for each step (the builtin mode): format strings of
    ``prompts/judges/scideator.yaml`` and its in-context examples."""

    texts: dict

    @classmethod
    def read(cls, path: Path = BUILTIN) -> BuiltinPrompts:
        import yaml

        return cls(yaml.safe_load(path.read_text()))

    def keywords(self, idea: str) -> list[dict]:
        return [
            {"role": "system", "content": self.texts["keywords_system"]},
            {"role": "user", "content": self.texts["keywords_user"].format(idea=idea)},
        ]

    def facets(self, idea: str) -> list[dict]:
        return [{"role": "user", "content": self.texts["facets"].format(idea=idea)}]

    def rerank(self, idea: str, facets: str, passages: list[str]) -> list[dict]:
        """One RankGPT window: the instruction with the facets, the passages, the last ask."""
        values = {"idea": idea, "facets": facets or "(none)", "count": len(passages)}
        return [
            {"role": "system", "content": self.texts["rerank_system"].format(**values)},
            *window_turns(passages),
            {"role": "user", "content": self.texts["rerank_last"].format(**values)},
        ]

    def papers_text(self, papers: list[dict]) -> str:
        """Papers as the verdict shows them, numbered from 0."""
        return "\n".join(
            self.texts["paper"].format(number=i, title=p["title"], abstract=p["abstract"])
            for i, p in enumerate(papers)
        )

    def verdict(self, idea: str, papers: list[dict]) -> list[dict]:
        """The final comparison: the instruction with the examples, the idea and the papers."""
        examples = "\n\n".join(
            self.texts["example"].format(
                idea=example["idea"],
                papers=self.papers_text(example["papers"]),
                category=example["category"],
                review=example["review"],
            )
            for example in self.texts["examples"]
        )
        user = self.texts["verdict_user"].format(idea=idea, papers=self.papers_text(papers))
        return [
            {"role": "system", "content": self.texts["verdict_system"].format(examples=examples)},
            {"role": "user", "content": user},
        ]


def load_prompts(checker_root: str | Path | None, settings: dict) -> Prompts | BuiltinPrompts:
    """The pinned prompts in the paper mode (``checker_root``: their files, with
    ``settings``' prompt, examples, rerank variant), else the builtin messages."""
    if checker_root is None:
        return BuiltinPrompts.read()
    return Prompts.read(
        checker_root,
        settings["prompt"],
        settings["examples"],
        settings["rerank_variant"],
        settings["examples_as_run"],
    )


def opened_file(path: str) -> str:
    """How an f-string shows a text file opened for reading (their in-context part)."""
    return f"<_io.TextIOWrapper name='{path}' mode='r' encoding='UTF-8'>"


def parse_keywords(text: str) -> tuple[list[str], list[str]]:
    """The Python lists between <keywords> and <titles> tags; an unreadable list is empty."""
    found = []
    for pattern in (_KEYWORDS, _TITLES):
        match = pattern.search(text or "")
        try:
            value = ast.literal_eval(match.group(1).strip()) if match else []
        except (ValueError, SyntaxError):
            value = []
        found.append([str(v) for v in value] if isinstance(value, list | tuple) else [])
    return found[0], found[1]


def parse_verdict(text: str | None) -> tuple[str, str] | None:
    """(class, review) from "Class: … Review: …" as their ``parse_output`` cleans them; None
    when the answer has no "Review:"."""
    if not text or "Review:" not in text:
        return None
    category = text.split("Review:")[0].split("Class:")[-1].strip()
    review = text.split("Review:")[1].strip()
    for mark in "*:\n":
        category, review = category.replace(mark, ""), review.replace(mark, "")
    category = category.strip(EDGES).lower().strip("-").strip(" ")
    return category, review.strip(EDGES).strip("-").strip(" ")


def decision_of(category: str | None) -> int | None:
    """Their runner's reading of the class: 1 novel, 0 not novel, None unreadable."""
    category = (category or "").strip().rstrip("]").strip().lower()
    if category == "novel":
        return 1
    if category in ("not novel", "not_novel", "notnovel"):
        return 0
    if "novel" in category:
        return 0 if "not" in category else 1
    return None


def content(paper: dict) -> str:
    """A paper as RankGPT's hit: "Title: … Content: …"."""
    return f"Title: {paper['title']}. Content: {paper['abstract']}"


def passage(paper: dict) -> str:
    """A hit as its window shows it: at most 300 words."""
    return " ".join(content(paper).replace("Title: Content: ", "").strip().split()[:PASSAGE_WORDS])


def windows(count: int, size: int = WINDOW, step: int = STEP) -> list[tuple[int, int]]:
    """RankGPT's windows of ``size`` over ``count`` passages, each ``step`` nearer the front,
    back to front (none under ``size``)."""
    spans, start = [], count - size
    while start >= 0:
        spans.append((start, start + size))
        start -= step
    return spans


def permutation(answer: str, size: int) -> list[int]:
    """The order an answer gives a window's ``size`` passages: its numbers (1-based) in order,
    repeats and those out of range dropped, the passages it leaves out after in their order."""
    numbers = [int(n) - 1 for n in "".join(c if c.isdigit() else " " for c in answer).split()]
    order = [n for i, n in enumerate(numbers) if n not in numbers[:i] and 0 <= n < size]
    return order + [n for n in range(size) if n not in order]


def reranked(
    papers: list[dict],
    answers: dict[tuple[int, int], str | None],
    size: int = WINDOW,
    step: int = STEP,
) -> list[dict]:
    """The papers after each window's answer, applied back to front (a missing answer leaves
    its window as it is); papers with the same passage take the last one's place, as their
    mapping from passage to position does."""
    hits = list(papers)
    for start, end in windows(len(papers), size, step):
        answer = answers.get((start, end))
        if answer is None:
            continue
        window = hits[start:end]
        hits[start:end] = [window[i] for i in permutation(answer, len(window))]
    position = {content(p): i for i, p in enumerate(hits)}
    return sorted(papers, key=lambda p: position[content(p)])


def embedding_text(title: str | None, abstract: str | None) -> str:
    """Title and abstract as Specter2 reads a paper (a missing one as a space)."""
    title, abstract = (" " if text is None else text for text in (title, abstract))
    return f"{title}{SEPARATOR}{abstract}"


def most_similar(
    idea: str, papers: list[dict], encode: Callable[[list[str]], dict], keep: int = EMBEDDED_PAPERS
) -> list[dict]:
    """The ``keep`` papers most cosine-similar to the idea, most similar first (ties in the
    papers' order), with a title and an abstract."""
    if not papers:
        return []
    idea_text = embedding_text("", idea)
    texts = [embedding_text(p.get("title"), p.get("abstract")) for p in papers]
    vectors = encode([idea_text, *texts])
    matrix = np.vstack([vectors[t] for t in texts]).astype(float)
    query = np.asarray(vectors[idea_text], dtype=float)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    similarity = matrix @ query / np.where(norms == 0, 1, norms)
    order = np.argsort(-similarity, kind="stable")[:keep]
    return [
        {**papers[i], "similarity": float(similarity[i])}
        for i in order
        if papers[i].get("title") is not None and papers[i].get("abstract") is not None
    ]


@dataclass(frozen=True)
class Literature:
    """The checker's Semantic Scholar searches for one cutoff."""

    client: SemanticScholar
    cutoff: str | None

    def keyword(self, query: str, titles: list[str]) -> list[dict]:
        """A keyword search's papers (not the idea's own), a missing title or abstract as an
        empty text, as their client reshapes them."""
        papers = self.client.search(query, SEARCH_LIMIT, SEARCH_FIELDS, cutoff_filter(self.cutoff))
        return [
            {**p, "title": p.get("title") or "", "abstract": p.get("abstract") or ""}
            for p in without_leakage(papers, titles)[0]
        ]

    def snippet(self, idea: str, titles: list[str]) -> list[dict]:
        """The snippet search's papers (not the idea's own), their details fetched by corpus id."""
        entries = self.client.snippet_search(idea, SEARCH_LIMIT, cutoff_filter(self.cutoff))
        corpus_ids = [
            (entry.get("paper") or {}).get("corpusId")
            for entry in entries
            if not is_own_paper((entry.get("paper") or {}).get("title"), titles)
        ]
        corpus_ids = [f"CorpusId:{c}" for c in corpus_ids if c]
        details = []
        for start in range(0, len(corpus_ids), DETAIL_BATCH):
            details += self.client.papers(corpus_ids[start : start + DETAIL_BATCH], DETAIL_FIELDS)
        return [p for p in details if isinstance(p, dict) and p.get("corpusId")]

    def papers(self, idea: str, queries: list[str], titles: list[str]) -> list[dict]:
        """Snippet papers first, then keyword papers they do not hold, once each by corpus id,
        each with its ``source``."""
        found: dict[str, dict] = {}
        for paper in self.snippet(idea, titles):
            found[str(paper["corpusId"])] = {**paper, "source": "snippet"}
        keyword = {}
        for query in queries:
            for paper in self.keyword(query, titles):
                if paper.get("corpusId"):
                    keyword[str(paper["corpusId"])] = paper
        for corpus_id, paper in keyword.items():
            if corpus_id in found:
                found[corpus_id]["source"] = "keyword+title+snippet"
            else:
                found[corpus_id] = {**paper, "source": "keyword+title"}
        return list(found.values())


@dataclass(frozen=True)
class Backbone:
    """A model with where it answers, its journal and its decoding."""

    spec: ModelSpec
    endpoint: Endpoint
    journal: Journal
    decoding: dict


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
        """From ``judges.scideator``'s papers_shown, papers_embedded, rerank_window, rerank_step."""
        return cls(
            settings["papers_shown"],
            settings.get("papers_embedded", EMBEDDED_PAPERS),
            settings.get("rerank_window", WINDOW),
            settings.get("rerank_step", STEP),
        )


@dataclass
class Check:
    """One idea's way through the checker."""

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
        send_requests(
            pending, backbone.endpoint, backbone.journal, settings, backbone.spec.cost_usd
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
) -> tuple[list[Check], list[dict]]:
    """Every idea through the checker (pointwise ``instances`` with ``instance_id``, ``ideas``
    and ``own_titles``), keeping ``cut``'s papers at each stage; returns the checks and every
    call's journal record with its instance and step."""
    checks = [
        Check(i["instance_id"], i["ideas"][0], list(i.get("own_titles") or [])) for i in instances
    ]
    calls = []

    def record(check: Check, step: str, found: dict) -> str | None:
        calls.append({**found, "instance_id": check.instance_id, "step": step})
        return None if found.get("error") else found.get("text")

    def request(backbone: Backbone, check: Check, call: int, messages: list[dict]) -> dict:
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


def verdict_rows(checks: list[Check], calls: list[dict], all_failed: str) -> pd.DataFrame:
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


def transcript(check: Check) -> dict:
    """What one idea's check found and said, for the cell's log."""
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
) -> None:
    """One cell (``cell``: model, setup, change) of the checker on the pointwise instances:
    its verdicts and each idea's transcript (JSON lines). ``settings``: the config's
    ``judges.scideator``; ``literature``: the Semantic Scholar settings, its cache folder and
    the cutoff. The encoder (``settings['encoder']``) loads from its snapshot of
    ``weights_manifests`` (rule weights) when it is a hub encoder. ``checker_root``: the pinned
    files (the paper mode), or None for the builtin messages."""
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
                stack.enter_context(Journal(Path(cache_dir) / name, f"scideator-{cell['setup']}")),
            )
        checker = Backbone(*served[names["checker"]], settings["decoding"])
        reranker = Backbone(*served[names["reranker"]], settings["rerank_decoding"])
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
        "".join(json.dumps(transcript(check), ensure_ascii=False) + "\n" for check in checks)
    )
