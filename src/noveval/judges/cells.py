"""The judge grid's names: the changes, the idea forms, the setups, and one cell (dataset ×
model × format × setup × change)."""

from __future__ import annotations

from dataclasses import dataclass

from noveval.batches import (
    SEARCH_CONTRIBUTIONS,
    SEARCH_QUERIES,
)
from noveval.judges.prompts import SYSTEMS

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
OWN_RULE = (
    "novelty_checker",
)  # systems judged by a rule of their own: no requests, no inference batch
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
