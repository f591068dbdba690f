"""AI-Scientist's novelty check as the judge study ran it: rounds in which the model searches
Semantic Scholar or decides.

The authors vendored it from the Idea Novelty Checker: its prompts (upstream source
``novelty_checker``) are the AI-Scientist original's with the task description and experiment
code cut, and the line that shows one found paper is their ``check_novelty.py``'s (upstream
``judges``); both are read from the upstream files. Round r's call holds the system message, every
earlier round's message and answer, and round r's message (the idea and the last search's
results). An answer that holds "decision made: novel" or "decision made: not novel" (any case)
ends the loop with that decision; otherwise the "Query" of its JSON (between json code markers,
else the first braces that parse) is searched and its results are shown in the next round. An
answer with neither keeps the last results, as their loop's failed round does; running out of
rounds is no verdict (their runner: no prediction, scored as wrong). A call that fails for good
uses up its round without an exchange, as their loop's exception path does.

Every call goes through the request layer and the model's journal, one round of all open ideas
at a time: a rerun sends no call the journal has answered and replays the same turns. Each
instance's verdict is its decision; no decision is no verdict (``all_failed``: a tie, or wrong
as the authors score it).

In the builtin mode the messages are the project's own (``prompts/judges/ai_scientist.yaml``),
with the same markers, JSON key and placeholders.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from noveval.core.registry import ModelSpec
from noveval.core.templates import PROMPT_DIR
from noveval.core.upstream import UpstreamSource
from noveval.inference.engines.client import ClientSettings
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.providers import Endpoint
from noveval.inference.ledger import Spending
from noveval.inference.requests import build_request
from noveval.judges.authors import module_constant
from noveval.judges.prompts import call_item_id
from noveval.judges.systems.base import (
    TOTALS,
    Backbone,
    Decision,
    DedicatedJudge,
    Instance,
    Session,
)
from noveval.literature.leakage import cutoff_filter, without_leakage
from noveval.literature.semantic_scholar import CLIENT_FIELDS, SemanticScholar

log = logging.getLogger(__name__)

PROMPTS = "noveltychecker/models/ai_scientist/prompt.py"  # upstream novelty_checker
CHECK = "src/novelty_eval/baselines/ai_scientist/check_novelty.py"  # upstream judges
BUILTIN = PROMPT_DIR / "judges" / "ai_scientist.yaml"
DECISIONS = {"decision made: novel": 1, "decision made: not novel": 0}
# Their Semantic Scholar search (baselines/_shared/s2_client.py): ten papers a query with these
# fields, the venue's cutoff as the API's filter and the idea's own paper dropped afterwards.
RESULTS_PER_QUERY = 10
SEARCH_FIELDS = CLIENT_FIELDS
_FENCED_JSON = re.compile(r"```json(.*?)```", re.DOTALL)
_BRACES = re.compile(r"\{.*?\}", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1F\x7F]")


@dataclass(frozen=True)
class Prompts:
    """The system message, the round message and the found-paper line, as format strings."""

    system: str
    round: str
    paper: str

    @classmethod
    def read(cls, checker_root: str | Path, judges_root: str | Path) -> Prompts:
        """From folders laid out like the two pinned repositories."""
        checker = UpstreamSource("novelty_checker", Path(checker_root)).text(PROMPTS)
        check = UpstreamSource("judges", Path(judges_root)).text(CHECK)
        return cls(
            module_constant(checker, "novelty_system_msg", PROMPTS),
            module_constant(checker, "novelty_prompt", PROMPTS),
            paper_line(check),
        )

    @classmethod
    def builtin(cls) -> Prompts:
        """The project's own messages (the builtin mode)."""
        from noveval.core.yaml_files import load_yaml

        return cls(**load_yaml(BUILTIN.read_text()))


def paper_line(source: str) -> str:
    """The format string their loop writes one found paper with (the one literal that shows
    its number of citations)."""
    found = {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and "Number of citations" in node.value
    }
    if len(found) != 1:
        raise ValueError(f"{CHECK}: expected one found-paper format, got {len(found)}")
    return found.pop()


@dataclass(frozen=True)
class Turn:
    """What one round's answer says: a decision (1 novel, 0 not novel) or a query, or neither."""

    decision: int | None = None
    query: str | None = None


def extract_json(text: str) -> dict | None:
    """The first JSON object between json code markers, else the first braces that parse (with
    control characters dropped on a second try), as their ``extract_json_between_markers``."""
    for candidate in _FENCED_JSON.findall(text) or _BRACES.findall(text):
        candidate = candidate.strip()
        for attempt in (candidate, _CONTROL.sub("", candidate)):
            try:
                return json.loads(attempt)
            except json.JSONDecodeError:
                continue
    return None


