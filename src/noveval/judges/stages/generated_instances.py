"""Stage judges_generated_instances: the generated setup's pairwise and pointwise instances."""

from __future__ import annotations

from noveval.core.jobs import call_with_job
from noveval.inference.batches import read_responses
from noveval.judges import generation, instances
from noveval.judges.authors import blocklisted


def generated_instances(
    pairs_path: str,
    responses_path: str,
    responses_cell: str,
    setup: str,
    pairwise_path: str,
    pointwise_path: str,
    upstream_root: str | None = None,
) -> None:
    """The generated setup's pairwise and pointwise instances (blocklist as ``load_instances``)."""
    pairwise, pointwise = generation.generated_setup(
        instances.read_instances(pairs_path), read_responses(responses_path, responses_cell), setup
    )
    instances.write_instances(blocklisted(pairwise, upstream_root), pairwise_path)
    instances.write_instances(blocklisted(pointwise, upstream_root, pairwise), pointwise_path)


def run(job) -> None:
    """One job of rule judges_generated_instances."""
    call_with_job(generated_instances, job, setup=f"generated-{job.wildcards.generator}")
