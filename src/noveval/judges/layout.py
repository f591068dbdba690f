"""The judge study's results layout: every file the track writes under ``{results}``, spelled once.

Each method names one file or folder. Called without its keys it gives the rule's template, the
keys left as Snakemake wildcards (``{dataset}``, ``{model}``, ``{format}``, ``{setup}``,
``{ideas}``, ``{change}``); called with them it gives the concrete path the grid
(``noveval.judges.grid.inputs``), the pilot and the reproduction report read. A dataset's folder
holds its setups' instances and related work (``{format}/{setup}/``), its metrics, tables and
figures; a model's folder its cells (``{format}/{setup}/{ideas}/{change}/``: requests, verdicts, a
dedicated system's transcript), its generated ideas, rewrites and search steps, and its batches'
responses. The logs mirror the results under ``{results}/logs/judges`` (``LOGS``). Moving a file
is one edit here; a moved file reruns its jobs.
"""

from __future__ import annotations

from dataclasses import dataclass

from noveval.inference.batches import GENERATION, responses_path
from noveval.judges.grid.cells import (
    CUSTOM,
    GENERATED,
    PURPOSE_MECHANISM,
    STANDARD,
    ideation_setup_name,
)

TRACK = "judges"
DATASET, MODEL, FORMAT, SETUP = "{dataset}", "{model}", "{format}", "{setup}"
IDEAS, CHANGE, BATCH, PATH = "{ideas}", "{change}", "{batch}", "{path}"
GENERATOR, STRONGER, WEAKER = "{generator}", "{stronger}", "{weaker}"
JUDGE, WORDING = "{judge}", "{wording}"
# The tables and figures of a dataset (across its formats), and of one of its formats.
DATASET_OUTPUTS = (
    "cost_quality.png",
    "d_minus_sources.png",
    "motivation.png",
    "flip_rates.csv",
    "flip_rates.md",
    "plan_format.csv",
    "dataset_sizes.csv",
    "dataset_sizes.md",
    "ideation.csv",
    "ideation.md",
    "expert_study.csv",
    "expert_study.md",
)
FORMAT_OUTPUTS = (
    "metrics.parquet",
    "metrics.csv",
    "tables.md",
    "controlled_study.png",
    "soft_accuracy.png",  # pairwise only
    "plan_format.png",  # pairwise only
)
# Each rule's log (by its name less ``judges_``), under ``{logs}``: {results}/logs/judges.
_CELL = "{dataset}/{model}/{format}/{setup}/{ideas}/{change}"
_SETUP = "{dataset}/{format}/{setup}"
_STEP = "{dataset}/{model}/{format}/{setup}"
_SYSTEM = "{dataset}/{model}/pointwise/{setup}/standard"
_CUSTOM = "{dataset}/{model}/" + CUSTOM + "/{judge}/{format}/{setup}/{ideas}/{wording}/{change}"
LOGS = {
    "download": "{logs}/{dataset}/download/{path}.log",
    "instances": f"{{logs}}/{_SETUP}/instances.log",
    "generated_instances": "{logs}/{dataset}/generated-{generator}/instances.log",
    "ideation_instances": "{logs}/{dataset}/ideation-{stronger}-vs-{weaker}/instances.log",
    "rewritten_instances": f"{{logs}}/{_SETUP}/instances-purpose_mechanism.log",
    "related": f"{{logs}}/{_SETUP}/related.log",
    "generation_requests": "{logs}/{dataset}/{model}/generation/requests.log",
    "rewrite_requests": f"{{logs}}/{_STEP}/rewrite/requests.log",
    "search_contribution_requests": f"{{logs}}/{_STEP}/search_contributions/requests.log",
    "search_query_requests": f"{{logs}}/{_STEP}/search_queries/requests.log",
    "requests": f"{{logs}}/{_CELL}/requests.log",
    "verdicts": f"{{logs}}/{_CELL}/verdicts.log",
    "ai_scientist": f"{{logs}}/{_SYSTEM}/ai_scientist/check.log",
    "novelty_checker": f"{{logs}}/{_SYSTEM}/novelty_checker/verdicts.log",
    "metrics": "{logs}/{dataset}/{format}/metrics.log",
    "tables": "{logs}/{dataset}/{format}/tables.log",
    "controlled_study": "{logs}/{dataset}/{format}/controlled_study.log",
    "soft_accuracy": "{logs}/{dataset}/soft_accuracy.log",
    "plan_format_figure": "{logs}/{dataset}/plan_format_figure.log",
    "cost_quality": "{logs}/{dataset}/cost_quality.log",
    "motivation": "{logs}/{dataset}/motivation.log",
    "d_minus_sources": "{logs}/{dataset}/d_minus_sources.log",
    "ideation": "{logs}/{dataset}/ideation.log",
    "flip_rates": "{logs}/{dataset}/flip_rates.log",
    "explorer": "{logs}/{dataset}/explorer.log",
    "plan_format": "{logs}/{dataset}/plan_format.log",
    "dataset_sizes": "{logs}/{dataset}/dataset_sizes.log",
    "expert_study": "{logs}/{dataset}/expert_study.log",
    "custom_requests": f"{{logs}}/{_CUSTOM}/requests.log",
    "custom_verdicts": f"{{logs}}/{_CUSTOM}/verdicts.log",
    "card": "{logs}/cards/{judge}.log",
    "leaderboard": "{logs}/cards/leaderboard.log",
}


