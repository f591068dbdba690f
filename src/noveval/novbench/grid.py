"""The NovBench grid: which cells (dataset × model × strategy × perturbation) exist, and why not.

A custom evaluator (config ``novbench.custom``) adds one cell per dataset and perturbation, its
strategy ``custom-<name>`` (``noveval.novbench.custom``), after the paper's cells of the dataset.
"""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass, field

from noveval.core.registry import Registry
from noveval.inference.batches import CELLS, PAPER_TYPE, PARAPHRASE
from noveval.novbench.custom import CustomEvaluator, custom_evaluators
from noveval.novbench.layout import HUMAN, NovBenchLayout, cell_name, released
from noveval.novbench.releases import ReleaseFile, perturbation_releases, release_files

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Cell:
    dataset: str
    model: str
    strategy: str
    perturbation: str

    @property
    def name(self) -> str:
        return cell_name(self.strategy, self.perturbation)


@dataclass(frozen=True)
class NovBenchGrid:
    cells: tuple[Cell, ...]
    releases: dict[str, ReleaseFile]
    paraphrase_model: str
    omitted: tuple[str, ...]
    perturbation_releases: dict[str, dict[str, ReleaseFile]] = field(default_factory=dict)
    custom: dict[str, CustomEvaluator] = field(default_factory=dict)  # config novbench.custom

    @property
    def datasets(self) -> dict[str, str]:
        """Dataset name → the release file's local path (downloaded first when it has a URL)."""
        return {name: release.path for name, release in self.releases.items()}

    def downloads(self) -> dict[str, ReleaseFile]:
        """The releases that the workflow downloads (not present locally)."""
        files = {**self.releases}
        for kinds in self.perturbation_releases.values():
            files.update({release.name: release for release in kinds.values()})
        return {name: r for name, r in files.items() if r.url and not r.available}

    def on_disk(self) -> list[str]:
        """The local paths of the releases already on disk (downloaded or given)."""
        return [release.path for release in self.releases.values() if release.available]

    def release_file(self, name: str) -> ReleaseFile:
        """A dataset's release, or a perturbation release (named ``<dataset>.release_<kind>``)."""
        for kinds in self.perturbation_releases.values():
            for release in kinds.values():
                if release.name == name:
                    return release
        return self.releases[name]

    def perturbation_release_paths(self, dataset: str) -> dict[str, str]:
        """Kind → local path of a dataset's released perturbed inputs."""
        return {
            kind: release.path
            for kind, release in self.perturbation_releases.get(dataset, {}).items()
        }

    def cells_of(self, dataset: str) -> list[Cell]:
        return [cell for cell in self.cells if cell.dataset == dataset]

    def parsed_paths(self, results: str, dataset: str, model: str) -> list[str]:
        """The parsed outputs of every cell of one model on one dataset."""
        layout = NovBenchLayout(results)
        return [
            layout.parsed(dataset, model, cell.name)
            for cell in self.cells_of(dataset)
            if cell.model == model
        ]

    def batch_requests(self, results: str, dataset: str, model: str, batch: str) -> list[str]:
        """The requests tables one inference job of ``model`` on ``dataset`` answers: every
        cell of the model, its paraphrases, or its paper-type labels (``batch``: cells,
        paraphrase or paper_type)."""
        layout = NovBenchLayout(results)
        if batch in (PARAPHRASE, PAPER_TYPE):
            return [layout.requests(dataset, model, batch)]
        if batch != CELLS:
            raise ValueError(f"novbench has no inference batch '{batch}'")
        return [
            layout.requests(dataset, model, cell.name)
            for cell in self.cells_of(dataset)
            if cell.model == model
        ]

    def batches(self) -> list[tuple[str, str, str]]:
        """Every inference job as (dataset, model, batch): one per model and dataset, plus one
        per dataset for the paraphrases."""
        jobs = dict.fromkeys((cell.dataset, cell.model, CELLS) for cell in self.cells)
        for cell in self.cells:
            if cell.perturbation == "change" and "change" not in self.perturbation_releases.get(
                cell.dataset, {}
            ):
                jobs[(cell.dataset, self.paraphrase_model, PARAPHRASE)] = None
        return list(jobs)

    def batch_calls(self, dataset: str, model: str, batch: str, sentences_per_paper: float):
        """Calls of one inference batch, estimated from the release's paper count alone (the
        job's size when the DAG is built): one per paper and cell, one per paper (paper-type
        labels), or one per description sentence (paraphrases)."""
        papers = self.releases[dataset].paper_count()
        if batch == PARAPHRASE:
            return math.ceil(papers * sentences_per_paper)
        if batch == PAPER_TYPE:
            return papers
        return papers * sum(cell.model == model for cell in self.cells_of(dataset))

    def responses(self, results: str, dataset: str, model: str, batch: str = CELLS) -> str:
        """The responses table a cell's answers are read from (its batch's)."""
        return NovBenchLayout(results).responses(dataset, model, batch)

    def score_paths(self, results: str, dataset: str) -> list[str]:
        """The scores tables a dataset's table and figures are built from (the reviews' last)."""
        models = dict.fromkeys(cell.model for cell in self.cells_of(dataset))
        layout = NovBenchLayout(results)
        return [layout.scores(dataset, model) for model in [*models, HUMAN]]

    def models_used(self) -> set[str]:
        """Every registry model the grid will call."""
        used = {cell.model for cell in self.cells}
        if self.paraphrased():
            used.add(self.paraphrase_model)
        return used

    def paraphrased(self) -> bool:
        """Whether a ``change`` cell needs our paraphrases (not the authors' released ones)."""
        return any(
            cell.perturbation == "change"
            and "change" not in self.perturbation_releases.get(cell.dataset, {})
            for cell in self.cells
        )

    def custom_cells(self, name: str) -> list[Cell]:
        """The cells of one custom evaluator (every dataset it runs on, every perturbation)."""
        strategy = self.custom[name].strategy
        return [cell for cell in self.cells if cell.strategy == strategy]

    def card_inputs(self, results: str, name: str) -> list[str]:
        """A card's inputs: on each dataset the evaluator ran, the scores of every model of the
        dataset (its own cells' and the paper cells' this run scored, the same papers)."""
        layout = NovBenchLayout(results)
        return [layout.scores(dataset, model) for dataset, model in self._card_keys(name)]

    def card_datasets(self, name: str) -> list[str]:
        """The dataset of each of :meth:`card_inputs`' files, in their order."""
        return [dataset for dataset, _ in self._card_keys(name)]

    def _card_keys(self, name: str) -> list[tuple[str, str]]:
        datasets = dict.fromkeys(cell.dataset for cell in self.custom_cells(name))
        return [
            (dataset, model)
            for dataset in datasets
            for model in dict.fromkeys(cell.model for cell in self.cells_of(dataset))
        ]

    def card_outputs(self, results: str) -> list[str]:
        """Each custom evaluator's card and the leaderboard (none without novbench.custom)."""
        layout = NovBenchLayout(results)
        cards = [layout.card(name, "md") for name in self.custom if self.custom_cells(name)]
        return [*cards, layout.leaderboard("md"), layout.leaderboard("csv")] if cards else []

    def inputs_path(self, results: str, dataset: str, perturbation: str) -> str:
        """The inputs of a cell: the authors' released ones where the dataset names them."""
        if perturbation in self.perturbation_releases.get(dataset, {}):
            perturbation = released(perturbation)
        return NovBenchLayout(results).inputs(dataset, perturbation)


