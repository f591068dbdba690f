"""The NovBench construction's jobs and files, from the config section ``construction.novbench``.

Its model calls run as inference batches of the track ``novbench_construction`` (rule infer):
``sentences`` (the introduction and review sentence labels of the built dataset, and the first
round of every validated prompt), ``step`` (the second call of the step prompt) and
``normalisation`` (the gold format).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from noveval.construction.extraction import FIRST_ROUND
from noveval.construction.records import SENTENCE_CELLS
from noveval.core.registry import Registry
from noveval.inference.batches import NORMALISATION, SENTENCES, STEP

TRACK = "novbench_construction"
VALIDATION = "extraction"  # the dataset folder of the Appendix A/B validation
# The labelled sentences of Appendices A and B (introduction; review: novelty, other).
LABELLED = {"introduction": 2300, "novelty": 493, "other": 500}
# The authors' labelled sentences in their repository (pinned in noveval/core/upstream.yaml).
AUTHORS_LABELS = {
    "introduction": "data/COLING_labeled_data.csv",
    "novelty": "data/novelty_data.json",
    "other": "data/non_novelty_data.json",
}


class CellCalls(NamedTuple):
    """The estimated calls of one cell of an inference batch, before any paper is read."""

    dataset: str
    model: str
    batch: str
    cell: str
    calls: int


@dataclass(frozen=True)
class NovBenchConstruction:
    """The configured construction (``section``: ``construction.novbench``; None: none)."""

    section: dict | None

    @property
    def name(self) -> str:
        return self.section["name"]

    def folder(self, results: str, dataset: str | None = None) -> str:
        return f"{results}/{TRACK}/{dataset or self.name}"

    def targets(self, results: str) -> list[str]:
        """The built release and its summary (nothing when no construction is configured)."""
        if self.section is None:
            return []
        folder = self.folder(results)
        return [f"{folder}/release.json", f"{folder}/summary.md"]

    def validation_prompts(self) -> list[str]:
        """The validated prompts: the introduction prompts, then the review prompt."""
        validation = self.section.get("validation") if self.section else None
        if not validation or not validation["models"]:
            return []
        return [*validation["prompts"], "review"]

    def label_files(self, prompt: str | None = None) -> list[str]:
        """The labelled sentences ``prompt`` is scored on (every label file: None)."""
        validation = self.section["validation"]
        files = []
        if prompt in (None, "review"):
            files += [validation["review_labels"]["novelty"], validation["review_labels"]["other"]]
        if prompt != "review":
            files.append(validation["introduction_labels"])
        return files

    def validation_models(self) -> list[str]:
        return list(self.section["validation"]["models"]) if self.validation_prompts() else []

    def validation_scores(self, results: str) -> list[str]:
        """The validation table (nothing when no validation is configured)."""
        if not self.validation_prompts():
            return []
        return [f"{self.folder(results, VALIDATION)}/scores.csv"]

    def batch_requests(self, results: str, dataset: str, model: str, batch: str) -> list[str]:
        """The requests tables one inference job answers."""
        folder = f"{self.folder(results, dataset)}/{model}"
        if dataset == VALIDATION:
            cells = {SENTENCES: self.validation_prompts(), STEP: ["step_decision"]}
        else:
            cells = {SENTENCES: list(SENTENCE_CELLS.values()), NORMALISATION: [NORMALISATION]}
        if batch not in cells:
            raise ValueError(f"{TRACK}/{dataset} has no inference batch '{batch}'")
        return [f"{folder}/{cell}/requests.parquet" for cell in cells[batch]]

    def papers(self) -> tuple[int, bool]:
        """The papers to build: the NLPeer folder's paper folders when it is there (True), else
        ``expected.papers`` (False)."""
        folder = Path(self.section["nlpeer"])
        if folder.is_dir():
            return sum(path.is_dir() for path in folder.iterdir()), True
        return self.section["expected"]["papers"], False

    def labelled(self) -> dict[str, int]:
        """The labelled sentences each validated prompt is asked about (``validation.limit``
        of each file at most)."""
        limit = self.section["validation"]["limit"] or max(LABELLED.values())
        return {kind: min(limit, count) for kind, count in LABELLED.items()}

    def cell_calls(self) -> list[CellCalls]:
        """Every cell's estimated calls: the built dataset's sentences (per paper: the expected
        introduction and review sentences) and normalisation (one per paper), and each
        validated model's prompts on the labelled sentences."""
        if self.section is None:
            return []
        papers, _ = self.papers()
        expected = self.section["expected"]
        sentences = self.section["sentence_model"]
        cells = [
            CellCalls(
                self.name,
                sentences,
                SENTENCES,
                SENTENCE_CELLS[kind],
                papers * expected[f"{kind}_sentences"],
            )
            for kind in SENTENCE_CELLS
        ]
        cells.append(
            CellCalls(
                self.name, self.section["normalisation_model"], NORMALISATION, NORMALISATION, papers
            )
        )
        if not self.validation_prompts():
            return cells
        labelled = self.labelled()
        for model in self.validation_models():
            for prompt in self.validation_prompts():
                calls = (
                    labelled["novelty"] + labelled["other"]
                    if prompt == "review"
                    else labelled["introduction"]
                )
                cells.append(CellCalls(VALIDATION, model, SENTENCES, prompt, calls))
            if "step" in self.validation_prompts():
                calls = labelled["introduction"]
                cells.append(CellCalls(VALIDATION, model, STEP, "step_decision", calls))
        return cells

    def batches(self) -> list[tuple[str, str, str]]:
        """Every inference batch: (dataset, model, batch)."""
        return list(dict.fromkeys(cell[:3] for cell in self.cell_calls()))

    def batch_calls(self, dataset: str, model: str, batch: str, *_) -> int:
        """The estimated calls of one batch, known when the DAG is built (job sizes)."""
        return sum(
            cell.calls
            for cell in self.cell_calls()
            if (cell.dataset, cell.model, cell.batch) == (dataset, model, batch)
        )

    def corpus_inputs(self) -> list[str]:
        """The retrieval corpus as an input once it is there (the user's file: a dry run before
        then still plans the build, and the job names the missing file)."""
        corpus = self.section["retrieval"]["corpus"]
        return [corpus] if Path(corpus).is_file() else []

    def normalised(self, results: str, dataset: str, name: str) -> str:
        """A file the normalisation model's requests step writes (``extracted.parquet``: the
        papers' novelty sentences; ``skipped.parquet``: the papers left out)."""
        model = self.section["normalisation_model"]
        return f"{self.folder(results, dataset)}/{model}/{NORMALISATION}/{name}"

    def responses(self, results: str, dataset: str, model: str, batch: str) -> str:
        return f"{self.folder(results, dataset)}/{model}/responses/{batch}.parquet"

    def models_used(self) -> set[str]:
        if self.section is None:
            return set()
        used = {self.section["sentence_model"], self.section["normalisation_model"]}
        return used | set(self.validation_models())


def novbench_construction(
    config: dict, registry: Registry, upstream_root: str
) -> NovBenchConstruction:
    """The construction of ``config`` with its model names checked; label files the validation
    does not name are the authors' (downloaded under ``upstream_root``)."""
    section = (config.get("construction") or {}).get("novbench")
    validation = (section or {}).get("validation")
    if validation:
        validation.setdefault(
            "introduction_labels", f"{upstream_root}/{AUTHORS_LABELS['introduction']}"
        )
        validation.setdefault(
            "review_labels",
            {kind: f"{upstream_root}/{AUTHORS_LABELS[kind]}" for kind in ("novelty", "other")},
        )
    construction = NovBenchConstruction(section)
    for name in sorted(construction.models_used()):
        registry.model(name)
    unknown = [p for p in construction.validation_prompts() if p not in FIRST_ROUND]
    if unknown:
        raise ValueError(f"construction.novbench.validation.prompts: unknown {unknown}")
    if section:
        registry.encoder(section["retrieval"]["encoder"])
    return construction
