"""Hosted models still served, and the published numbers a retired or substituted one cannot
reproduce."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import anthropic
import openai

from noveval.cluster.preflight.findings import Finding, warning
from noveval.core.published import published
from noveval.core.registry import ModelSpec, Registry

LOOKUP_TIMEOUT_S = 30


def published_cells(model: str) -> list[tuple[str, str]]:
    """The published numbers of ``model`` (core/published/*.csv): (table, cell) each."""
    rows = []
    for study in ("novbench", "judges"):
        table = published(study)
        rows += [(row.table, row.cell) for row in table[table["model"] == model].itertuples()]
    return rows


def _cells_line(cells: list[tuple[str, str]]) -> str:
    if not cells:
        return "no published number"
    tables = ", ".join(f"{table} {count}" for table, count in Counter(t for t, _ in cells).items())
    return f"{len(cells)} published numbers ({tables}): {'; '.join(cell for _, cell in cells)}"


def lookup_model(spec: ModelSpec, key: str):
    """The provider's model lookup of ``spec.reference`` (Anthropic's models API for the
    Messages models, OpenAI's, or an OpenAI-compatible one, for the others)."""
    if spec.api == "messages":
        client = anthropic.Anthropic(
            base_url=spec.base_url, api_key=key, timeout=LOOKUP_TIMEOUT_S, max_retries=1
        )
    else:
        client = openai.OpenAI(
            base_url=spec.base_url, api_key=key, timeout=LOOKUP_TIMEOUT_S, max_retries=1
        )
    with client:
        return client.models.retrieve(spec.reference)


def served_check(spec: ModelSpec, env: Mapping[str, str]) -> Finding:
    """A hosted model is still served: the provider's lookup knows its id and (Anthropic) its
    lifecycle is not ``retired``. A model that is not served fails, naming the published numbers
    it cannot reproduce and the config key of an explicit substitution; a deprecated one passes
    with its retirement date."""
    name = f"model {spec.name}"
    key = env.get(spec.api_key_env or "")
    if not key:
        return Finding(
            name,
            False,
            f"{spec.reference}: the lookup cannot be made: {spec.api_key_env} is not set "
            f"(registry api_key_env of {spec.name})",
        )
    try:
        found = lookup_model(spec, key)
    except (openai.NotFoundError, anthropic.NotFoundError) as error:
        why = f"is not served ({error})"
        return Finding(name, False, _not_reproducible(spec, why))
    except (openai.OpenAIError, anthropic.AnthropicError) as error:
        return Finding(
            name,
            False,
            f"{spec.reference}: the lookup at {spec.base_url} failed "
            f"({type(error).__name__}: {error}); check {spec.api_key_env} and the network",
        )
    lifecycle = getattr(found, "lifecycle", None)
    retires = getattr(found, "retires_at", None)
    date = f" on {retires:%Y-%m-%d}" if retires else ""
    if lifecycle == "retired":
        return Finding(name, False, _not_reproducible(spec, f"was retired{date}"))
    if lifecycle == "deprecated":
        return Finding(name, True, f"{spec.reference} is served, deprecated: retires{date}")
    return Finding(name, True, f"{spec.reference} is served")


def _not_reproducible(spec: ModelSpec, why: str) -> str:
    return (
        f"{spec.reference} {why}; cannot be reproduced: {_cells_line(published_cells(spec.name))}."
        f" To run another model in its place, name it in judges.substitutions "
        f"({{{spec.name}: <successor>}}): reported as a substitution, not like-for-like"
    )


def substitution_checks(substitutions: Mapping[str, str]) -> list[Finding]:
    """One line per configured substitution: the published numbers its successor stands in
    for, which the reproduction reports as not like-for-like."""
    return [
        Finding(
            f"substitution {published_model}",
            True,
            f"{successor} runs in place of {published_model}; compared not like-for-like with "
            f"{_cells_line(published_cells(published_model))}",
        )
        for published_model, successor in sorted(substitutions.items())
    ]


def not_runnable_checks(registry: Registry, not_runnable: Mapping) -> list[Finding]:
    """One line per judge of the config whose cells the grid skips (a retired model with no
    substitution): a warning, since the run goes on without them."""
    return [
        warning(
            f"model {model}",
            f"{reason}: its {cells} cells are skipped; "
            + _not_reproducible(registry.model(model), "is not served"),
        )
        for model, (reason, cells) in sorted(not_runnable.items())
    ]