def novbench_grid(config: dict, registry: Registry) -> NovBenchGrid:
    """Expand the config into cells, checking every model and scorer name it uses."""
    section = config["novbench"]
    for name in section["models"]:
        registry.model(name)
    downloads = NovBenchLayout(config["results"]).downloads
    releases = release_files(section["datasets"], downloads)
    custom = custom_evaluators(section, registry)  # checked before any call
    cells, omitted = [], []
    for dataset, release in releases.items():
        with_retrieval = release.has_retrieval()
        for model, strategy, perturbation in itertools.product(
            _models_of(dataset, section), section["strategies"], section["perturbations"]
        ):
            if strategy == "rag" and not with_retrieval:
                continue
            cells.append(Cell(dataset, model, strategy, perturbation))
        if "rag" in section["strategies"] and section["models"] and not with_retrieval:
            omitted.append(
                f"novbench/{dataset}: RAG cells left out, the dataset has no retrieved papers"
            )
        for evaluator in custom.values():
            if evaluator.uses_related and not with_retrieval:
                omitted.append(
                    f"novbench/{dataset}: custom evaluator {evaluator.name} left out, its "
                    "template reads related work and the dataset has no retrieved papers"
                )
                continue
            for perturbation in section["perturbations"]:
                cells.append(Cell(dataset, evaluator.model, evaluator.strategy, perturbation))
    perturbed = perturbation_releases(section["datasets"], downloads)
    grid = NovBenchGrid(
        tuple(cells), releases, section["paraphrase_model"], tuple(omitted), perturbed, custom
    )
    if grid.paraphrased():
        registry.model(grid.paraphrase_model)
    for reason in omitted:
        log.warning(reason)
    registry.encoder(section["scoring"]["relevance_encoder"])
    registry.encoder(section["scoring"]["coverage_encoder"])
    registry.language_model(section["scoring"]["fluency_lm"])
    return grid


def scorer_names(scoring: dict) -> list[str]:
    """The registry names of the scorers (encoders, fluency LM) of ``novbench.scoring``."""
    return [scoring["relevance_encoder"], scoring["coverage_encoder"], scoring["fluency_lm"]]


def scorer_references(registry: Registry, scoring: dict) -> dict[str, str]:
    """What the scorers load (encoders, fluency LM; a hub scorer at its revision): a changed
    reference or revision reruns scoring."""

    def pinned(name: str, reference: str) -> str:
        scorer = registry.scorers.get(name)
        return f"{reference}@{scorer.revision}" if scorer else reference

    relevance, coverage, fluency = scorer_names(scoring)
    return {
        "relevance": pinned(relevance, registry.encoder(relevance)),
        "coverage": pinned(coverage, registry.encoder(coverage)),
        "fluency": pinned(fluency, registry.language_model(fluency)),
    }


def _models_of(dataset: str, section: dict) -> list[str]:
    """The grid's models, or the dataset's own ``models`` (a subset of them)."""
    entry = section["datasets"][dataset]
    models = entry.get("models") if isinstance(entry, dict) else None
    if models is None:
        return section["models"]
    unknown = sorted(set(models) - set(section["models"]))
    if unknown:
        raise ValueError(
            f"novbench dataset '{dataset}': models {unknown} are not in novbench.models"
        )
    return models
