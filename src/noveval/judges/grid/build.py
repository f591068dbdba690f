"""The judge grid built from a config: which cells (dataset × model × format × setup × ideas ×
change) exist, and why not."""

from __future__ import annotations

import itertools
import logging
from collections import Counter

from noveval.core.registry import Registry, RegistryError
from noveval.judges import release
from noveval.judges.cards.judge import CUE_FORMATS, REFERENCE_WORDING, custom_judges
from noveval.judges.grid.cells import (
    GENERATED,
    PAIRWISE_ONLY,
    PURPOSE_MECHANISM,
    SEMANTIC_SCHOLAR,
    STANDARD,
    SYSTEM_APIS,
    SYSTEM_FORMAT,
    VERSUS,
    CustomCell,
    JudgeCell,
    change_label,
    configured_kinds,
    ideation_setup_name,
    release_kind,
)
from noveval.judges.grid.inputs import JudgesGrid
from noveval.judges.instances import FORMATS, release_files
from noveval.judges.layout import downloads_folder

log = logging.getLogger(__name__)


def judges_grid(config: dict, registry: Registry) -> JudgesGrid:
    """Expand the config's ``judges`` section into cells, logging every omitted one."""
    section = config["judges"]
    kinds = configured_kinds(section)  # (change, form of the ideas)
    if kinds and "reference" not in section["changes"]:
        raise ValueError("judges.changes: every change is measured against 'reference'; add it")
    judges = custom_judges(section, registry)  # every custom judge checked before any job
    substitutions = section.get("substitutions") or {}
    specs = {
        name: registry.model(name)
        for name in substituted(section["models"], substitutions, registry)
    }
    rewrite_model = section["rewrite_model"]
    if rewrite_model:
        registry.model(rewrite_model)
    if section["structured_output"] and section["prompts"] == "builtin":
        unable = [
            m
            for m in [*specs, *([rewrite_model] if rewrite_model else [])]
            if not registry.model(m).structured_output
        ]
        if unable:
            raise ValueError(
                f"judges.structured_output: {', '.join(unable)} take no output schema "
                "(registry structured_output: false); set judges.structured_output: false"
            )
    retrieval = section["retrieval"]
    corpus = retrieval["corpus"]
    searched = retrieval.get("search") == SEMANTIC_SCHOLAR
    search_model = retrieval.get("model") if searched else None
    if search_model:
        registry.model(search_model)
    entries = {  # an overlay drops a dataset of the default with null
        name: entry for name, entry in section["datasets"].items() if entry is not None
    }
    downloads = downloads_folder(config["results"])
    datasets = {name: release_files(entry, name, downloads) for name, entry in entries.items()}
    releases = {
        name: release.release_files(name, entry, downloads)
        for name, entry in entries.items()
        if release.is_declaration(entry)
    }
    generation = section["generation"]
    comparisons = tuple((pair["stronger"], pair["weaker"]) for pair in generation["comparisons"])
    for name in [*generation["generators"], *(m for pair in comparisons for m in pair)]:
        registry.model(name)
        if VERSUS in name:
            raise ValueError(f"judges.generation: model name '{name}' may not contain '{VERSUS}'")
    cells, omitted, why = [], [], []
    for dataset, setups in datasets.items():
        formats_of = {setup: [f for f in FORMATS if f in files] for setup, files in setups.items()}
        if "pairwise" in setups.get(generation["base_setup"], {}):
            for name in generation["generators"]:
                formats_of[f"{GENERATED}{name}"] = list(FORMATS)
            for stronger, weaker in comparisons:
                formats_of[ideation_setup_name(stronger, weaker)] = ["pairwise"]
        for (setup, formats), model, format, (change, ideas) in itertools.product(
            formats_of.items(), specs, FORMATS, kinds
        ):
            files = setups.get(setup, {})
            if format not in formats:
                continue
            where = f"judges/{dataset}/{model}/{format}/{setup}/{ideas}/{change}"
            kind = release_kind(format, ideas)
            reason = None
            if change in PAIRWISE_ONLY and format != "pairwise":
                continue  # by design, not an omission
            if change == "low_reasoning" and "low" not in specs[model].effort_levels:
                reason = "the model exposes no reasoning effort 'low' (registry effort_levels)"
            elif ideas == PURPOSE_MECHANISM and not rewrite_model and kind not in files:
                reason = f"no {kind}.yaml in the release and no rewrite_model to write the form"
            elif change == "retrieval" and searched:
                if not search_model:
                    reason = "no judges.retrieval.model writes the literature search's queries"
            elif change == "retrieval" and not corpus:
                reason = "no related work: no retrieval corpus is configured"
            if not reason and specs[model].not_runnable:  # it would run but for its model
                reason = f"{specs[model].not_runnable} (judges.substitutions names none)"
            if reason:
                omitted.append(f"{where}: left out, {reason}")
                why.append((change_label(change, ideas), reason))
                continue
            cells.append(JudgeCell(dataset, model, format, setup, ideas, change))
    cells += system_cells(section.get("systems") or {}, datasets, registry, omitted)
    for (change, reason), count in Counter(why).items():
        log.warning("judges: %d '%s' cell(s) left out: %s", count, change, reason)
    not_runnable = {
        name: (spec.not_runnable, sum(f"/{name}/" in w and spec.not_runnable in w for w in omitted))
        for name, spec in {name: registry.model(name) for name in section_models(section)}.items()
        if spec.not_runnable and name not in substitutions
    }
    motivation = dict(section["motivation"])
    motivation.setdefault("model", min(specs, default=None))  # the first judge by name
    motivation["model"] = substitutions.get(motivation["model"], motivation["model"])
    return JudgesGrid(
        tuple(cells),
        datasets,
        tuple(omitted),
        motivation,
        rewrite_model,
        generation["base_setup"],
        comparisons,
        releases,
        {successor: model for model, successor in substitutions.items()},
        search_model,
        not_runnable,
        custom_cells(judges, datasets, bool(rewrite_model)),
        {name: judge.calls for name, judge in judges.items()},
    )


