"""A judge of the user's (config ``judges.custom.<name>``): its templates, settings and answer rule.

A custom judge is a registry model, a pointwise and/or pairwise Jinja template of the user's (the
instance's fields: ``POINTWISE_FIELDS`` / ``PAIRWISE_FIELDS``), an optional system prompt, request
settings (effort, calls per decision) and an answer rule: a regular expression whose first group,
or a JSON field, holds a word that ``labels`` maps to a verdict label. ``variants`` are other
wordings (templates) of the same judge. Everything is checked when the config is read, before any
call: a template that does not parse or uses a field the instances lack, a rule that does not
compile or maps to no label, each an error naming the judge (``CustomJudgeError``). An answer the
rule cannot read is unparseable (``None``), never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from noveval.core.answers import strip_reasoning
from noveval.core.templates import chat_messages, check_fields, template_text
from noveval.judges.verdicts import json_objects

FORMATS = ("pointwise", "pairwise")
# The fields a template may use: the instance's own and, with retrieval on, its related work
# (the retrieved abstracts: pointwise a list, pairwise one list per idea as shown; empty with
# retrieval off).
POINTWISE_FIELDS = frozenset({"idea", "area", "title", "related"})
PAIRWISE_FIELDS = frozenset({"ideas", "idea_1", "idea_2", "area", "titles", "related"})
FIELDS = {"pointwise": POINTWISE_FIELDS, "pairwise": PAIRWISE_FIELDS}
# The verdict labels an answer rule maps to, and the verdict each stands for (pointwise 1/0;
# pairwise the 0-based index of the idea as shown, as noveval.judges.verdicts parses).
LABELS = {
    "pointwise": {"novel": 1, "not_novel": 0},
    "pairwise": {"idea_1": 0, "idea_2": 1},
}
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
REFERENCE_WORDING = "reference"
# The template-independent changes a custom judge can be measured under (noveval.judges.
# custom_requests applies them).
CHANGES = ("low_reasoning", "retrieval", "reviewers_cue", "purpose_mechanism")
# The formats the reviewers' cue applies to (the paper's cue, P3 against P4, is pairwise only).
CUE_FORMATS = ("pairwise",)


class CustomJudgeError(ValueError):
    """A custom judge's config is wrong; the message names the judge."""


@dataclass(frozen=True)
class AnswerRule:
    """How an answer's verdict is read: ``pattern``'s first group, or the JSON ``field``; the
    word found (stripped, case-folded) is looked up in ``labels`` (word -> verdict label)."""

    labels: dict[str, str]
    pattern: str | None = None
    field: str | None = None

    def verdict(self, text: str | None, format: str) -> int | None:
        """The verdict of one answer, or ``None`` when the rule cannot read it."""
        answer = strip_reasoning(text or "")
        words: list[str] = []
        if self.field is not None:
            words = [str(o[self.field]) for o in json_objects(answer) if self.field in o]
        else:
            found = _regex(self.pattern).findall(answer)
            words = [m if isinstance(m, str) else m[0] for m in found]
        for word in reversed(words):
            label = self.labels.get(_fold(word))
            if label is not None:
                return LABELS[format][label]
        return None


@dataclass(frozen=True)
class CustomJudge:
    """One ``judges.custom`` entry, checked. ``templates``: wording -> format -> template text
    (wording ``reference`` is the judge's own; the others its variants)."""

    name: str
    model: str
    templates: dict[str, dict[str, str]]
    answers: dict[str, AnswerRule]
    system: str | None = None
    effort: str | None = None
    calls: int = 1
    changes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def formats(self) -> tuple[str, ...]:
        return tuple(f for f in FORMATS if f in self.templates[REFERENCE_WORDING])

    @property
    def wordings(self) -> tuple[str, ...]:
        return tuple(self.templates)

    def messages(self, format: str, wording: str, **fields) -> list[dict]:
        """The chat messages of one call: the system prompt (if any), then the rendered template."""
        return chat_messages(self.templates[wording][format], self.system, **fields)

    def verdict(self, text: str | None, format: str) -> int | None:
        """The verdict of one answer under this judge's rule for ``format``, or ``None``."""
        return self.answers[format].verdict(text, format)


