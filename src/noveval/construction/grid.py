"""The NovBench construction's jobs and files, from the config section ``construction.novbench``.

Its model calls run as inference batches of the track ``novbench_construction`` (rule infer):
``sentences`` (the introduction and review sentence labels of the built dataset, and the first
round of every validated prompt), ``step`` (the second call of the step prompt) and
``normalisation`` (the gold format).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from noveval.batches import NORMALISATION, SENTENCES, STEP
from noveval.construction.extraction import FIRST_ROUND
from noveval.construction.records import SENTENCE_CELLS
from noveval.registry import Registry

TRACK = "novbench_construction"
VALIDATION = "extraction"  # the dataset folder of the Appendix A/B validation
# The labelled sentences of Appendices A and B (introduction; review: novelty, other), and what a
# built paper sends before its papers are read (introduction and review sentences: an assumption
# for the job sizes, the compute plan's).
LABELLED = {"introduction": 2300, "novelty": 493, "other": 500}
SENTENCES_PER_PAPER = 120
# The authors' labelled sentences in their repository (pinned in noveval/upstream.yaml).
AUTHORS_LABELS = {
    "introduction": "data/COLING_labeled_data.csv",
    "novelty": "data/novelty_data.json",
    "other": "data/non_novelty_data.json",
}


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

    def batch_calls(self, dataset: str, model: str, batch: str, *_) -> int:
        """The estimated calls of one batch, known when the DAG is built (job sizes)."""
        if dataset == VALIDATION:
            limit = self.section["validation"]["limit"] or max(LABELLED.values())
            introduction = min(limit, LABELLED["introduction"])
            if batch == STEP:
                return introduction
            review = min(limit, LABELLED["novelty"]) + min(limit, LABELLED["other"])
            return introduction * len(self.section["validation"]["prompts"]) + review
        folder = Path(self.section["nlpeer"])
        papers = sum(path.is_dir() for path in folder.iterdir()) if folder.is_dir() else 0
        return papers * (SENTENCES_PER_PAPER if batch == SENTENCES else 1)

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
