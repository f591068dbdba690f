"""The judge grid: which cells (dataset × model × format × setup × change) exist, and why not."""

from __future__ import annotations

import itertools
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from noveval.batches import CELLS, GENERATION, REWRITE, responses_path
from noveval.judges import release
from noveval.judges.instances import FORMATS, release_files
from noveval.registry import Registry, RegistryError

log = logging.getLogger(__name__)

# The authors' "idea as plan": ideas in purpose-mechanism form, from the release's
# `{format}_plan` files, else rewritten by judges.rewrite_model.
PURPOSE_MECHANISM = "purpose_mechanism"
CHANGES = (
    "reference",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "retrieval",
    "low_reasoning",
    PURPOSE_MECHANISM,
    "no_aggregation",
)
PAIRWISE_ONLY = ("P3", "P4", "P5")
DERIVED = ("no_aggregation",)  # computed from the reference run's responses: no requests
GENERATED = "generated-"  # setups whose D₋ ideas the pipeline writes: generated-{generator}
IDEATION = "ideation-"  # stronger vs weaker generator: ideation-{stronger}-vs-{weaker}
VERSUS = "-vs-"


def release_kind(format: str, change: str) -> str:
    """The release file a cell reads: the authors name the purpose-mechanism form's files
    ``{format}_plan.yaml`` (release kinds ``pointwise_plan``, ``pairwise_plan``)."""
    return f"{format}_plan" if change == PURPOSE_MECHANISM else format


def ideation_setup_name(stronger: str, weaker: str) -> str:
    return f"{IDEATION}{stronger}{VERSUS}{weaker}"


@dataclass(frozen=True)
class JudgeCell:
    dataset: str
    model: str
    format: str
    setup: str
    change: str

    def folder(self, results: str) -> str:
        return (
            f"{results}/judges/{self.dataset}/{self.model}/{self.format}/{self.setup}/{self.change}"
        )


