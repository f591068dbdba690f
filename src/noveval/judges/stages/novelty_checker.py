"""Stage judges_novelty_checker: the Idea Novelty Checker on one cell's pointwise ideas."""

from __future__ import annotations

from noveval.judges import novelty_checker
from noveval.judges.cells import STANDARD
from noveval.judges.novelty_checker_prompts import upstream_root


def run(job) -> None:
    """One job of rule judges_novelty_checker."""
    wildcards = job.wildcards
    novelty_checker.judge_cell(
        instances_path=job.input.instances,
        verdicts_path=job.output.verdicts,
        transcript_path=job.output.transcript,
        cell={
            "model": wildcards.model,
            "setup": wildcards.setup,
            "ideas": STANDARD,
            "change": "novelty_checker",
        },
        registry_path=job.params.registry,
        cache_dir=job.params.cache,
        inference=job.params.inference,
        settings=job.params.settings,
        literature=job.params.literature,
        checker_root=(upstream_root(job.input.upstream[0]) if job.params.paper_mode else None),
        log_path=job.log[0],
        all_failed=job.params.all_failed,
        weights_manifests=list(job.input.weights),
        budget=job.config.get("budget"),
    )