def read_turn(text: str) -> Turn:
    """A round's answer: "novel" is looked for before "not novel", as their loop does."""
    lowered = text.lower()
    for marker, decision in DECISIONS.items():
        if marker in lowered:
            return Turn(decision=decision)
    parsed = extract_json(text)
    query = parsed.get("Query") if isinstance(parsed, dict) else None
    return Turn(query=query if isinstance(query, str) and query else None)


def authors_text(authors) -> str:
    """Semantic Scholar's author list as the names joined by commas (their S2 client's)."""
    if isinstance(authors, list):
        names = (a.get("name", "") if isinstance(a, dict) else str(a) for a in authors)
        return ", ".join(filter(None, names))
    return authors if isinstance(authors, str) else ""


def papers_text(prompts: Prompts, papers: list[dict]) -> str:
    """A search's results as the next round shows them (nothing found: empty, as in their loop,
    where the joined empty list overwrites its "No papers found.")."""
    return "\n\n".join(
        prompts.paper.format(
            i=i,
            title=paper.get("title", ""),
            authors=authors_text(paper.get("authors")),
            venue=paper.get("venue", ""),
            year=paper.get("year", ""),
            cites=paper.get("citationCount", ""),
            abstract=paper.get("abstract", ""),
        )
        for i, paper in enumerate(papers)
    )


@dataclass
class Check:
    """One idea's loop so far: each round's message and answer, the last results shown."""

    idea: str
    rounds: int
    exchanges: list[tuple[str, str]] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    results: str = ""

    @property
    def decision(self) -> int | None:
        return self.turns[-1].decision if self.turns else None

    @property
    def open(self) -> bool:
        return self.decision is None and len(self.turns) < self.rounds

    def messages(self, prompts: Prompts) -> list[dict]:
        """The next round's call: system message, earlier rounds, this round's message."""
        chat = [{"role": "system", "content": prompts.system.format(num_rounds=self.rounds)}]
        for message, answer in self.exchanges:
            chat += [
                {"role": "user", "content": message},
                {"role": "assistant", "content": answer},
            ]
        return [*chat, {"role": "user", "content": self.next_message(prompts)}]

    def next_message(self, prompts: Prompts) -> str:
        return prompts.round.format(
            current_round=len(self.turns) + 1,
            num_rounds=self.rounds,
            idea=self.idea,
            last_query_results=self.results,
        )

    def fail(self) -> None:
        """A round whose call failed for good: no exchange, the last results kept."""
        self.turns.append(Turn())

    def answer(self, prompts: Prompts, text: str, search) -> Turn:
        """Record this round's answer; ``search(query)`` gives the papers of its query."""
        message = self.next_message(prompts)
        turn = read_turn(text)
        self.exchanges.append((message, text))
        self.turns.append(turn)
        if turn.query is not None:
            self.results = papers_text(prompts, search(turn.query))
        return turn


def searcher(
    client: SemanticScholar, cutoff: str | None, own_titles: list[str]
) -> Callable[[str], list[dict]]:
    """One idea's search: a query's papers without the idea's own and those after ``cutoff``."""

    def search(query: str) -> list[dict]:
        papers = client.search(query, RESULTS_PER_QUERY, SEARCH_FIELDS, cutoff_filter(cutoff))
        return without_leakage(papers, own_titles, cutoff)[0]

    return search


def describe(turn: Turn) -> str:
    if turn.decision is not None:
        return "decided novel" if turn.decision else "decided not novel"
    return f"searched {turn.query!r}" if turn.query else "neither decided nor searched"


def run_checks(
    instances: list[dict],
    spec: ModelSpec,
    endpoint: Endpoint,
    journal: Journal,
    settings: ClientSettings,
    search: Callable[[str, str], list[dict]],
    prompts: Prompts,
    rounds: int,
    decoding: dict,
    spending: Spending | None = None,
) -> tuple[dict[str, Check], list[dict]]:
    """Every idea's loop (pointwise ``instances``), each turn logged (``search(instance_id,
    query)``: the papers of one idea's query); returns the checks by instance and every call's
    journal record with its instance and round. ``spending``: the caps its calls obey (the
    ledger read before each slice of calls; None: no ledger)."""
    backbone = Backbone(spec, endpoint, journal, decoding, spending)
    checks = {i["instance_id"]: Check(i["ideas"][0], rounds) for i in instances}
    calls = []
    for round in range(rounds):
        rows = {
            instance_id: build_request(
                call_item_id(instance_id, 0, round), spec, check.messages(prompts), decoding
            )
            for instance_id, check in checks.items()
            if check.open
        }
        if not rows:
            break
        found = backbone.answers(rows, settings, f"round {round + 1}")
        for instance_id, record in found.items():
            calls.append({**record, "instance_id": instance_id, "round": round + 1})
            check = checks[instance_id]
            if record.get("error"):
                check.fail()
                log.info("%s round %d: call failed (%s)", instance_id, round + 1, record["error"])
                continue
            turn = check.answer(
                prompts, record["text"], lambda query, i=instance_id: search(i, query)
            )
            log.info("%s round %d: %s", instance_id, round + 1, describe(turn))
    return checks, calls


