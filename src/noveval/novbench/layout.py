"""NovBench's results layout: every file the track writes under ``{results}``, spelled once.

Each method names one file or folder. Called without its keys it gives the rule's template, the
keys left as Snakemake wildcards (``{dataset}``, ``{model}``, a cell ``{strategy}-{perturbation}``);
called with them it gives the concrete path the grid, the appendix tables, the pilot and the
reproduction report read. A cell's folder also holds a model's preliminary batches (its
paraphrases, its paper-type labels). The logs mirror the results under ``{results}/logs/novbench``
(``LOGS``). Moving a file is one edit here; a moved file reruns its jobs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from noveval.inference.batches import PAPER_TYPE, responses_path

TRACK = "novbench"
DATASET, MODEL, KIND, BATCH = "{dataset}", "{model}", "{kind}", "{batch}"
STRATEGY, PERTURBATION = "{strategy}", "{perturbation}"
EVALUATOR = "{evaluator}"  # a custom evaluator (config novbench.custom)
HUMAN = "human"  # the scores of the dataset's own reviews, beside each model's
# the appendix table of each kind a dataset declares (noveval.novbench.paper_tables)
APPENDIX_TABLES = {
    "paper_types": "paper_type.csv",
    "review_confidence": "reviewer_confidence.csv",
    "human_eval": "human_agreement.csv",
}
# Each rule's log (by its name less ``novbench_``), under ``{logs}``: {results}/logs/novbench.
LOGS = {
    "download": "{logs}/{dataset}/download.log",
    "annotation_download": "{logs}/{dataset}/download-{kind}.log",
    "papers": "{logs}/{dataset}/papers.log",
    "inputs": "{logs}/{dataset}/inputs-{perturbation}.log",
    "requests": "{logs}/{dataset}/{model}/{cell}/requests.log",
    "custom_requests": "{logs}/{dataset}/{model}/{cell}/custom_requests.log",
    "parse": "{logs}/{dataset}/{model}/{cell}/parse.log",
    "score": "{logs}/{dataset}/{model}/score.log",
    "score_benchmark": "{logs}/{dataset}/{model}/score.benchmark.tsv",
    "table": "{logs}/{dataset}/table.log",
    "radar": "{logs}/{dataset}/sentiment_radar.log",
    "explorer": "{logs}/{dataset}/explorer.log",
    "paper_type_labels": f"{{logs}}/{{dataset}}/{PAPER_TYPE}/labels.log",
    "paper_type_table": "{logs}/{dataset}/paper_type.log",
    "reviewer_confidence": "{logs}/{dataset}/reviewer_confidence.log",
    "human_eval_scores": "{logs}/{dataset}/human_eval_scores.log",
    "human_agreement": "{logs}/{dataset}/human_agreement.log",
    "card": "{logs}/cards/{evaluator}.log",
    "leaderboard": "{logs}/cards/leaderboard.log",
}


def cell_name(strategy: str = STRATEGY, perturbation: str = PERTURBATION) -> str:
    """A cell's folder name (``Cell.name``): ``{strategy}-{perturbation}``."""
    return f"{strategy}-{perturbation}"


CELL = cell_name()


def released(perturbation: str = PERTURBATION) -> str:
    """The inputs name of the authors' released perturbed inputs of one kind."""
    return f"release_{perturbation}"


def download_path(downloads: str | Path, name: str) -> str:
    """A release (or perturbation release, ``<dataset>.release_<kind>``) downloaded to the
    ``downloads`` folder (``noveval.novbench.releases``)."""
    return f"{downloads}/{name}.json"