class _Wildcards(dict):
    """Keys not given stay Snakemake wildcards."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def downloads_folder(results: str) -> str:
    """The downloaded release files of every judges dataset (``noveval.judges.release``)."""
    return f"{results}/downloads/{TRACK}"


def generated_setup(generator: str = GENERATOR) -> str:
    """The setup pairing the base setup's D₊ ideas with a generator's D₋ ideas."""
    return f"{GENERATED}{generator}"


def cell_keys(cell) -> tuple[str, ...]:
    """A ``JudgeCell``'s keys, in the order ``JudgesPaths.cell`` takes them."""
    return (cell.dataset, cell.model, cell.format, cell.setup, cell.ideas, cell.change)


@dataclass(frozen=True)
class JudgesPaths:
    """The judge study's files under one results folder."""

    results: str

    # A dataset's release, instances and related work.
    def release_download(self, dataset: str = DATASET, path: str = PATH) -> str:
        """A declared release file, downloaded (``ReleaseFile.local``)."""
        return f"{downloads_folder(self.results)}/{dataset}/{path}"

    def dataset(self, dataset: str = DATASET) -> str:
        return f"{self.results}/{TRACK}/{dataset}"

    def setup(self, dataset: str = DATASET, format: str = FORMAT, setup: str = SETUP) -> str:
        """A setup's folder of one format: its instances and related work."""
        return f"{self.dataset(dataset)}/{format}/{setup}"

    def instances(
        self, dataset: str = DATASET, format: str = FORMAT, setup: str = SETUP, ideas=STANDARD
    ) -> str:
        """A setup's instances in one form of the ideas (``instances-{ideas}`` for another form
        than the ideas as written)."""
        suffix = "" if ideas == STANDARD else f"-{ideas}"
        return f"{self.setup(dataset, format, setup)}/instances{suffix}.parquet"

    def rewritten_instances(
        self, dataset: str = DATASET, format: str = FORMAT, setup: str = SETUP
    ) -> str:
        """A setup's instances in the purpose-mechanism form (rule judges_rewritten_instances)."""
        return self.instances(dataset, format, setup, PURPOSE_MECHANISM)

    def generated_instances(
        self, dataset: str = DATASET, format: str = FORMAT, generator: str = GENERATOR
    ) -> str:
        return self.instances(dataset, format, generated_setup(generator))

    def ideation_instances(
        self, dataset: str = DATASET, stronger: str = STRONGER, weaker: str = WEAKER
    ) -> str:
        """The pairs of a stronger and a weaker generator's ideas (an ideation setup)."""
        return self.instances(dataset, "pairwise", ideation_setup_name(stronger, weaker))

    def related(self, dataset: str = DATASET, format: str = FORMAT, setup: str = SETUP) -> str:
        """The related work retrieved for a setup's ideas (the retrieval change)."""
        return f"{self.setup(dataset, format, setup)}/related.parquet"

    # A model's folder: its cells, its generated ideas, rewrites and search steps, its batches.
    def model(self, dataset: str = DATASET, model: str = MODEL) -> str:
        return f"{self.dataset(dataset)}/{model}"

    def cell(
        self,
        dataset: str = DATASET,
        model: str = MODEL,
        format: str = FORMAT,
        setup: str = SETUP,
        ideas: str = IDEAS,
        change: str = CHANGE,
    ) -> str:
        """A cell's folder: .../{format}/{setup}/{ideas}/{change} (a dedicated system's cells on
        the ideas as written, its name the change)."""
        return f"{self.model(dataset, model)}/{format}/{setup}/{ideas}/{change}"

    def folder(self, cell) -> str:
        """A ``JudgeCell``'s folder."""
        return self.cell(*cell_keys(cell))

    def requests(self, *keys: str, **named: str) -> str:
        """A cell's requests table (the keys of ``cell``)."""
        return f"{self.cell(*keys, **named)}/requests.parquet"

    def verdicts(self, *keys: str, **named: str) -> str:
        """A cell's verdicts table (the keys of ``cell``)."""
        return f"{self.cell(*keys, **named)}/verdicts.parquet"

    def transcript(self, *keys: str, **named: str) -> str:
        """A dedicated system's transcript of its calls (the keys of ``cell``)."""
        return f"{self.cell(*keys, **named)}/transcript.jsonl"

    def system(self, system: str, name="verdicts", dataset=DATASET, model=MODEL, setup=SETUP):
        """A dedicated system's ``verdicts`` or ``transcript``: pointwise, on the ideas as
        written."""
        return getattr(self, name)(dataset, model, "pointwise", setup, STANDARD, system)

    def step_requests(
        self,
        step: str,
        dataset: str = DATASET,
        model: str = MODEL,
        format: str = FORMAT,
        setup: str = SETUP,
    ) -> str:
        """The requests of a step on a setup's ideas (``rewrite``, ``search_contributions``,
        ``search_queries``)."""
        return f"{self.model(dataset, model)}/{format}/{setup}/{step}/requests.parquet"

    def generation_requests(self, setup: str, dataset: str = DATASET, model=MODEL) -> str:
        """A generator's requests: one idea per pair of the base ``setup``."""
        return f"{self.model(dataset, model)}/{GENERATION}/{setup}/requests.parquet"

    def responses(self, dataset: str = DATASET, model: str = MODEL, batch: str = BATCH) -> str:
        """A batch's responses table (rule responses', shared by the tracks)."""
        return responses_path(self.results, TRACK, dataset, model, batch)

    # A custom judge's cells (under its model's folder, answered in the model's batch), its card.
    def custom_cell(self, file: str, cell=None) -> str:
        """A custom cell's ``file`` (requests, calls or verdicts ``.parquet``); without ``cell``
        (a ``CustomCell``) the rule's template."""
        keys = (
            (DATASET, MODEL, JUDGE, FORMAT, SETUP, IDEAS, WORDING, CHANGE)
            if cell is None
            else (cell.dataset, cell.model, cell.judge, cell.format, cell.setup, cell.ideas)
            + (cell.wording, cell.change)
        )
        dataset, model, judge, *rest = keys
        return f"{self.model(dataset, model)}/{CUSTOM}/{judge}/{'/'.join(rest)}/{file}"

    def card(self, judge: str = JUDGE, extension: str = "md") -> str:
        """A judge's stability card (``md``), its figure (``png``), its measurements
        (``parquet``)."""
        return f"{self.results}/{TRACK}/cards/{judge}.{extension}"

    def leaderboard(self, extension: str = "md") -> str:
        """Every card of the run in one table (``md``, ``csv``)."""
        return f"{self.results}/{TRACK}/cards/leaderboard.{extension}"

    # A dataset's metrics, tables and figures.
    def metrics(self, dataset: str = DATASET, format: str = FORMAT, extension="parquet") -> str:
        return self.format_output(f"metrics.{extension}", dataset, format)

    def format_output(self, name: str, dataset: str = DATASET, format: str = FORMAT) -> str:
        """A table or figure of one format (``FORMAT_OUTPUTS``)."""
        if name not in FORMAT_OUTPUTS:
            raise ValueError(f"judges: no output {name} of a format")
        return f"{self.dataset(dataset)}/{format}/{name}"

    def explorer(self, dataset: str = DATASET) -> str:
        """A dataset's instance explorer (a folder: index.html and its data scripts)."""
        return f"{self.dataset(dataset)}/explorer"

    def output(self, name: str, dataset: str = DATASET) -> str:
        """A table or figure of a dataset (``DATASET_OUTPUTS``)."""
        if name not in DATASET_OUTPUTS:
            raise ValueError(f"judges: no output {name} of a dataset")
        return f"{self.dataset(dataset)}/{name}"

    def log(self, rule: str, **keys: str) -> str:
        """The log of a rule's job (``rule``: a key of ``LOGS``); keys not given stay
        wildcards."""
        logs = f"{self.results}/logs/{TRACK}"
        return LOGS[rule].format_map(_Wildcards(keys, logs=logs))
