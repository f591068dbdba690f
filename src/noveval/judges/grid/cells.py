"""The judge grid's names: the changes, the idea forms, the setups, and one cell (dataset ×
model × format × setup × ideas × change)."""

from __future__ import annotations

from dataclasses import dataclass

from noveval.inference.batches import (
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
LABEL_SEPARATOR = "+"  # joins a change and a form of the ideas in a display label only


def change_label(change: str, ideas: str = STANDARD) -> str:
    """A cell's display label (its rows in the tables and figures, the published numbers' key):
    the change itself on standard ideas; on another form of the ideas, the form's name for the
    reference prompt (``purpose_mechanism``) and ``{change}+{ideas}`` for the others
    (``P3+purpose_mechanism``). Never a path segment or a wildcard: the cell's folder holds the
    form of the ideas and the change as two (``JudgeCell.folder``)."""
    if ideas == STANDARD:
        return change
    return ideas if change == "reference" else f"{change}{LABEL_SEPARATOR}{ideas}"


# The `change` wildcard: the changes and the dedicated systems' names (a change alone); the
# `ideas` wildcard: the forms of the ideas.
CHANGES = (*CONTROLLED, *SYSTEMS)
# Every cell's (change, form of the ideas), in table order: the standard ideas' changes, then
# each other form's, then the systems (on the ideas as written).
CELL_KINDS = (
    *(
        (change, ideas)
        for ideas in IDEA_FORMATS
        for change in (CONTROLLED if ideas == STANDARD else ON_OTHER_FORMATS)
    ),
    *((system, STANDARD) for system in SYSTEMS),
)
LABELS = tuple(change_label(*kind) for kind in CELL_KINDS)  # the display labels, table order
# display label -> (change, form of the ideas): a lookup of the names above, for the published
# numbers' keys (src/noveval/core/published) and the plan's per-label costs
LABEL_KINDS = dict(zip(LABELS, CELL_KINDS, strict=True))


def label_kind(label: str) -> tuple[str, str]:
    """(change, form of the ideas) of a display label; another name (a pattern, a system this
    pipeline lacks) as a change on the ideas as written."""
    return LABEL_KINDS.get(label, (label, STANDARD))


def labelled(frame):
    """A table of cells (verdicts, metrics: columns ``ideas`` and ``change``) with each row's
    display label (``change_label``); a table without ``ideas`` holds the ideas as written."""
    if "ideas" not in frame:
        frame = frame.assign(ideas=STANDARD)
    labels = [change_label(c, i) for c, i in zip(frame["change"], frame["ideas"], strict=True)]
    return frame.assign(change_label=labels)


def release_kind(format: str, ideas: str) -> str:
    """The release file a cell on ideas of form ``ideas`` reads: the authors name the
    purpose-mechanism form's files ``{format}_plan.yaml`` (kinds ``pointwise_plan``,
    ``pairwise_plan``)."""
    return f"{format}_plan" if ideas == PURPOSE_MECHANISM else format


def configured_kinds(section: dict) -> list[tuple[str, str]]:
    """The (change, form of the ideas) of the cells a ``judges`` config section asks for (before
    omissions; ``idea_formats`` is optional)."""
    return [
        *((change, STANDARD) for change in section["changes"]),
        *(
            (change, ideas)
            for ideas, changes in section.get("idea_formats", {}).items()
            for change in changes
        ),
    ]


def configured_changes(section: dict) -> list[str]:
    """The display labels of the cells a ``judges`` config section asks for."""
    return [change_label(*kind) for kind in configured_kinds(section)]


def ideation_setup_name(stronger: str, weaker: str) -> str:
    return f"{IDEATION}{stronger}{VERSUS}{weaker}"


@dataclass(frozen=True)
class JudgeCell:
    dataset: str
    model: str
    format: str
    setup: str
    ideas: str  # the form of the ideas judged (``IDEA_FORMATS``)
    change: str  # the change to the reference run, or a dedicated system's name (``CHANGES``)

    @property
    def label(self) -> str:
        """The cell's display label (``change_label``)."""
        return change_label(self.change, self.ideas)

    @property
    def batched(self) -> bool:
        """Whether the cell's calls are requests of its model's inference batch."""
        return self.change not in (*DERIVED, *LOOPED, *OWN_RULE)


def cell_id(format: str, setup: str, ideas: str, change: str) -> str:
    """A cell's name in its batch's responses table (its requests table's folder under the
    model's: ``noveval.inference.job.batch_requests``)."""
    return f"{format}/{setup}/{ideas}/{change}"


CUSTOM = "custom"  # the folder of the custom judges' cells under their model's


@dataclass(frozen=True)
class CustomCell:
    """One cell of a custom judge (config ``judges.custom``): its wording (``reference``: the
    judge's own template, else a variant's name) and its change (``reference``, ``retrieval``,
    ``low_reasoning``, ``reviewers_cue``; the purpose-mechanism form is ``ideas``)."""

    dataset: str
    judge: str
    model: str
    format: str
    setup: str
    ideas: str
    wording: str
    change: str
