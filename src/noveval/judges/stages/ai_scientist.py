"""Stage judges_ai_scientist: one cell's AI-Scientist novelty checks → its verdicts and the
transcript of their rounds."""

from __future__ import annotations

from noveval.core.jobs import call_with_job
from noveval.judges.grid.cells import STANDARD
from noveval.judges.systems.ai_scientist import AIScientist, Prompts
from noveval.judges.systems.base import run_system


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
    weights_paths: list[str] = (),
    budget: dict | None = None,
) -> None:
    """One AI-Scientist cell (``cell``: dataset, model, setup, change): each idea's loop of
    ``settings['rounds']`` rounds, written as verdicts and as a transcript of every round (JSON
    lines), through the dedicated judges' runner (``noveval.judges.systems.base.run_system``).

    ``settings``: ``rounds``, ``max_tokens``, ``effort`` (the calls' reasoning effort, for a
    model that has effort levels), ``cutoff``, ``all_failed``; ``upstream_roots`` (``judges``,
    ``novelty_checker``): the upstream files in paper mode, else the builtin messages.
    """
    prompts = (
        Prompts.read(upstream_roots["novelty_checker"], upstream_roots["judges"])
        if upstream_roots
        else Prompts.builtin()
    )
    run_system(
        AIScientist(cell, prompts, settings, decoding),
        {**cell, "ideas": STANDARD},  # the system judges the ideas as written
        instances_path,
        registry_path,
        journal_dir,
        inference,
        semantic_scholar,
        search_cache_dir,
        verdicts_path,
        transcript_path,
        log_path,
        settings["all_failed"],
        weights_paths,
        budget,
    )


def run(job) -> None:
    """One job of rule judges_ai_scientist."""
    wildcards = job.wildcards
    call_with_job(
        ai_scientist_check,
        job,
        cell={
            "dataset": wildcards.dataset,
            "model": wildcards.model,
            "setup": wildcards.setup,
            "change": "ai_scientist",
        },
        inference=job.config["inference"],
        log_path=job.log[0],
        budget=job.config.get("budget"),
    )