@dataclass(frozen=True)
class NovBenchLayout:
    """The NovBench files under one results folder."""

    results: str

    @property
    def downloads(self) -> str:
        """The downloaded releases and annotation files."""
        return f"{self.results}/downloads/{TRACK}"

    def release_download(self, dataset: str = DATASET) -> str:
        return download_path(self.downloads, dataset)

    def annotation_download(self, dataset: str = DATASET, kind: str = KIND) -> str:
        """An annotation file (``paper_types``, ``review_confidence``) of a dataset."""
        return f"{self.downloads}/{dataset}/{kind}.json"

    def dataset(self, dataset: str = DATASET) -> str:
        return f"{self.results}/{TRACK}/{dataset}"

    def papers(self, dataset: str = DATASET) -> str:
        return f"{self.dataset(dataset)}/papers.parquet"

    def inputs(self, dataset: str = DATASET, perturbation: str = PERTURBATION) -> str:
        """A perturbation's inputs (``released(kind)``: the authors' released ones)."""
        return f"{self.dataset(dataset)}/inputs/{perturbation}.parquet"

    def model(self, dataset: str = DATASET, model: str = MODEL) -> str:
        return f"{self.dataset(dataset)}/{model}"

    def cell(self, dataset: str = DATASET, model: str = MODEL, cell: str = CELL) -> str:
        """A cell's folder, or a preliminary batch's (``cell``: paraphrase, paper_type)."""
        return f"{self.model(dataset, model)}/{cell}"

    def requests(self, dataset: str = DATASET, model: str = MODEL, cell: str = CELL) -> str:
        return f"{self.cell(dataset, model, cell)}/requests.parquet"

    def responses(self, dataset: str = DATASET, model: str = MODEL, batch: str = BATCH) -> str:
        """A batch's responses table (rule responses', shared by the tracks)."""
        return responses_path(self.results, TRACK, dataset, model, batch)

    def parsed(self, dataset: str = DATASET, model: str = MODEL, cell: str = CELL) -> str:
        return f"{self.cell(dataset, model, cell)}/parsed.parquet"

    def scores(self, dataset: str = DATASET, model: str = MODEL) -> str:
        """A model's per-paper scores (``HUMAN``: the reviews')."""
        return f"{self.model(dataset, model)}/scores.parquet"

    def table(self, dataset: str = DATASET, extension: str = "csv") -> str:
        """The dataset's table (``csv`` or ``md``)."""
        return f"{self.dataset(dataset)}/table.{extension}"

    def radar(self, dataset: str = DATASET) -> str:
        return f"{self.dataset(dataset)}/sentiment_radar.png"

    def explorer(self, dataset: str = DATASET) -> str:
        """A dataset's instance explorer (a folder: index.html and its data scripts)."""
        return f"{self.dataset(dataset)}/explorer"

    def outputs(self, datasets) -> list[str]:
        """The tables and figure of each dataset (rule novbench, less the appendix tables)."""
        return [
            path
            for dataset in datasets
            for path in (self.table(dataset, "csv"), self.table(dataset, "md"), self.radar(dataset))
        ]

    def card(self, evaluator: str = EVALUATOR, extension: str = "md") -> str:
        """A custom evaluator's card (``md``) and its per-section statistics (``parquet``)."""
        return f"{self.results}/{TRACK}/cards/{evaluator}.{extension}"

    def leaderboard(self, extension: str = "md") -> str:
        """Every card of the run in one table (``md``, ``csv``)."""
        return f"{self.results}/{TRACK}/cards/leaderboard.{extension}"

    def paper_type_labels(self, dataset: str = DATASET) -> str:
        """The classifier's paper-type labels of a dataset."""
        return f"{self.dataset(dataset)}/{PAPER_TYPE}/labels.json"

    def appendix_table(self, dataset: str = DATASET, kind: str = "paper_types") -> str:
        """An appendix table of a dataset, by the kind of annotation it reads."""
        return f"{self.dataset(dataset)}/{APPENDIX_TABLES[kind]}"

    def human_eval_scores(self, dataset: str = DATASET) -> str:
        return f"{self.dataset(dataset)}/human_eval_scores.parquet"

    def log(self, rule: str, **keys: str) -> str:
        """The log of a rule's job (``rule``: a key of ``LOGS``); keys not given stay
        wildcards."""
        wildcards = {
            "dataset": DATASET,
            "model": MODEL,
            "kind": KIND,
            "perturbation": PERTURBATION,
            "cell": CELL,
            "evaluator": EVALUATOR,
        }
        return LOGS[rule].format(logs=f"{self.results}/logs/{TRACK}", **{**wildcards, **keys})
