"""Stage novbench_requests: the chat requests of one grid cell."""

from __future__ import annotations

import logging

from noveval.core.jobs import call_with_job
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
    weights_paths: list[str] = (),
    source_roots: dict[str, str] | None = None,
) -> None:
    """Chat requests of one grid cell (``settings['prompts']``: builtin or authors;
    ``weights_paths``: the open model's weights manifest, whose generation config paper mode
    follows)."""
    spec = target.spec()
    generation_config = generation_config_of(weights_paths)
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
    call_with_job(generation_requests, job, target=RequestsTarget.of_job(job))
