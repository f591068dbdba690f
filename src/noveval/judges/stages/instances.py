"""Rules judges_instances and judges_rewritten_instances: release YAML → instances table."""

from __future__ import annotations

from noveval.core.jobs import call_with_job
from noveval.judges import instances
from noveval.judges.authors import blocklisted


def load_instances(
    release_path: str,
    setup: str,
    format: str,
    instances_path: str,
    upstream_root: str | None = None,
    pairs_paths: list[str] = (),
) -> None:
    """Release YAML → instances table (without blocked papers where ``upstream_root`` is set;
    a pointwise file's blocked partners are found in the setup's pairwise file, the one of
    ``pairs_paths`` (none without a blocklist))."""
    table = instances.load_release(release_path, setup, format)
    pairs = [instances.load_release(path, setup, "pairwise") for path in pairs_paths]
    instances.write_instances(
        blocklisted(table, upstream_root, pairs[0] if pairs else None), instances_path
    )


def run(job) -> None:
    """One job of rule judges_instances."""
    call_with_job(load_instances, job)
