"""Stage judges_ai_scientist: one cell's AI-Scientist novelty checks → its verdicts and the
transcript of their rounds."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.files import write_table
from noveval.judges import instances
from noveval.judges.cells import STANDARD
from noveval.judges.verdicts import VERDICT_COLUMNS
from noveval.ledger import Spending
from noveval.registry import load_registry

log = logging.getLogger(__name__)


def ai_scientist_check(
    instances_path: str,
    cell: dict,
    registry_path: str,
    decoding: dict,
    settings: dict,
    inference: dict,
    semantic_scholar: dict,
    search_cache_dir: str,
    journal_dir: str,
    verdicts_path: str,
    transcript_path: str,
    log_path: str,
    upstream_roots: dict[str, str] | None = None,
    weights_manifests: list[str] = (),
    budget: dict | None = None,
) -> None:
    """One AI-Scientist cell: each idea's loop of ``settings['rounds']`` rounds (calls through
    the model's journal in ``journal_dir``, searches through the cached Semantic Scholar client,
    without the idea's own paper and papers after ``settings['cutoff']``), written as verdicts
    and as a transcript of every round (JSON lines).

    ``settings``: ``rounds``, ``max_tokens``, ``effort`` (the calls' reasoning effort, for a
    model that has effort levels), ``cutoff``, ``all_failed``; ``upstream_roots`` (``judges``,
    ``novelty_checker``): the upstream files in paper mode, else the builtin messages.
    """
    import json

    from noveval.engines.client import ClientSettings
    from noveval.engines.journal import Journal
    from noveval.engines.servers import serve
    from noveval.judges import ai_scientist
    from noveval.literature.semantic_scholar import from_settings
    from noveval.weights import local_weights

    table = instances.read_instances(instances_path)
    spec = load_registry(registry_path).model(cell["model"])
    prompts = (
        ai_scientist.Prompts.read(upstream_roots["novelty_checker"], upstream_roots["judges"])
        if upstream_roots
        else ai_scientist.Prompts.builtin()
    )
    call_decoding = {**decoding, "max_tokens": settings["max_tokens"]}
    if spec.effort_levels:
        call_decoding["reasoning_effort"] = settings["effort"]
    s2 = from_settings(semantic_scholar, Path(search_cache_dir))
    searchers = {
        row["instance_id"]: ai_scientist.searcher(s2, settings["cutoff"], list(row["titles"]))
        for row in table.to_dict("records")
    }
    found: dict[tuple[str, str], list[dict]] = {}

    def search(instance_id: str, query: str) -> list[dict]:
        papers = searchers[instance_id](query)
        found[(instance_id, query)] = papers
        return papers

    client_settings = ClientSettings(
        concurrency=1 if spec.engine == "llamacpp" else inference["concurrency"],
        request_timeout_s=inference["request_timeout_s"],
        max_retries=inference["max_retries"],
    )
    records = table.to_dict("records")
    probe = ai_scientist.Check(records[0]["ideas"][0], settings["rounds"]).messages(prompts)
    weights = local_weights(weights_manifests[0]) if weights_manifests else None
    job = "-".join(["judges", cell["dataset"], cell["setup"], "ai_scientist"])
    with (
        Journal(Path(journal_dir) / spec.name, job_name=job) as journal,
        serve(spec, log_path, inference["server_start_timeout_s"], 1, weights, probe) as endpoint,
    ):
        checks, calls = ai_scientist.run_checks(
            records,
            spec,
            endpoint,
            journal,
            client_settings,
            search,
            prompts,
            settings["rounds"],
            call_decoding,
            Spending.of(budget, journal_dir),
        )
    verdicts = pd.DataFrame(ai_scientist.verdict_rows(checks, calls, settings["all_failed"]))
    frame = table[["instance_id", "label"]].merge(verdicts, on="instance_id", how="left")
    for key in ("model", "setup", "change"):
        frame[key] = cell[key]
    frame["ideas"] = STANDARD  # the system judges the ideas as written
    rounds = ai_scientist.transcript(checks, calls, found)
    log.info(
        "%s: %d ideas, %d calls, %d decided, %d Semantic Scholar searches (%d requests sent, "
        "%d answered from the cache)",
        cell,
        len(frame),
        len(calls),
        sum(check.decision is not None for check in checks.values()),
        sum(row["query"] is not None for row in rounds),
        s2.requests_made,
        s2.requests_cached,
    )
    write_table(frame[VERDICT_COLUMNS], verdicts_path)
    Path(transcript_path).write_text("".join(json.dumps(row) + "\n" for row in rounds))


def run(job) -> None:
    """One job of rule judges_ai_scientist."""
    wildcards = job.wildcards
    ai_scientist_check(
        instances_path=job.input.instances,
        cell={
            "dataset": wildcards.dataset,
            "model": wildcards.model,
            "setup": wildcards.setup,
            "change": "ai_scientist",
        },
        registry_path=job.params.registry,
        decoding=job.params.decoding,
        settings=job.params.settings,
        inference=job.config["inference"],
        semantic_scholar=job.params.semantic_scholar,
        search_cache_dir=job.params.search_cache,
        journal_dir=job.params.journals,
        verdicts_path=job.output.verdicts,
        transcript_path=job.output.transcript,
        log_path=job.log[0],
        upstream_roots=job.params.upstream_roots,
        weights_manifests=list(job.input.weights),
        budget=job.config.get("budget"),
    )
