"""Rules judges_instances and judges_rewritten_instances: release YAML → instances table."""

from __future__ import annotations

from noveval.judges import instances
from noveval.judges.authors import blocklisted


def load_instances(
    release_path: str,
    setup: str,
    format: str,
    instances_path: str,
    upstream_root: str | None = None,
    pairs_path: str | None = None,
) -> None:
    """Release YAML → instances table (without blocked papers where ``upstream_root`` is set;
    a pointwise file's blocked partners are found in the setup's pairwise file ``pairs_path``)."""
    table = instances.load_release(release_path, setup, format)
    pairs = instances.load_release(pairs_path, setup, "pairwise") if pairs_path else None
    instances.write_instances(blocklisted(table, upstream_root, pairs), instances_path)


def run(job) -> None:
    """One job of rule judges_instances."""
    load_instances(
        job.input.release,
        job.wildcards.setup,
        job.wildcards.format,
        job.output[0],
        upstream_root=job.params.upstream_root,
        pairs_path=next(iter(job.input.get("pairs", [])), None),  # a list of one or none
    )
