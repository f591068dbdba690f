"""Stage novbench_requests: the chat requests of one grid cell."""

from __future__ import annotations

import logging

from noveval.inference.requests import RequestsTarget, write_requests
from noveval.novbench import generation, records
from noveval.novbench.decoding import generation_config_of

log = logging.getLogger(__name__)


def generation_requests(
    target: RequestsTarget,
    inputs_path: str,
    papers_path: str,
    strategy: str,
    settings: dict,
    upstream_root: str | None = None,
    weights_manifests: list[str] = (),
    source_roots: dict[str, str] | None = None,
) -> None:
    """Chat requests of one grid cell (``settings['prompts']``: builtin or authors;
    ``weights_manifests``: the open model's, whose generation config paper mode follows)."""
    spec = target.spec()
    generation_config = generation_config_of(weights_manifests)
    if generation_config is not None:
        log.info("%s: generation_config.json %s", target.model, generation_config)
    rows = generation.generation_requests(
        inputs=records.read_papers(inputs_path),
        pool=records.read_papers(papers_path),
        strategy=strategy,
        spec=spec,
        decoding=target.decoding,
        settings=settings,
        prompts=settings["prompts"],
        upstream_root=upstream_root,
        generation_config=generation_config,
        source_roots=source_roots,
    )
    write_requests(rows, target.requests_path, log, f"{target.model}/{strategy}")


def run(job) -> None:
    """One job of rule novbench_requests."""
    generation_requests(
        RequestsTarget.of_job(job),
        inputs_path=job.input.inputs,
        papers_path=job.input.papers,
        strategy=job.wildcards.strategy,
        settings=job.params.settings,
        upstream_root=job.params.upstream_root,
        weights_manifests=list(job.input.weights),
        source_roots=dict(job.params.source_roots),
    )