def custom_judges(section: dict, registry=None, root: str | Path = ".") -> dict[str, CustomJudge]:
    """Every ``judges.custom`` entry, checked (``registry``: the model must be one of it)."""
    return {
        name: custom_judge(name, entry, registry, root)
        for name, entry in (section.get("custom") or {}).items()
    }


def custom_judge(name: str, entry: dict, registry=None, root: str | Path = ".") -> CustomJudge:
    """One entry checked: its model, templates, variants and answer rule."""
    where = f"judges.custom.{name}"
    if registry is not None:
        try:
            registry.model(entry["model"])
        except ValueError as error:
            raise CustomJudgeError(f"{where}.model: {error}") from None
    reference = {f: template_text(entry[f], root) for f in FORMATS if entry.get(f)}
    if not reference:
        raise CustomJudgeError(f"{where}: give a pointwise or a pairwise template (or both)")
    templates = {REFERENCE_WORDING: reference}
    for variant, wording in (entry.get("variants") or {}).items():
        if variant == REFERENCE_WORDING:
            raise CustomJudgeError(f"{where}.variants: '{REFERENCE_WORDING}' names the judge's own")
        templates[variant] = {f: template_text(wording[f], root) for f in FORMATS if wording.get(f)}
        if set(templates[variant]) - set(reference):
            raise CustomJudgeError(
                f"{where}.variants.{variant}: a format the judge has no template for"
            )
    for wording, by_format in templates.items():
        for format, text in by_format.items():
            what = f"{where}: template {format} ({wording})"
            check_fields(what, text, FIELDS[format], f"the {format} instances", CustomJudgeError)
    rule = entry.get("answer") or {}
    answers = {f: _rule(f"{where}.answer", rule, f) for f in reference}
    effort = entry.get("effort")
    if effort is not None and effort not in EFFORTS:
        raise CustomJudgeError(f"{where}.effort: '{effort}' is none of {', '.join(EFFORTS)}")
    calls = int(entry.get("calls", 1))
    if calls < 1:
        raise CustomJudgeError(f"{where}.calls: at least 1 call per decision")
    return CustomJudge(
        name=name,
        model=entry["model"],
        templates=templates,
        answers=answers,
        system=template_text(entry["system"], root) if entry.get("system") else None,
        effort=effort,
        calls=calls,
        changes=tuple(entry.get("changes") or ()),
    )


def _rule(where: str, rule: dict, format: str) -> AnswerRule:
    """The answer rule of one format: ``answer.{format}`` if given, else ``answer`` itself."""
    rule = rule.get(format, rule)
    if bool(rule.get("regex")) == bool(rule.get("json")):
        raise CustomJudgeError(f"{where}: give one of regex or json (the field holding the answer)")
    pattern = rule.get("regex")
    if pattern is not None:
        try:
            groups = _regex(pattern).groups
        except re.error as error:
            raise CustomJudgeError(f"{where}.regex does not compile: {error}") from None
        if groups < 1:
            raise CustomJudgeError(f"{where}.regex: a group must capture the answer's word")
    labels = {_fold(str(word)): str(label) for word, label in (rule.get("labels") or {}).items()}
    known = LABELS[format]
    wrong = sorted({label for label in labels.values() if label not in known})
    if wrong or not labels:
        raise CustomJudgeError(
            f"{where}.labels map to no {format} verdict label"
            + (f" ({', '.join(wrong)})" if wrong else "")
            + f"; the labels are {', '.join(known)}"
        )
    missing = [label for label in known if label not in labels.values()]
    if missing:
        raise CustomJudgeError(f"{where}.labels: no answer maps to {', '.join(missing)} ({format})")
    return AnswerRule(labels=labels, pattern=pattern, field=rule.get("json"))


def _fold(word: str) -> str:
    return " ".join(word.split()).casefold()


def _regex(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)
