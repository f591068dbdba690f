"""Stage judges_scideator: the Idea Novelty Checker on one cell's pointwise ideas."""

from __future__ import annotations

from noveval.judges import scideator
from noveval.judges.cells import STANDARD
from noveval.judges.scideator_prompts import upstream_root


def run(job) -> None:
    """One job of rule judges_scideator."""
    wildcards = job.wildcards
    scideator.judge_cell(
        instances_path=job.input.instances,
        verdicts_path=job.output.verdicts,
        transcript_path=job.output.transcript,
        cell={
            "model": wildcards.model,
            "setup": wildcards.setup,
            "ideas": STANDARD,
            "change": "scideator",
        },
        registry_path=job.params.registry,
        cache_dir=job.params.cache,
        inference=job.params.inference,
        settings=job.params.settings,
        literature=job.params.literature,
        checker_root=(upstream_root(job.input.upstream[0]) if job.params.pinned else None),
        log_path=job.log[0],
        all_failed=job.params.all_failed,
        weights_manifests=list(job.input.weights),
        budget=job.config.get("budget"),
    )
