"""The dedicated judges behind one interface.

A dedicated judge (AI-Scientist's novelty check, the Idea Novelty Checker) runs in a job of its
own rather than through the judges' prompts and inference batches: it takes a cell's
instances (each an idea with its own paper's titles) and gives each its ``Decision``: the
verdict, its calls' journal records, their tokens and cost, and its lines of the transcript.
The instances come in together so that its calls go one step of all ideas at a time.

``run_system`` does what every one needs once: the registry's models served (a local backbone
started, its weights from the rule's manifest), a journal per model, the client settings, the
ledger's caps (``noveval.inference.ledger``) and the cached Semantic Scholar client; then it writes
the cell's verdicts (``VERDICT_COLUMNS``) and its ``transcript.jsonl``.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.inference.engines.client import ClientSettings, retry_window, send_requests
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.providers import Endpoint
from noveval.inference.ledger import Spending, send_within
from noveval.judges.statistics.aggregation import Rules, aggregate_pointwise
from noveval.judges.verdicts import VERDICT_COLUMNS
from noveval.literature.semantic_scholar import SemanticScholar

log = logging.getLogger(__name__)

TOTALS = {  # the journal's numbers a verdict row sums over the instance's calls
    "input_tokens": int,
    "output_tokens": int,
    "cost_usd": float,
    "cached_input_tokens": int,
    "cache_creation_tokens": int,
    "latency_s": float,
}


@dataclass(frozen=True)
class Instance:
    """One pointwise instance as a dedicated judge reads it."""

    instance_id: str
    idea: str
    own_titles: list[str]  # the idea's own paper, kept out of every search

    def record(self) -> dict:
        """As the judges' check loops take it: ``instance_id``, ``ideas``, ``own_titles``."""
        return {
            "instance_id": self.instance_id,
            "ideas": [self.idea],
            "own_titles": self.own_titles,
        }


@dataclass(frozen=True)
class Decision:
    """What a dedicated judge says of one instance."""

    instance_id: str
    verdict: int | None  # 1 novel, 0 not novel, None no decision
    failed: int  # its steps that failed (the verdict row's n_failed)
    calls: list[dict]  # its calls' journal records
    usage: dict  # the calls' TOTALS, as the judge sums them
    transcript: list[dict]  # its lines of the cell's transcript.jsonl

    @property
    def cost_usd(self) -> float:
        return self.usage["cost_usd"]

    def row(self, all_failed: str) -> dict:
        """Its verdict row; no decision is ``all_failed``'s verdict (a tie, or ``FAILED``)."""
        return {
            "instance_id": self.instance_id,
            "run": 0,
            "verdict": aggregate_pointwise([self.verdict], Rules(all_failed=all_failed)),
            "n_calls": len(self.calls),
            "n_failed": self.failed,
            **self.usage,
            "batch_calls": 0,
            "web_searches": 0,  # its searches are Semantic Scholar's (the transcript)
        }


def verdict_rows(decisions: list[Decision], all_failed: str) -> pd.DataFrame:
    """One verdict row per decision."""
    return pd.DataFrame([decision.row(all_failed) for decision in decisions])


@dataclass(frozen=True)
class Backbone:
    """A model with where it answers, its journal and its decoding."""

    spec: ModelSpec
    endpoint: Endpoint
    journal: Journal
    decoding: dict
    spending: Spending | None = None  # the ledger its calls read and write (None: none)

    def answers(self, rows: dict, settings: ClientSettings, step: str) -> dict:
        """Each row's journal record (its answer or its error), sending only unanswered rows
        (in slices within the ledger's caps)."""
        finished = self.journal.finished()
        pending = [row for row in rows.values() if row["request_id"] not in finished]
        log.info("%s: %d calls, %d to send", step, len(rows), len(pending))
        if pending:
            send_within(
                self.spending,
                pending,
                self.journal.path,
                lambda part: send_requests(
                    part, self.endpoint, self.journal, settings, self.spec.cost_usd
                ),
            )
            finished = self.journal.finished()
        failed = {
            r["request_id"]: r
            for r in (read_records(self.journal.path) if self.journal.path.exists() else [])
            if r.get("error")
        }
        return {
            key: finished.get(row["request_id"]) or failed[row["request_id"]]
            for key, row in rows.items()
        }


