"""The judge grid: which cells (dataset × model × format × setup × change) exist, and why not."""

from __future__ import annotations

import functools
import itertools
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from noveval.batches import (
    CELLS,
    GENERATION,
    REWRITE,
    SEARCH_CONTRIBUTIONS,
    SEARCH_QUERIES,
    responses_path,
)
from noveval.judges import release
from noveval.judges.instances import FORMATS, release_files
from noveval.judges.prompts import SYSTEMS, calls_of
from noveval.registry import Registry, RegistryError

log = logging.getLogger(__name__)

# The form of the ideas a cell judges: the release's ideas as written (standard), or the authors'
# "idea as plan", in purpose-mechanism form (the release's `{format}_plan` files, else rewritten by
# judges.rewrite_model).
STANDARD = "standard"
PURPOSE_MECHANISM = "purpose_mechanism"
IDEA_FORMATS = (STANDARD, PURPOSE_MECHANISM)
CONTROLLED = (  # judges.changes: the reference and the controlled changes to it
    "reference",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "retrieval",
    "low_reasoning",
    "no_aggregation",
)
# judges.idea_formats: the changes another idea format takes (related work is retrieved for the
# standard ideas only)
ON_OTHER_FORMATS = tuple(change for change in CONTROLLED if change != "retrieval")
# judges.systems: judges built for novelty, each run on its backbones (its cells' change name is
# the system's): the agentic judge searches the web through the Responses API's hosted tool.
SYSTEM_APIS = {"agentic": "responses"}  # the API a system's backbone must speak
SYSTEM_FORMAT = "pointwise"  # the authors ran the systems on the pointwise files
OWN_RULE = ("scideator",)  # systems judged by a rule of their own: no requests, no inference batch
PAIRWISE_ONLY = ("P3", "P4", "P5")
DERIVED = ("no_aggregation",)  # computed from the reference run's responses: no requests
# systems whose calls depend on earlier answers: run round by round by their own rule
# (judges_ai_scientist), never in an inference batch
LOOPED = ("ai_scientist",)
GENERATED = "generated-"  # setups whose D₋ ideas the pipeline writes: generated-{generator}
IDEATION = "ideation-"  # stronger vs weaker generator: ideation-{stronger}-vs-{weaker}
VERSUS = "-vs-"
SEMANTIC_SCHOLAR = "semantic_scholar"  # judges.retrieval.search: the authors' assisted search
SEARCH_STEPS = (SEARCH_CONTRIBUTIONS, SEARCH_QUERIES)
EXPERT_ANNOTATIONS = "expert-annotations/judge_errors.csv"  # a release file: the expert study
FORMAT_SEPARATOR = "+"


def cell_change(change: str, idea_format: str = STANDARD) -> str:
    """A cell's change name (its folder, its rows in the tables): the change itself on standard
    ideas; on another idea format, the format's name for the reference prompt
    (``purpose_mechanism``) and ``{change}+{format}`` for the others (``P3+purpose_mechanism``)."""
    if idea_format == STANDARD:
        return change
    return idea_format if change == "reference" else f"{change}{FORMAT_SEPARATOR}{idea_format}"


def split_change(name: str) -> tuple[str, str]:
    """``cell_change`` backwards: (change, idea format)."""
    if name in IDEA_FORMATS:
        return "reference", name
    change, _, idea_format = name.partition(FORMAT_SEPARATOR)
    return change, idea_format or STANDARD


# Every cell's change name, in table order: the standard ideas' changes, then each other format's,
# then the systems.
CHANGES = (
    *(
        cell_change(change, idea_format)
        for idea_format in IDEA_FORMATS
        for change in (CONTROLLED if idea_format == STANDARD else ON_OTHER_FORMATS)
    ),
    *SYSTEMS,
)


def release_kind(format: str, change: str) -> str:
    """The release file a cell (of change name ``change``) reads: the authors name the
    purpose-mechanism form's files ``{format}_plan.yaml`` (kinds ``pointwise_plan``,
    ``pairwise_plan``)."""
    return f"{format}_plan" if split_change(change)[1] == PURPOSE_MECHANISM else format


