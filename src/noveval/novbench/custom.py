"""A NovBench evaluator of the user's (config ``novbench.custom.<name>``): a registry model and a
Jinja template of the novelty evaluation, run as one more cell of the grid.

The template reads the paper's fields (``FIELDS``): ``descriptions``, the novelty sentences of the
introduction (a list), and ``related``, the retrieved related work (a list of ``{title,
abstract}``). A template that reads ``related`` is a RAG-style prompt: it runs only on datasets
whose papers carry retrieved work. An optional ``system`` prompt (plain text, not rendered) goes
before it.

The evaluator is a cell whose strategy is ``custom-<name>`` (``custom_strategy``): its requests
join its model's inference batch, its outputs are parsed by the paper's rules and scored with the
paper's four metrics, like any cell. Its requests are built like the paper cells'
(``build_request``, one per paper, the paper's decoding: ``noveval.novbench.decoding``).

Everything is checked when the grid is read, before any call: the model must be in the registry,
the template must parse and read only the paper's fields; each error names the entry
(``CustomEvaluatorError``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from noveval.core.registry import ModelSpec
from noveval.core.templates import chat_messages, check_fields, template_fields, template_text
from noveval.inference.requests import build_request
from noveval.novbench.decoding import call_decoding

CUSTOM_PREFIX = "custom-"
FIELDS = frozenset({"descriptions", "related"})
RELATED = "related"
NAME = re.compile(r"^[A-Za-z0-9_-]+$")
RESERVED = ("leaderboard",)  # the leaderboard's file sits beside the cards


class CustomEvaluatorError(ValueError):
    """A custom evaluator's config is wrong; the message names the entry."""


def custom_strategy(name: str) -> str:
    """The strategy of an evaluator's cells: ``custom-<name>``."""
    return f"{CUSTOM_PREFIX}{name}"


def evaluator_of(strategy: str) -> str | None:
    """The evaluator a strategy names, or ``None`` for a paper strategy (zero, few, rag)."""
    return strategy.removeprefix(CUSTOM_PREFIX) if strategy.startswith(CUSTOM_PREFIX) else None


@dataclass(frozen=True)
class CustomEvaluator:
    """One ``novbench.custom`` entry, checked."""

    name: str
    model: str
    template: str
    system: str | None = None

    @property
    def strategy(self) -> str:
        return custom_strategy(self.name)

    @property
    def uses_related(self) -> bool:
        """Whether the template reads the retrieved related work (a RAG-style prompt)."""
        return RELATED in template_fields(self.template)

    def messages(self, paper: dict) -> list[dict]:
        """The chat messages of one paper: the system prompt (if any), the rendered template."""
        fields = {"descriptions": list(paper["descriptions"])}
        if self.uses_related:
            fields[RELATED] = related_work(paper)
        return chat_messages(self.template, self.system, **fields)


def related_work(paper: dict) -> list[dict]:
    """A paper's retrieved related work as ``{title, abstract}``, or an error when it has none."""
    titles = list(paper.get("retrieved_titles") or [])
    abstracts = list(paper.get("retrieved_abstracts") or [])
    if not titles:
        raise ValueError(f"paper {paper['paper_id']}: the template reads related, none retrieved")
    return [{"title": t, "abstract": a} for t, a in zip(titles, abstracts, strict=False)]


def custom_evaluators(
    section: dict, registry=None, root: str | Path = "."
) -> dict[str, CustomEvaluator]:
    """Every ``novbench.custom`` entry, checked (``registry``: the model must be one of it)."""
    return {
        name: custom_evaluator(name, entry, registry, root)
        for name, entry in sorted((section.get("custom") or {}).items())
    }


def custom_evaluator(
    name: str, entry: dict, registry=None, root: str | Path = "."
) -> CustomEvaluator:
    """One entry checked: its name, model and templates."""
    where = f"novbench.custom.{name}"
    if not NAME.match(name) or name in RESERVED:
        raise CustomEvaluatorError(
            f"{where}: a name of letters, digits, _ and - (not {', '.join(RESERVED)})"
        )
    model = entry.get("model")
    if not model:
        raise CustomEvaluatorError(f"{where}: give the registry model it runs on (model)")
    if registry is not None:
        try:
            registry.model(model)
        except ValueError as error:
            raise CustomEvaluatorError(f"{where}: model: {error}") from None
    if not entry.get("template"):
        raise CustomEvaluatorError(f"{where}: give the template of the evaluation (template)")
    template = _text(where, "template", entry["template"], root)
    check_fields(f"{where}: template", template, FIELDS, "the papers", CustomEvaluatorError)
    system = _text(where, "system", entry["system"], root) if entry.get("system") else None
    return CustomEvaluator(name=name, model=model, template=template, system=system)


def custom_requests(
    evaluator: CustomEvaluator,
    papers: list[dict],
    spec: ModelSpec,
    decoding: dict,
    generation_config: dict | None = None,
) -> list[dict]:
    """One chat request per paper (its ``paper_id`` the item), sent with the paper cells'
    decoding (``call_decoding``; an open model in paper mode follows its generation config)."""
    sent = call_decoding(decoding, spec, generation_config)
    return [
        build_request(
            item_id=paper["paper_id"], spec=spec, messages=evaluator.messages(paper), decoding=sent
        )
        for paper in papers
    ]


def _text(where: str, key: str, value, root: str | Path) -> str:
    """A template's text (``template_text``), or an error naming the file it lacks."""
    try:
        return template_text(value, root)
    except FileNotFoundError as missing:
        raise CustomEvaluatorError(f"{where}.{key}: no file {missing.filename}") from None
