"""The judges' grid: its cells and, for each rule, the files it reads (their paths from
``noveval.judges.layout``, the track's results layout)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from noveval.inference.batches import CELLS, GENERATION, REWRITE
from noveval.judges import release
from noveval.judges.grid.cells import (
    DERIVED,
    EXPERT_ANNOTATIONS,
    GENERATED,
    IDEATION,
    PURPOSE_MECHANISM,
    SEARCH_STEPS,
    STANDARD,
    VERSUS,
    CustomCell,
    JudgeCell,
    cell_id,
    release_kind,
)
from noveval.judges.instances import FORMATS
from noveval.judges.layout import JudgesPaths, cell_keys
from noveval.judges.prompts import calls_of

# What the ``judges`` target builds of each format a dataset has, and of each dataset.
FORMAT_TARGETS = ("metrics.csv", "tables.md", "controlled_study.png")
DATASET_TARGETS = (
    "cost_quality.png",
    "d_minus_sources.png",
    "flip_rates.csv",
    "flip_rates.md",
    "dataset_sizes.csv",
    "dataset_sizes.md",
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
    custom: tuple[CustomCell, ...] = ()  # the custom judges' cells (config judges.custom)
    calls_per_custom: dict[str, int] = field(default_factory=dict)  # judge -> calls per decision

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
        """A cell's instances (``instances-{ideas}`` for another form of the ideas) and, for
        'retrieval', its related work."""
        paths, setup = JudgesPaths(results), (wildcards.dataset, wildcards.format, wildcards.setup)
        inputs = {"instances": paths.instances(*setup, wildcards.ideas)}
        if wildcards.change == "retrieval":
            inputs["related"] = paths.related(*setup)
        return inputs

    def instance_files(self, results: str, dataset: str) -> tuple[list[str], list[str]]:
        """The instances tables a dataset's cells judge, and the idea format of each."""
        keys = dict.fromkeys(
            (cell.format, cell.setup, cell.ideas) for cell in self.cells if cell.dataset == dataset
        )
        paths = [JudgesPaths(results).instances(dataset, *key) for key in keys]
        return paths, [ideas for *_, ideas in keys]

    def other_format_changes(self, dataset: str, format: str | None = None) -> list[str]:
        """The display labels (``change_label``) of a dataset's cells (of ``format``) on another
        form of the ideas."""
        names = (
            cell.label
            for cell in self.cells
            if cell.dataset == dataset and format in (None, cell.format) and cell.ideas != STANDARD
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
        paths = JudgesPaths(results)
        return {
            "instances": paths.instances(wildcards.dataset, wildcards.format, wildcards.setup),
            "responses": paths.responses(wildcards.dataset, self.rewrite_model, REWRITE),
        }

    def rewrites(self, dataset: str) -> list[tuple[str, str]]:
        """The (format, setup) pairs whose purpose-mechanism form the rewrite model writes (no
        release file)."""
        pairs = {
            (cell.format, cell.setup)
            for cell in (*self.cells, *self.custom)
            if cell.dataset == dataset
            and cell.ideas == PURPOSE_MECHANISM
            and release_kind(cell.format, cell.ideas)
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
        paths = JudgesPaths(results)
        if batch == GENERATION:
            return [paths.generation_requests(self.base_setup, dataset, model)]
        if batch in (REWRITE, *SEARCH_STEPS):
            pairs = self.rewrites(dataset) if batch == REWRITE else self.searches(dataset)
            return [paths.step_requests(batch, dataset, model, *pair) for pair in pairs]
        if batch != CELLS:
            raise ValueError(f"judges have no inference batch '{batch}'")
        return [
            paths.requests(*cell_keys(cell))
            for cell in self.cells
            if cell.dataset == dataset and cell.model == model and cell.batched
        ] + [
            paths.custom_cell("requests.parquet", cell)
            for cell in self.custom
            if cell.dataset == dataset and cell.model == model
        ]

    def batches(self) -> list[tuple[str, str, str]]:
        """Every inference job as (dataset, model, batch)."""
        jobs = dict.fromkeys(
            (cell.dataset, cell.model, CELLS) for cell in self.cells if cell.batched
        )
        jobs |= dict.fromkeys((cell.dataset, cell.model, CELLS) for cell in self.custom)
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
            each = calls_of(cell.change, calls, by_change)
            pairwise = cell.format == "pairwise"
            per = 2 * each["pairwise_per_order"] if pairwise else each["pointwise"]
            total += per * self.instance_count(dataset, cell.setup, cell.format)
        for cell in self.custom:
            if cell.dataset == dataset and cell.model == model:
                each = self.calls_per_custom[cell.judge] * (2 if cell.format == "pairwise" else 1)
                total += each * self.instance_count(dataset, cell.setup, cell.format)
        return total

    def searches(self, dataset: str) -> list[tuple[str, str]]:
        """The (format, setup) pairs whose ideas the assisted literature search serves."""
        if not self.search_model:
            return []
        pairs = {
            (cell.format, cell.setup)
            for cell in (*self.cells, *self.custom)
            if cell.dataset == dataset and cell.change == "retrieval"
        }
        return sorted(pairs)

    def search_requests(self, results: str, wildcards, step: str = "search_queries") -> str:
        """The requests table of one assisted-search step of a (dataset, format, setup)."""
        return JudgesPaths(results).step_requests(
            step, wildcards.dataset, self.search_model, wildcards.format, wildcards.setup
        )

    def search_responses(self, results: str, dataset: str, step: str) -> str:
        """The responses table of one assisted-search step of a dataset."""
        return JudgesPaths(results).responses(dataset, self.search_model, step)

    def generated_ideas(self, results: str, dataset: str, generator: str) -> str:
        """The responses table holding a generator's ideas (its generation batch)."""
        return JudgesPaths(results).responses(dataset, generator, GENERATION)

    def generation_cell(self) -> str:
        return f"{GENERATION}/{self.base_setup}"

    def release_file(self, dataset: str, setup: str, kind: str) -> str:
        """The release YAML of one setup and kind (see ``release_kind``)."""
        return self.datasets[dataset][setup][kind]

    def blocklist_pairs(self, wildcards, ideas: str = STANDARD) -> list[str]:
        """The pairwise release file in which a pointwise release file's blocked partners are
        found (the purpose-mechanism form's in ``pairwise_plan``); none for a pairwise file, for
        a form the release lacks, or where the release has no such pairwise file."""
        files = self.datasets[wildcards.dataset].get(wildcards.setup, {})
        if wildcards.format != "pointwise" or release_kind("pointwise", ideas) not in files:
            return []
        pairs = files.get(release_kind("pairwise", ideas))
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
        return [JudgesPaths(results).metrics(dataset, format) for format in self.formats(dataset)]

    def verdict_paths(self, results: str, dataset: str, format: str) -> list[str]:
        paths = JudgesPaths(results)
        return [
            paths.verdicts(*cell_keys(cell))
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
        used = {cell.model for cell in (*self.cells, *self.custom)} | set(self.generators())
        if self.rewrite_model and any(
            cell.ideas == PURPOSE_MECHANISM for cell in (*self.cells, *self.custom)
        ):
            used.add(self.rewrite_model)
        return used

    def responses(self, results: str, wildcards) -> str:
        """The responses table a cell's verdicts come from (its model's batch)."""
        return JudgesPaths(results).responses(wildcards.dataset, wildcards.model, CELLS)

    @staticmethod
    def response_cell(wildcards) -> str:
        """The cell whose responses a cell's verdicts read: no aggregation reads the reference
        run's (on the same form of the ideas)."""
        source = "reference" if wildcards.change in DERIVED else wildcards.change
        return cell_id(wildcards.format, wildcards.setup, wildcards.ideas, source)

    def custom_judges(self) -> list[str]:
        return list(dict.fromkeys(cell.judge for cell in self.custom))

    def card_inputs(self, results: str, judge: str) -> dict[str, list[str]]:
        """A card's inputs: its judge's cells' calls and verdicts, and this run's metrics of the
        paper's judges (their numbers beside the card's)."""
        paths = JudgesPaths(results)
        cells = [cell for cell in self.custom if cell.judge == judge]
        return {
            "calls": [paths.custom_cell("calls.parquet", cell) for cell in cells],
            "verdicts": [paths.custom_cell("verdicts.parquet", cell) for cell in cells],
            "metrics": [p for d in self.datasets for p in self.metrics_paths(results, d)],
        }

    def card_cells(self, judge: str) -> list[dict]:
        """The keys of a judge's cells, in its card's inputs' order."""
        return [
            {"dataset": c.dataset, "format": c.format, "setup": c.setup, "ideas": c.ideas,
             "wording": c.wording, "change": c.change}
            for c in self.custom
            if c.judge == judge
        ]  # fmt: skip

    def outputs(self, results: str) -> list[str]:
        """Everything the ``judges`` target builds: metrics, tables and figures per dataset."""
        paths = [file.local for files in self.releases.values() for file in files]
        layout = JudgesPaths(results)
        for judge in self.custom_judges():
            paths += [layout.card(judge, "md"), layout.card(judge, "png")]
        if self.custom:
            paths += [layout.leaderboard("md"), layout.leaderboard("csv")]
        for dataset in self.datasets:
            formats = self.formats(dataset)
            names = []  # the dataset's outputs (``format/name``: one format's)
            for format in formats:
                names += [f"{format}/{name}" for name in FORMAT_TARGETS]
            if formats:
                names += DATASET_TARGETS
            if "pairwise" in formats:
                names.append("pairwise/soft_accuracy.png")
                if self.motivation["model"]:
                    names.append("motivation.png")
                if self.other_format_changes(dataset, "pairwise"):
                    names.append("pairwise/plan_format.png")
            if self.other_format_changes(dataset):
                names.append("plan_format.csv")
            if any(c.dataset == dataset and c.setup.startswith(IDEATION) for c in self.cells):
                names += ["ideation.md", "ideation.csv"]
            if self.expert_annotations(dataset):
                names += ["expert_study.csv", "expert_study.md"]
            for name in names:
                format, _, file = name.rpartition("/")
                paths.append(
                    layout.format_output(file, dataset, format)
                    if format
                    else layout.output(file, dataset)
                )
        return paths


@functools.cache
def _release_size(path: str) -> int:
    """Instances of a release file on disk (read once per run: job sizes ask for it often)."""
    return len(release.read_release(path))