def custom_cells(judges: dict, datasets: dict, rewrites: bool) -> tuple[CustomCell, ...]:
    """Each custom judge's cells on every release setup of its formats: its own wording and each
    variant as configured, and its own wording under each of its changes (the reviewers' cue on
    pairs only; the purpose-mechanism form where the release has it or ``rewrites``)."""
    cells = []
    for name, judge in judges.items():
        for dataset, setups in datasets.items():
            for setup, kinds in setups.items():
                for format in (f for f in judge.formats if f in kinds):
                    kinds_of = [
                        (w, STANDARD, "reference")
                        for w in judge.wordings
                        if format in judge.templates[w]
                    ]
                    for change in judge.changes:
                        if change == "reviewers_cue" and format not in CUE_FORMATS:
                            continue
                        if change != PURPOSE_MECHANISM:
                            kinds_of.append((REFERENCE_WORDING, STANDARD, change))
                        elif rewrites or release_kind(format, PURPOSE_MECHANISM) in kinds:
                            kinds_of.append((REFERENCE_WORDING, PURPOSE_MECHANISM, "reference"))
                    cells += [
                        CustomCell(dataset, name, judge.model, format, setup, ideas, wording, c)
                        for wording, ideas, c in kinds_of
                    ]
    return tuple(cells)


def section_models(section: dict) -> list[str]:
    """The judges a ``judges`` section names: its backbones, then its systems' backbones."""
    return list(dict.fromkeys([*section["models"], *system_models(section)]))


def system_models(section: dict) -> list[str]:
    """The backbones of a ``judges`` section's systems, each once."""
    systems = (section.get("systems") or {}).values()
    return list(dict.fromkeys(model for entry in systems for model in entry["models"]))


def system_cells(
    systems: dict[str, dict],
    datasets: dict[str, dict[str, dict[str, str]]],
    registry,
    omitted: list[str],
) -> list[JudgeCell]:
    """The cells of ``judges.systems`` (system → ``models``, optional ``setups``): each backbone
    on the pointwise file of each of the system's release setups (default: all); a backbone that
    is not runnable (retired) is left out, its cells added to ``omitted``."""
    cells = []
    for system, entry in systems.items():
        wanted = entry.get("setups")
        for dataset, setups in datasets.items():
            unknown = sorted(set(wanted or []) - set(setups))
            if unknown:
                raise ValueError(
                    f"judges.systems.{system}.setups: {', '.join(unknown)} not among the "
                    f"setups of judges dataset '{dataset}' ({', '.join(sorted(setups))})"
                )
        for model in entry["models"]:
            try:
                spec = registry.model(model)
            except RegistryError as error:
                raise ValueError(f"judges.systems.{system}: {error}") from None
            api = SYSTEM_APIS.get(system)
            if api and spec.api != api:
                raise ValueError(
                    f"judges.systems.{system}: {model} speaks the {spec.api} API; the system "
                    f"needs a model of the {api} API"
                )
            effort = entry.get("effort")
            if effort and spec.effort_levels and effort not in spec.effort_levels:
                raise ValueError(
                    f"judges.systems.{system}.effort: {model} has no reasoning effort '{effort}' "
                    f"(registry effort_levels: {', '.join(spec.effort_levels)})"
                )
            found = [
                JudgeCell(dataset, model, SYSTEM_FORMAT, setup, STANDARD, system)
                for dataset, setups in datasets.items()
                for setup, files in setups.items()
                if SYSTEM_FORMAT in files and (wanted is None or setup in wanted)
            ]
            if spec.not_runnable:
                omitted += [
                    f"judges/{c.dataset}/{model}/{c.format}/{c.setup}/{c.ideas}/{system}: "
                    f"left out, {spec.not_runnable}"
                    for c in found
                ]
                log.warning(
                    "judges: %d %s cell(s) of %s left out: %s",
                    len(found),
                    system,
                    model,
                    spec.not_runnable,
                )
                continue
            cells += found
    return cells


def substituted(models: list[str], substitutions: dict[str, str], registry: Registry) -> list[str]:
    """The judges that run: ``models`` with each model of ``substitutions`` (judges.substitutions:
    a retired model → the registry model run in its place) replaced, logged as a substitution."""
    stray = sorted(set(substitutions) - set(models))
    if stray:
        raise ValueError(f"judges.substitutions: {', '.join(stray)} not among judges.models")
    for model, successor in substitutions.items():
        try:
            registry.model(successor)
        except RegistryError as error:
            raise ValueError(f"judges.substitutions.{model}: {error}") from None
        if successor in models:
            raise ValueError(
                f"judges.substitutions.{model}: {successor} is a judge of the grid already"
            )
        log.warning(
            "judges: %s runs in place of %s (judges.substitutions): its published numbers are "
            "compared not like-for-like",
            successor,
            model,
        )
    return [substitutions.get(model, model) for model in models]