def configured_changes(section: dict) -> list[str]:
    """The change names of the cells a ``judges`` config section asks for (before omissions;
    ``idea_formats`` is optional)."""
    return [
        *section["changes"],
        *(
            cell_change(change, idea_format)
            for idea_format, changes in section.get("idea_formats", {}).items()
            for change in changes
        ),
    ]


def instances_path(results: str, dataset: str, format: str, setup: str, idea_format: str) -> str:
    """The instances table of one setup and format in one form of the ideas."""
    suffix = "" if idea_format == STANDARD else f"-{idea_format}"
    return f"{results}/judges/{dataset}/{format}/{setup}/instances{suffix}.parquet"


def ideation_setup_name(stronger: str, weaker: str) -> str:
    return f"{IDEATION}{stronger}{VERSUS}{weaker}"


@dataclass(frozen=True)
class JudgeCell:
    dataset: str
    model: str
    format: str
    setup: str
    change: str  # the cell's change name (``cell_change``)

    @property
    def prompt_change(self) -> str:
        """The change to the reference run (whatever the form of the ideas)."""
        return split_change(self.change)[0]

    @property
    def idea_format(self) -> str:
        return split_change(self.change)[1]

    @property
    def batched(self) -> bool:
        """Whether the cell's calls are requests of its model's inference batch."""
        return self.prompt_change not in (*DERIVED, *LOOPED, *OWN_RULE)

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
    search_model: str | None = None  # the LLM of the assisted literature search (retrieval)
    # the judges whose cells are skipped (a retired model with no substitution): why, and the
    # number of cells left out
    not_runnable: dict[str, tuple[str, int]] = field(default_factory=dict)

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
        """A cell's instances (``instances-{idea format}`` for another form of the ideas) and, for
        'retrieval', its related work."""
        base = f"{results}/judges/{wildcards.dataset}/{wildcards.format}/{wildcards.setup}"
        change, idea_format = split_change(wildcards.change)
        inputs = {
            "instances": instances_path(
                results, wildcards.dataset, wildcards.format, wildcards.setup, idea_format
            )
        }
        if change == "retrieval":
            inputs["related"] = f"{base}/related.parquet"
        return inputs

    def instance_files(self, results: str, dataset: str) -> tuple[list[str], list[str]]:
        """The instances tables a dataset's cells judge, and the idea format of each."""
        keys = dict.fromkeys(
            (cell.format, cell.setup, cell.idea_format)
            for cell in self.cells
            if cell.dataset == dataset
        )
        paths = [instances_path(results, dataset, *key) for key in keys]
        return paths, [idea_format for *_, idea_format in keys]

    def other_format_changes(self, dataset: str, format: str | None = None) -> list[str]:
        """The change names of a dataset's cells (of ``format``) on another form of the ideas."""
        names = (
            cell.change
            for cell in self.cells
            if cell.dataset == dataset
            and format in (None, cell.format)
            and cell.idea_format != STANDARD
        )
        return list(dict.fromkeys(names))

    def expert_annotations(self, dataset: str) -> str | None:
        """The downloaded expert re-judgements of a declared release, if it has them."""
        for file in self.releases.get(dataset, []):
            if file.path == EXPERT_ANNOTATIONS:
                return file.local
        return None

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
            and cell.idea_format == PURPOSE_MECHANISM
            and release_kind(cell.format, cell.change)
            not in self.datasets[dataset].get(cell.setup, {})
        }
        return sorted(pairs)

    def generators(self, dataset: str | None = None) -> list[str]:
        """The models whose generated ideas some setup (of ``dataset``) pairs or compares: the
        pipeline generates them (a release's ideation files hold ideas already written)."""
        names = []
        for cell in self.cells:
            if dataset not in (None, cell.dataset) or cell.setup in self.datasets[cell.dataset]:
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
        if batch in SEARCH_STEPS:
            return [
                f"{folder}/{format}/{setup}/{batch}/requests.parquet"
                for format, setup in self.searches(dataset)
            ]
        if batch != CELLS:
            raise ValueError(f"judges have no inference batch '{batch}'")
        return [
            f"{cell.folder(results)}/requests.parquet"
            for cell in self.cells
            if cell.dataset == dataset and cell.model == model and cell.batched
        ]

    def batches(self) -> list[tuple[str, str, str]]:
        """Every inference job as (dataset, model, batch)."""
        jobs = dict.fromkeys(
            (cell.dataset, cell.model, CELLS) for cell in self.cells if cell.batched
        )
        for dataset in self.datasets:
            if self.rewrites(dataset):
                jobs[(dataset, self.rewrite_model, REWRITE)] = None
            for generator in self.generators(dataset):
                jobs[(dataset, generator, GENERATION)] = None
            if self.searches(dataset):
                for step in SEARCH_STEPS:
                    jobs[(dataset, self.search_model, step)] = None
        return list(jobs)

    def instance_count(self, dataset: str, setup: str, format: str) -> int:
        """Instances of a setup's release file of ``format`` (a generated or ideation setup:
        the base setup's), from the file on disk, else the release's declaration (0: none)."""
        files = self.datasets[dataset].get(setup) or self.datasets[dataset].get(self.base_setup)
        path = (files or {}).get(format) or (files or {}).get("pairwise")
        if path is None:
            return 0
        if Path(path).is_file():
            return _release_size(path)
        declared = [f.instances for f in self.releases.get(dataset, []) if f.local == path]
        return (declared[0] or 0) if declared else 0

    def batch_calls(self, dataset: str, model: str, batch: str, calls: dict, by_change: dict):
        """Calls of one inference batch, estimated from the release files alone (the job's
        size when the DAG is built): a cell's instances times its calls per instance; one
        call per pair of the base setup (generation) or per instance (rewrite)."""
        if batch == GENERATION:
            return self.instance_count(dataset, self.base_setup, "pairwise")
        if batch == REWRITE:
            return sum(self.instance_count(dataset, s, f) for f, s in self.rewrites(dataset))
        if batch in SEARCH_STEPS:  # one call per idea searched for
            return sum(
                self.instance_count(dataset, s, f) * (2 if f == "pairwise" else 1)
                for f, s in self.searches(dataset)
            )
        total = 0
        for cell in self.cells:
            if cell.dataset != dataset or cell.model != model or not cell.batched:
                continue
            each = calls_of(cell.prompt_change, calls, by_change)
            pairwise = cell.format == "pairwise"
            per = 2 * each["pairwise_per_order"] if pairwise else each["pointwise"]
            total += per * self.instance_count(dataset, cell.setup, cell.format)
        return total

    def searches(self, dataset: str) -> list[tuple[str, str]]:
        """The (format, setup) pairs whose ideas the assisted literature search serves."""
        if not self.search_model:
            return []
        pairs = {
            (cell.format, cell.setup)
            for cell in self.cells
            if cell.dataset == dataset and cell.prompt_change == "retrieval"
        }
        return sorted(pairs)

    def search_requests(self, results: str, wildcards, step: str = "search_queries") -> str:
        """The requests table of one assisted-search step of a (dataset, format, setup)."""
        return (
            f"{results}/judges/{wildcards.dataset}/{self.search_model}/{wildcards.format}/"
            f"{wildcards.setup}/{step}/requests.parquet"
        )

    def search_responses(self, results: str, dataset: str, step: str) -> str:
        """The responses table of one assisted-search step of a dataset."""
        return responses_path(results, "judges", dataset, self.search_model, step)

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

    def flip_baselines(self) -> dict[str, list[str] | None]:
        """The runs flips are counted against: the reference, for every change; and the
        motivating figure's first prompt, for its others (the paper's motivating example)."""
        baselines: dict[str, list[str] | None] = {"reference": None}
        first, *others = self.motivation["changes"] or ["reference"]
        if first != "reference" and others:
            baselines[first] = others
        return baselines

    def models_used(self) -> set[str]:
        used = {cell.model for cell in self.cells} | set(self.generators())
        if self.rewrite_model and any(cell.idea_format == PURPOSE_MECHANISM for cell in self.cells):
            used.add(self.rewrite_model)
        return used

    def responses(self, results: str, wildcards) -> str:
        """The responses table a cell's verdicts come from (its model's batch)."""
        return responses_path(results, "judges", wildcards.dataset, wildcards.model, CELLS)

    @staticmethod
    def response_cell(wildcards) -> str:
        """The cell whose responses a cell's verdicts read: no aggregation reads the reference
        run's (on the same form of the ideas)."""
        change, idea_format = split_change(wildcards.change)
        source = cell_change("reference", idea_format) if change in DERIVED else wildcards.change
        return f"{wildcards.format}/{wildcards.setup}/{source}"

    def outputs(self, results: str) -> list[str]:
        """Everything the ``judges`` target builds: metrics, tables and figures per dataset."""
        paths = [file.local for files in self.releases.values() for file in files]
        for dataset in self.datasets:
            formats = self.formats(dataset)
            folder = f"{results}/judges/{dataset}"
            for format in formats:
                paths += [
                    f"{folder}/{format}/{name}"
                    for name in ("metrics.csv", "tables.md", "controlled_study.png")
                ]
            if formats:
                paths += [
                    f"{folder}/{name}"
                    for name in (
                        "cost_quality.png",
                        "d_minus_sources.png",
                        "flip_rates.csv",
                        "flip_rates.md",
                        "dataset_sizes.csv",
                        "dataset_sizes.md",
                    )
                ]
            if "pairwise" in formats:
                paths.append(f"{folder}/pairwise/soft_accuracy.png")
                if self.motivation["model"]:
                    paths.append(f"{folder}/motivation.png")
                if self.other_format_changes(dataset, "pairwise"):
                    paths.append(f"{folder}/pairwise/plan_format.png")
            if self.other_format_changes(dataset):
                paths.append(f"{folder}/plan_format.csv")
            if any(c.dataset == dataset and c.setup.startswith(IDEATION) for c in self.cells):
                paths += [f"{folder}/ideation.md", f"{folder}/ideation.csv"]
            if self.expert_annotations(dataset):
                paths += [f"{folder}/expert_study.csv", f"{folder}/expert_study.md"]
        return paths