def round_line(check: Check, call: dict, found: dict) -> dict:
    """One round of an idea as its transcript line: its call (request id, error, cost), what
    the answer did, the query searched and the titles found (``found``: (instance, query) →
    papers)."""
    turn = check.turns[call["round"] - 1]
    return {
        "instance_id": call["instance_id"],
        "round": call["round"],
        "request_id": call["request_id"],
        "error": call.get("error"),
        "answer": call.get("text"),
        "did": describe(turn),
        "decision": turn.decision,
        "query": turn.query,
        "found": [p.get("title", "") for p in found.get((call["instance_id"], turn.query), [])],
        "cost_usd": float(call.get("cost_usd") or 0.0),
    }


def decisions(checks: dict[str, Check], calls: list[dict], found: dict) -> list[Decision]:
    """Each idea's decision, its calls' totals and its rounds. Failed steps: rounds whose call
    failed for good or whose answer neither decided nor searched."""
    made = []
    for instance_id, check in checks.items():
        own = [call for call in calls if call["instance_id"] == instance_id]
        made.append(
            Decision(
                instance_id,
                check.decision,
                sum(t.decision is None and t.query is None for t in check.turns),
                own,
                {
                    key: sum(kind(call.get(key) or 0) for call in own)
                    for key, kind in TOTALS.items()
                },
                [round_line(check, call, found) for call in own],
            )
        )
    return made


# A cell's journal per model (the job's name before the dedicated judges shared a runner).
JOURNAL = "judges-{dataset}-{setup}-ai_scientist"


@dataclass(frozen=True)
class AIScientist(DedicatedJudge):
    """The check as the dedicated judge of one cell (``cell``: dataset, model, setup);
    ``settings``: rounds, effort, cutoff and max_tokens; ``decoding``: the config's."""

    cell: dict
    prompts: Prompts
    settings: dict
    decoding: dict
    ensure_ascii = True  # its transcripts escape non-ASCII characters

    @property
    def models(self) -> list[str]:
        return [self.cell["model"]]

    @property
    def journal(self) -> str:
        return JOURNAL.format(**self.cell)

    def probe(self, instance: Instance) -> list[dict]:
        return Check(instance.idea, self.settings["rounds"]).messages(self.prompts)

    def decide(self, instances: list[Instance], session: Session) -> list[Decision]:
        """Every idea's loop, its searches through the session's Semantic Scholar client without
        the idea's own paper and papers after the cutoff."""
        spec, endpoint, journal = session.served[self.cell["model"]]
        decoding = {**self.decoding, "max_tokens": self.settings["max_tokens"]}
        if spec.effort_levels:
            decoding["reasoning_effort"] = self.settings["effort"]
        searchers = {
            i.instance_id: searcher(session.literature, self.settings["cutoff"], i.own_titles)
            for i in instances
        }
        found: dict[tuple[str, str], list[dict]] = {}

        def search(instance_id: str, query: str) -> list[dict]:
            found[(instance_id, query)] = searchers[instance_id](query)
            return found[(instance_id, query)]

        checks, calls = run_checks(
            [i.record() for i in instances], spec, endpoint, journal, session.settings, search,
            self.prompts, self.settings["rounds"], decoding, session.spending,
        )  # fmt: skip
        return decisions(checks, calls, found)

    def transcript(self, decisions: list[Decision]) -> list[dict]:
        """Round by round, the ideas in their order within a round (as the calls went)."""
        return sorted(super().transcript(decisions), key=lambda line: line["round"])


# Their run config (accuracy_test_ai_scientist.yaml): max_num_iterations 10 (the original's
# default), reasoning effort high; the cutoff is none unless the system's entry names one.
DEFAULTS = {"rounds": 10, "effort": "high", "cutoff": None}


def system_settings(entry: dict) -> dict:
    """A ``judges.systems.ai_scientist`` entry's rounds, effort and cutoff, with defaults."""
    return {key: entry.get(key, default) for key, default in DEFAULTS.items()}
