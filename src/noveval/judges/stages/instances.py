"""The judges' instance stages: a release's instances (blocklist applied), the generated D₋ ideas
and ideation pairs, and the ideas rewritten in purpose-mechanism form.

The modules that load torch, scipy or matplotlib are imported by the steps that use them: each
job is a fresh process, importing them takes seconds, and most jobs need none of them.
"""

from __future__ import annotations

import logging

import pandas as pd

from noveval.batches import read_responses
from noveval.files import write_table
from noveval.judges import generation, instances, rewrites
from noveval.judges.authors import apply_blocklist, blocked_titles
from noveval.judges.cells import ideation_setup_name
from noveval.registry import load_registry

log = logging.getLogger(__name__)


def blocklisted(
    table: pd.DataFrame, upstream_root: str | None, pairs: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``table`` without the authors' blocked papers and partners (``upstream_root``: their
    blocklist's folder, None keeps every instance; ``pairs``: the pairwise instances a pointwise
    table's partners are found in, by text)."""
    if not upstream_root:
        return table
    kept = apply_blocklist(table, blocked_titles(upstream_root), pairs)
    log.info("blocklist: %d of %d instances removed", len(table) - len(kept), len(table))
    return kept


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


def generation_requests(
    pairs_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    max_tokens: int,
    requests_path: str,
) -> None:
    """One generated D₋ idea per pair of the base setup, from its primary area only."""
    spec = load_registry(registry_path).model(model)
    rows = generation.generation_requests(
        instances.read_instances(pairs_path), spec, {**decoding, "max_tokens": max_tokens}
    )
    log.info("%s: %d ideas to generate", model, len(rows))
    write_table(rows, requests_path)


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


def ideation_instances(
    pairs_path: str,
    stronger: tuple[str, str],
    weaker: tuple[str, str],
    responses_cell: str,
    instances_path: str,
) -> None:
    """Pairwise instances of a stronger vs a weaker generator ((model, responses path) each;
    ``responses_cell``: the generation cell of both)."""
    model, responses = stronger
    other, other_responses = weaker
    table = generation.ideation_setup(
        instances.read_instances(pairs_path),
        (model, read_responses(responses, responses_cell)),
        (other, read_responses(other_responses, responses_cell)),
        ideation_setup_name(model, other),
    )
    instances.write_instances(table, instances_path)


def rewrite_requests(
    instances_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
) -> None:
    """One rewrite request per idea: the purpose-mechanism form of a setup's ideas."""
    spec = load_registry(registry_path).model(model)
    table = instances.read_instances(instances_path)
    rows = rewrites.rewrite_requests(
        table,
        spec,
        {**decoding, "max_tokens": settings["rewrite_max_tokens"]},
        settings["structured_output"],
    )
    log.info("%s: %d rewrites", model, len(rows))
    write_table(rows, requests_path)


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