def judges_grid(config: dict, registry: Registry) -> JudgesGrid:
    """Expand the config's ``judges`` section into cells, logging every omitted one."""
    section = config["judges"]
    changes = configured_changes(section)
    if changes and "reference" not in section["changes"]:
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
    retrieval = section["retrieval"]
    corpus = retrieval["corpus"]
    searched = retrieval.get("search") == SEMANTIC_SCHOLAR
    search_model = retrieval.get("model") if searched else None
    if search_model:
        registry.model(search_model)
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
            prompt_change, idea_format = split_change(change)
            reason = None
            if prompt_change in PAIRWISE_ONLY and format != "pairwise":
                continue  # by design, not an omission
            if prompt_change == "low_reasoning" and "low" not in specs[model].effort_levels:
                reason = "the model exposes no reasoning effort 'low' (registry effort_levels)"
            elif idea_format == PURPOSE_MECHANISM and not rewrite_model and kind not in files:
                reason = f"no {kind}.yaml in the release and no rewrite_model to write the form"
            elif prompt_change == "retrieval" and searched:
                if not search_model:
                    reason = "no judges.retrieval.model writes the literature search's queries"
            elif prompt_change == "retrieval" and not corpus:
                reason = "no related work: no retrieval corpus is configured"
            if not reason and specs[model].not_runnable:  # it would run but for its model
                reason = f"{specs[model].not_runnable} (judges.substitutions names none)"
            if reason:
                omitted.append(f"{where}: left out, {reason}")
                why.append((change, reason))
                continue
            cells.append(JudgeCell(dataset, model, format, setup, change))
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
    )


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
                JudgeCell(dataset, model, SYSTEM_FORMAT, setup, system)
                for dataset, setups in datasets.items()
                for setup, files in setups.items()
                if SYSTEM_FORMAT in files and (wanted is None or setup in wanted)
            ]
            if spec.not_runnable:
                omitted += [
                    f"judges/{c.dataset}/{model}/{c.format}/{c.setup}/{system}: left out, "
                    f"{spec.not_runnable}"
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


@functools.cache
def _release_size(path: str) -> int:
    """Instances of a release file on disk (read once per run: job sizes ask for it often)."""
    return len(release.read_release(path))