@dataclass(frozen=True)
class JudgesGrid:
    cells: tuple[JudgeCell, ...]
    datasets: dict[str, dict[str, dict[str, str]]]  # dataset → setup → release kind → file
    omitted: tuple[str, ...]
    motivation: dict  # {model, changes}: the judge and the two prompts of the motivating figure
    rewrite_model: str | None = None  # writes the purpose-mechanism form where no release file
    base_setup: str | None = None  # whose D₊ ideas the generated setups pair with generated D₋
    comparisons: tuple[tuple[str, str], ...] = ()  # ideation systems: (stronger, weaker)
    releases: dict[str, list[release.ReleaseFile]] = field(default_factory=dict)  # downloads
    substitutes: dict[str, str] = field(default_factory=dict)  # successor → the model it replaces

    def release_download(self, dataset: str, path: str) -> release.ReleaseFile:
        """The declared release file ``path`` of ``dataset`` (rule judges_download)."""
        for file in self.releases.get(dataset, []):
            if file.path == path:
                return file
        raise ValueError(f"judges dataset '{dataset}': the release declares no file {path}")

    def release_setups(self) -> str:
        """Regex of the setups read from release files (rule judges_instances)."""
        names = sorted({setup for files in self.datasets.values() for setup in files})
        return "|".join(map(re.escape, names)) or "(?!)"

    def request_inputs(self, results: str, wildcards) -> dict[str, str]:
        """A cell's instances (rewritten ones for purpose_mechanism) and, for 'retrieval', its
        related work."""
        base = f"{results}/judges/{wildcards.dataset}/{wildcards.format}/{wildcards.setup}"
        suffix = f"-{PURPOSE_MECHANISM}" if wildcards.change == PURPOSE_MECHANISM else ""
        inputs = {"instances": f"{base}/instances{suffix}.parquet"}
        if wildcards.change == "retrieval":
            inputs["related"] = f"{base}/related.parquet"
        return inputs

    def rewritten_source(self, results: str, wildcards) -> dict[str, str]:
        """Inputs of a setup's purpose-mechanism instances: the release's file, else the
        rewrite model's answers."""
        kind = release_kind(wildcards.format, PURPOSE_MECHANISM)
        files = self.datasets[wildcards.dataset].get(wildcards.setup, {})
        if kind in files:
            return {"release": files[kind]}
        base = f"{results}/judges/{wildcards.dataset}"
        return {
            "instances": f"{base}/{wildcards.format}/{wildcards.setup}/instances.parquet",
            "responses": responses_path(
                results, "judges", wildcards.dataset, self.rewrite_model, REWRITE
            ),
        }

    def rewrites(self, dataset: str) -> list[tuple[str, str]]:
        """The (format, setup) pairs whose purpose-mechanism form the rewrite model writes (no
        release file)."""
        pairs = {
            (cell.format, cell.setup)
            for cell in self.cells
            if cell.dataset == dataset
            and cell.change == PURPOSE_MECHANISM
            and release_kind(cell.format, cell.change)
            not in self.datasets[dataset].get(cell.setup, {})
        }
        return sorted(pairs)

    def generators(self, dataset: str | None = None) -> list[str]:
        """The models whose generated ideas some setup (of ``dataset``) pairs or compares."""
        names = []
        for cell in self.cells:
            if dataset not in (None, cell.dataset):
                continue
            if cell.setup.startswith(GENERATED):
                names.append(cell.setup.removeprefix(GENERATED))
            elif cell.setup.startswith(IDEATION):
                names += cell.setup.removeprefix(IDEATION).split(VERSUS)
        return list(dict.fromkeys(names))

    def batch_requests(self, results: str, dataset: str, model: str, batch: str) -> list[str]:
        """The requests tables one inference job of ``model`` on ``dataset`` answers: its judge
        cells, its generated ideas, or its rewrites."""
        folder = f"{results}/judges/{dataset}/{model}"
        if batch == GENERATION:
            return [f"{folder}/{GENERATION}/{self.base_setup}/requests.parquet"]
        if batch == REWRITE:
            return [
                f"{folder}/{format}/{setup}/{REWRITE}/requests.parquet"
                for format, setup in self.rewrites(dataset)
            ]
        if batch != CELLS:
            raise ValueError(f"judges have no inference batch '{batch}'")
        return [
            f"{cell.folder(results)}/requests.parquet"
            for cell in self.cells
            if cell.dataset == dataset and cell.model == model and cell.change not in DERIVED
        ]

    def batches(self) -> list[tuple[str, str, str]]:
        """Every inference job as (dataset, model, batch)."""
        jobs = dict.fromkeys(
            (cell.dataset, cell.model, CELLS) for cell in self.cells if cell.change not in DERIVED
        )
        for dataset in self.datasets:
            if self.rewrites(dataset):
                jobs[(dataset, self.rewrite_model, REWRITE)] = None
            for generator in self.generators(dataset):
                jobs[(dataset, generator, GENERATION)] = None
        return list(jobs)

    def generated_ideas(self, results: str, dataset: str, generator: str) -> str:
        """The responses table holding a generator's ideas (its generation batch)."""
        return responses_path(results, "judges", dataset, generator, GENERATION)

    def generation_cell(self) -> str:
        return f"{GENERATION}/{self.base_setup}"

    def release_file(self, dataset: str, setup: str, kind: str) -> str:
        """The release YAML of one setup and kind (see ``release_kind``)."""
        return self.datasets[dataset][setup][kind]

    def blocklist_pairs(self, wildcards, change: str = "reference") -> list[str]:
        """The pairwise release file in which a pointwise release file's blocked partners are
        found (the purpose-mechanism form's in ``pairwise_plan``); none for a pairwise file, for
        a form the release lacks, or where the release has no such pairwise file."""
        files = self.datasets[wildcards.dataset].get(wildcards.setup, {})
        if wildcards.format != "pointwise" or release_kind("pointwise", change) not in files:
            return []
        pairs = files.get(release_kind("pairwise", change))
        return [pairs] if pairs else []

    def formats(self, dataset: str) -> list[str]:
        return [
            f for f in FORMATS if any(c.dataset == dataset and c.format == f for c in self.cells)
        ]

    def on_disk(self) -> list[str]:
        """The release files already on disk (the compute plan reads them)."""
        paths = {
            path
            for setups in self.datasets.values()
            for kinds in setups.values()
            for path in kinds.values()
        }
        return sorted(path for path in paths if Path(path).is_file())

    def metrics_paths(self, results: str, dataset: str) -> list[str]:
        """The metrics tables of every format a dataset's cells have."""
        return [
            f"{results}/judges/{dataset}/{format}/metrics.parquet"
            for format in self.formats(dataset)
        ]

    def verdict_paths(self, results: str, dataset: str, format: str) -> list[str]:
        return [
            f"{cell.folder(results)}/verdicts.parquet"
            for cell in self.cells
            if cell.dataset == dataset and cell.format == format
        ]

    def models_used(self) -> set[str]:
        used = {cell.model for cell in self.cells} | set(self.generators())
        if self.rewrite_model and any(cell.change == PURPOSE_MECHANISM for cell in self.cells):
            used.add(self.rewrite_model)
        return used

    def responses(self, results: str, wildcards) -> str:
        """The responses table a cell's verdicts come from (its model's batch)."""
        return responses_path(results, "judges", wildcards.dataset, wildcards.model, CELLS)

    @staticmethod
    def response_cell(wildcards) -> str:
        """The cell whose responses a cell's verdicts read: no aggregation reads the reference
        run's."""
        source = "reference" if wildcards.change in DERIVED else wildcards.change
        return f"{wildcards.format}/{wildcards.setup}/{source}"

    def outputs(self, results: str) -> list[str]:
        """Everything the ``judges`` target builds: metrics, tables and figures per dataset."""
        paths = [file.local for files in self.releases.values() for file in files]
        for dataset in self.datasets:
            formats = self.formats(dataset)
            for format in formats:
                paths += [
                    f"{results}/judges/{dataset}/{format}/{name}"
                    for name in ("metrics.csv", "tables.md")
                ]
            if formats:
                paths += [
                    f"{results}/judges/{dataset}/{name}"
                    for name in ("cost_quality.png", "d_minus_sources.png")
                ]
            if "pairwise" in formats and self.motivation["model"]:
                paths.append(f"{results}/judges/{dataset}/motivation.png")
            if any(c.dataset == dataset and c.setup.startswith(IDEATION) for c in self.cells):
                paths.append(f"{results}/judges/{dataset}/ideation.md")
        return paths


