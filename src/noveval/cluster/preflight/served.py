"""Hosted models still served, and the published numbers a retired or substituted one cannot
reproduce."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from noveval.cluster.preflight.findings import Finding, warning
from noveval.core.published import published
from noveval.core.registry import ModelSpec, Registry
from noveval.inference.engines.providers import Endpoint, Provider, provider_for

LOOKUP_TIMEOUT_S = 30


def published_cells(model: str) -> list[tuple[str, str]]:
    """The published numbers of ``model`` (noveval/core/published/*.csv): (table, cell) each."""
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


def provider_of(spec: ModelSpec, key: str) -> Provider:
    """The provider of ``spec``'s API, at its base URL (None: the SDK's default)."""
    return provider_for(Endpoint(spec.base_url, key, spec.reference, api=spec.api))


def lookup_model(spec: ModelSpec, key: str):
    """The provider's model lookup of ``spec.reference`` (the models API of its SDK: Anthropic's
    for the Messages models, OpenAI's, or an OpenAI-compatible one, for the others)."""
    with provider_of(spec, key).sync_client(LOOKUP_TIMEOUT_S, max_retries=1) as client:
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
            fix=f"`export {spec.api_key_env}=...` (README step 3)",
        )
    provider = provider_of(spec, key)
    try:
        found = lookup_model(spec, key)
    except provider.not_found() as error:
        why = f"is not served ({error})"
        return Finding(name, False, _not_reproducible(spec, why), fix=substitution_fix(spec))
    except provider.errors() as error:
        return Finding(
            name,
            False,
            f"{spec.reference}: the lookup at {spec.base_url or 'the provider'} failed "
            f"({type(error).__name__}: {error})",
            fix=f"a valid `{spec.api_key_env}` exported, and this host reaching the provider",
        )
    lifecycle = getattr(found, "lifecycle", None)
    retires = getattr(found, "retires_at", None)
    date = f" on {retires:%Y-%m-%d}" if retires else ""
    if lifecycle == "retired":
        why = _not_reproducible(spec, f"was retired{date}")
        return Finding(name, False, why, fix=substitution_fix(spec))
    if lifecycle == "deprecated":
        return Finding(name, True, f"{spec.reference} is served, deprecated: retires{date}")
    return Finding(name, True, f"{spec.reference} is served")


def _not_reproducible(spec: ModelSpec, why: str) -> str:
    return (
        f"{spec.reference} {why}; cannot be reproduced: {_cells_line(published_cells(spec.name))}"
    )


def substitution_fix(spec: ModelSpec) -> str:
    """Another model in the place of one no longer served: the config's substitution."""
    return (
        f"`judges.substitutions: {{{spec.name}: <successor>}}` in the config runs another model "
        "in its place, reported as a substitution, not like-for-like"
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
            substitution_fix(registry.model(model)),
        )
        for model, (reason, cells) in sorted(not_runnable.items())
    ]
