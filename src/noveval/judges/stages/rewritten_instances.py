"""Stage judges_rewritten_instances: purpose-mechanism instances (release file or LLM rewrites)."""

from __future__ import annotations

from noveval.inference.batches import read_responses
from noveval.judges import instances, rewrites
from noveval.judges.authors import blocklisted


def rewritten_instances(
    setup: str,
    format: str,
    rewritten_path: str,
    release_path: str | None = None,
    instances_path: str | None = None,
    responses_path: str | None = None,
    responses_cell: str | None = None,
    upstream_root: str | None = None,
    pairs_path: str | None = None,
) -> None:
    """Purpose-mechanism instances: the release's ``{format}_plan`` file (blocklist as
    ``load_instances``, partners from ``pairs_path``), or the LLM rewrites of the (already
    filtered) instances (cell ``responses_cell`` of the rewrite model's rewrite batch)."""
    if release_path:
        pairs = instances.load_release(pairs_path, setup, "pairwise") if pairs_path else None
        table = instances.load_release(release_path, setup, format)
        table = blocklisted(table, upstream_root, pairs)
    else:
        table = rewrites.apply_rewrites(
            instances.read_instances(instances_path), read_responses(responses_path, responses_cell)
        )
    instances.write_instances(table, rewritten_path)


def run(job) -> None:
    """One job of rule judges_rewritten_instances."""
    rewritten_instances(
        setup=job.wildcards.setup,
        format=job.wildcards.format,
        rewritten_path=job.output[0],
        release_path=job.input.get("release"),
        instances_path=job.input.get("instances"),
        responses_path=job.input.get("responses"),
        responses_cell=job.params.responses_cell,
        upstream_root=job.params.upstream_root,
        pairs_path=next(iter(job.input.get("pairs", [])), None),  # a list of one or none
    )
