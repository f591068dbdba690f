"""Stage judges_novelty_checker: the Idea Novelty Checker on one cell's pointwise ideas → its
verdicts and each idea's transcript (JSON lines)."""

from __future__ import annotations

from noveval.judges.grid.cells import STANDARD
from noveval.judges.systems.base import run_system
from noveval.judges.systems.novelty_checker.checker import NoveltyChecker
from noveval.judges.systems.novelty_checker.prompts import load_prompts, upstream_root


def run(job) -> None:
    """One job of rule judges_novelty_checker. The encoder (``settings['encoder']``) loads from
    its snapshot of the rule's weights when it is a hub encoder; paper mode renders the prompts
    from the upstream files, else the builtin messages."""
    from noveval.inference.weights import use_offline

    located = use_offline(list(job.input.weights))
    from noveval.core.registry import load_registry
    from noveval.inference.encoders import SentenceEncoder

    settings, literature, model = job.params.settings, job.params.literature, job.wildcards.model
    reference = load_registry(job.params.registry).encoder(settings["encoder"])
    checker_root = upstream_root(job.input.upstream[0]) if job.params.paper_mode else None
    system = NoveltyChecker(
        model,
        job.wildcards.setup,
        load_prompts(checker_root, settings),
        settings,
        literature["cutoff"],
        SentenceEncoder(located.get(reference, reference)).encode,
    )
    run_system(
        system,
        {
            "model": model,
            "setup": job.wildcards.setup,
            "ideas": STANDARD,
            "change": "novelty_checker",
        },
        instances_path=job.input.instances,
        registry_path=job.params.registry,
        journal_dir=job.params.cache,
        inference=job.params.inference,
        semantic_scholar=literature["semantic_scholar"],
        search_cache_dir=literature["cache_dir"],
        verdicts_path=job.output.verdicts,
        transcript_path=job.output.transcript,
        log_path=job.log[0],
        all_failed=job.params.all_failed,
        budget=job.config.get("budget"),
    )