@dataclass(frozen=True)
class Session:
    """What ``run_system`` set up for one cell."""

    served: dict[str, tuple[ModelSpec, Endpoint, Journal]]  # by registry name
    settings: ClientSettings
    spending: Spending
    literature: SemanticScholar

    def backbone(self, name: str, decoding: dict) -> Backbone:
        return Backbone(*self.served[name], decoding, self.spending)


class DedicatedJudge(ABC):
    """A dedicated judge of one cell: the models it calls and its journal's name, a first
    call to check a local server with, and its decisions."""

    ensure_ascii = False  # how its transcript's lines are written (json.dumps)

    @property
    @abstractmethod
    def models(self) -> list[str]:
        """The registry names it calls, the cell's model first."""

    @property
    @abstractmethod
    def journal(self) -> str:
        """Its journal's name in each model's folder (a rerun reads the same one)."""

    @abstractmethod
    def probe(self, instance: Instance) -> list[dict]:
        """The messages of a first call, to check a started server with."""

    @abstractmethod
    def decide(self, instances: list[Instance], session: Session) -> list[Decision]:
        """Each instance's decision, in the instances' order."""

    def transcript(self, decisions: list[Decision]) -> list[dict]:
        """The cell's transcript: each decision's lines in turn."""
        return [line for decision in decisions for line in decision.transcript]


def run_system(
    system: DedicatedJudge,
    cell: dict,
    instances_path: str,
    registry_path: str,
    journal_dir: str,
    inference: dict,
    semantic_scholar: dict,
    search_cache_dir: str,
    verdicts_path: str,
    transcript_path: str,
    log_path: str,
    all_failed: str,
    model_weights: list[str] = (),
    budget: dict | None = None,
) -> None:
    """One cell (``cell``: model, setup, ideas, change) of ``system`` on the pointwise
    instances: its verdicts and its transcript (JSON lines). Its calls go through each model's
    journal in ``journal_dir`` within ``budget``'s caps (config ``budget``); ``inference``: the
    client settings and the server's start timeout; ``model_weights``: the cell model's weights
    manifests (rule weights) for a local backbone."""
    from noveval.core.files import write_table
    from noveval.core.registry import load_registry
    from noveval.inference.engines.servers import serve
    from noveval.inference.weights import local_weights
    from noveval.judges.instances import read_instances
    from noveval.literature.semantic_scholar import from_settings

    table = read_instances(instances_path)
    instances = [
        Instance(row["instance_id"], row["ideas"][0], list(row["titles"]))
        for row in table.to_dict("records")
    ]
    registry = load_registry(registry_path)
    specs = {name: registry.model(name) for name in dict.fromkeys(system.models)}
    settings = ClientSettings(
        # llama_cpp.server answers one request at a time: queued ones would only time out.
        concurrency=1
        if any(spec.engine == "llamacpp" for spec in specs.values())
        else inference["concurrency"],
        request_timeout_s=inference["request_timeout_s"],
        retry_for_s=min(
            retry_window(spec.engine, inference["retry_for"]) for spec in specs.values()
        ),
    )
    literature = from_settings(semantic_scholar, Path(search_cache_dir))
    weights = local_weights(model_weights[0]) if model_weights else None
    probe = system.probe(instances[0]) if instances else None
    with ExitStack() as stack:
        served = {}
        for name, spec in specs.items():
            start = inference["server_start_timeout_s"]
            own = weights if name == cell["model"] else None
            endpoint = stack.enter_context(serve(spec, log_path, start, 1, own, probe))
            journal = stack.enter_context(Journal(Path(journal_dir) / name, system.journal))
            served[name] = (spec, endpoint, journal)
        session = Session(served, settings, Spending.of(budget, journal_dir), literature)
        decisions = system.decide(instances, session)
    counts = literature.counts()
    log.info(
        "%s: %d ideas, %d calls, %d decided; Semantic Scholar searches: %d requests sent "
        "(retries included), %d answered from the cache",
        cell, len(decisions), sum(len(d.calls) for d in decisions),
        sum(d.verdict is not None for d in decisions), counts["requests_made"],
        counts["requests_cached"],
    )  # fmt: skip
    frame = table[["instance_id", "label"]].merge(
        verdict_rows(decisions, all_failed), on="instance_id", how="left"
    )
    for key in ("model", "setup", "ideas", "change"):
        frame[key] = cell[key]
    write_table(frame[VERDICT_COLUMNS], verdicts_path)
    Path(transcript_path).write_text(
        "".join(
            json.dumps(line, ensure_ascii=system.ensure_ascii) + "\n"
            for line in system.transcript(decisions)
        )
    )