def judges_grid(config: dict, registry: Registry) -> JudgesGrid:
    """Expand the config's ``judges`` section into cells, logging every omitted one."""
    section = config["judges"]
    changes = list(section["changes"])
    if changes and "reference" not in changes:
        raise ValueError("judges.changes: every change is measured against 'reference'; add it")
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
    corpus = section["retrieval"]["corpus"]
    entries = {  # an overlay drops a dataset of the default with null
        name: entry for name, entry in section["datasets"].items() if entry is not None
    }
    downloads = f"{config['results']}/downloads/judges"
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
        for (setup, formats), model, format, change in itertools.product(
            formats_of.items(), specs, FORMATS, changes
        ):
            files = setups.get(setup, {})
            if format not in formats:
                continue
            where = f"judges/{dataset}/{model}/{format}/{setup}/{change}"
            kind = release_kind(format, change)
            reason = None
            if change in PAIRWISE_ONLY and format != "pairwise":
                continue  # by design, not an omission
            if change == "low_reasoning" and "low" not in specs[model].effort_levels:
                reason = "the model exposes no reasoning effort 'low' (registry effort_levels)"
            elif change == PURPOSE_MECHANISM and not rewrite_model and kind not in files:
                reason = f"no {kind}.yaml in the release and no rewrite_model to write the form"
            elif change == "retrieval" and not corpus:
                reason = "no related work: no retrieval corpus is configured"
            if reason:
                omitted.append(f"{where}: left out, {reason}")
                why.append((change, reason))
                continue
            cells.append(JudgeCell(dataset, model, format, setup, change))
    for (change, reason), count in Counter(why).items():
        log.warning("judges: %d '%s' cell(s) left out: %s", count, change, reason)
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
    )


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
