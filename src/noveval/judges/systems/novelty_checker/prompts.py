"""The Idea Novelty Checker's prompts: the authors' (read from the upstream files with ``ast``,
never executed) or the project's own, and the answers they ask for (keywords and
titles, the verdict's class)."""

from __future__ import annotations

import ast
import copy
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from noveval.core.templates import PROMPT_DIR
from noveval.core.upstream import UpstreamSource

log = logging.getLogger(__name__)


PIPELINE_PROMPTS = "noveltychecker/utils/prompts.py"  # upstream novelty_checker

CHECKER_PROMPTS = "noveltychecker/models/idea_novelty_checker/prompts.py"

EXAMPLES = "noveltychecker/models/idea_novelty_checker/incontext_examples/{}.json"

BUILTIN = PROMPT_DIR / "judges" / "novelty_checker.yaml"

VERDICT_PROMPTS = {
    "relaxed": "prompt_NoveltyChecker_allowsIncrementalNovelty",
    "less-relaxed": "prompt_NoveltyChecker_allowsIncrementalNovelty_lessRelaxed",
}

RERANK_PROMPTS = {  # variant: (the messages before the passages, the last message)
    "base": ("prompt_RankGPT_prefixRanking", "prompt_RankGPT_postRanking"),
    "purpose": ("prompt_RankGPT_prefixRanking", "prompt_RankGPT_postRankingPurpose"),
    "priority": ("prompt_RankGPT_prefixRankingPriority", "prompt_RankGPT_IdeaPriority"),
}

_KEYWORDS = re.compile(r"<keywords>(.*?)</keywords>", re.DOTALL)

_TITLES = re.compile(r"<titles>(.*?)</titles>", re.DOTALL)

EDGES = " \n#:][]"  # their clean_text's characters


def upstream_files(examples: str) -> list[str]:
    """The upstream files a run reads: the two prompt modules and the in-context examples."""
    return [PIPELINE_PROMPTS, CHECKER_PROMPTS, EXAMPLES.format(examples)]


def upstream_root(first_file: str) -> str:
    """The folder, laid out like the checker's repository, holding ``first_file``."""
    return first_file.removesuffix(PIPELINE_PROMPTS).rstrip("/")


class UpstreamFunction:
    """A prompt function of the upstream files, rendered by reading its statements: assignments of
    literals and f-strings, ``x.extend(y)``, a ``for`` over the papers that appends one message
    each, and ``return``. Anything else is refused."""

    def __init__(self, source: str, name: str, where: str):
        found = [
            node
            for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef) and node.name == name
        ]
        if len(found) != 1:
            raise ValueError(f"{where}: no function {name}")
        self.node, self.where = found[0], f"{where}:{name}"
        self.parameters = [a.arg for a in self.node.args.args]

    def __call__(self, *arguments, papers: list[dict] | None = None):
        names = dict(zip(self.parameters, arguments, strict=True))
        for statement in self.node.body:
            match statement:
                case ast.Expr(value=ast.Constant(value=str())):
                    continue  # a docstring
                case ast.Assign(targets=[ast.Name(id=target)], value=value):
                    names[target] = self._value(value, names)
                case ast.Expr(
                    value=ast.Call(
                        func=ast.Attribute(value=ast.Name(id=target), attr="extend"),
                        args=[value],
                    )
                ):
                    names[target] = names[target] + self._value(value, names)
                case ast.For(body=[ast.Expr(value=ast.Call(func=ast.Attribute(attr="append")))]):
                    self._each_paper(statement, names, papers or [])
                case ast.Return(value=value):
                    return self._value(value, names)
                case _:
                    raise ValueError(f"{self.where}: cannot read {ast.unparse(statement)}")
        raise ValueError(f"{self.where}: no return")

    def _each_paper(self, loop: ast.For, names: dict, papers: list[dict]) -> None:
        """``for i, (_, row) in enumerate(…iterrows()): target.append(message)``."""
        match loop.target:
            case ast.Tuple(elts=[ast.Name(id=index), ast.Tuple(elts=[_, ast.Name(id=row)])]):
                pass
            case _:
                raise ValueError(f"{self.where}: cannot read {ast.unparse(loop.target)}")
        call = loop.body[0].value
        target = call.func.value.id
        for i, paper in enumerate(papers):
            names[target] = [*names[target], self._value(call.args[0], {index: i, row: paper})]

    def _value(self, node: ast.AST, names: dict):
        match node:
            case ast.Constant(value=value):
                return value
            case ast.JoinedStr(values=parts):
                return "".join(str(self._value(part, names)) for part in parts)
            case ast.FormattedValue(value=value, conversion=-1, format_spec=None):
                return self._value(value, names)
            case ast.Name(id=name) if name in names:
                return names[name]
            case ast.Subscript(value=value, slice=key):
                return self._value(value, names)[self._value(key, names)]
            case ast.List(elts=items):
                return [self._value(item, names) for item in items]
            case ast.Dict(keys=keys, values=values):
                return {self._value(k, names): self._value(v, names) for k, v in zip(keys, values)}
        raise ValueError(f"{self.where}: cannot read {ast.unparse(node)}")


def window_turns(passages: list[str]) -> list[dict]:
    """RankGPT's passages of a window: each a user turn acknowledged by the assistant."""
    turns = []
    for rank, passage in enumerate(passages, start=1):
        turns += [
            {"role": "user", "content": f"[{rank}] {passage}"},
            {"role": "assistant", "content": f"Received passage [{rank}]."},
        ]
    return turns


@dataclass(frozen=True)
class Prompts:
    """The checker's prompt functions and its in-context examples, from the upstream files (paper
    mode)."""

    keywords: UpstreamFunction
    facets: UpstreamFunction
    rerank_prefix: UpstreamFunction
    rerank_last: UpstreamFunction
    verdict_function: UpstreamFunction
    examples: str

    @classmethod
    def read(
        cls, checker_root: str | Path, verdict: str, examples: str, rerank: str, as_run: bool
    ) -> Prompts:
        """``verdict``: the prompt style (relaxed, less-relaxed); ``examples``: the in-context
        file (relaxed, less-relaxed); ``rerank``: RankGPT's variant (base, purpose, priority).
        ``as_run``: the examples as their code passes them, the opened file (its text form is
        the file object's description, not the examples); else the examples' text."""
        source = UpstreamSource("novelty_checker", Path(checker_root))
        pipeline, checker = source.text(PIPELINE_PROMPTS), source.text(CHECKER_PROMPTS)
        for key, choices in (("verdict", VERDICT_PROMPTS), ("rerank", RERANK_PROMPTS)):
            if {"verdict": verdict, "rerank": rerank}[key] not in choices:
                raise ValueError(f"judges.novelty_checker.{key} must be one of {sorted(choices)}")
        if examples not in VERDICT_PROMPTS:
            raise ValueError(
                f"judges.novelty_checker.examples must be one of {sorted(VERDICT_PROMPTS)}"
            )
        path = EXAMPLES.format(examples)
        prefix, last = RERANK_PROMPTS[rerank]
        return cls(
            UpstreamFunction(pipeline, "prompt_PaperRetrieval_Keywords", PIPELINE_PROMPTS),
            UpstreamFunction(pipeline, "prompt_RankGPT_IdeaFacets", PIPELINE_PROMPTS),
            UpstreamFunction(pipeline, prefix, PIPELINE_PROMPTS),
            UpstreamFunction(pipeline, last, PIPELINE_PROMPTS),
            UpstreamFunction(checker, VERDICT_PROMPTS[verdict], CHECKER_PROMPTS),
            opened_file(path) if as_run else json.loads(source.text(path)),
        )

    def rerank(self, idea: str, facets: str, passages: list[str]) -> list[dict]:
        """One RankGPT window: the instruction, each passage as a user turn acknowledged by the
        assistant, the last message (with the facets in the priority variant)."""
        arguments = (idea, facets) if len(self.rerank_prefix.parameters) == 3 else (idea,)
        chat = copy.deepcopy(self.rerank_prefix(*arguments, len(passages)))
        last = self.rerank_last(*arguments, len(passages))
        return [*chat, *window_turns(passages), {"role": "user", "content": last}]

    def verdict(self, idea: str, papers: list[dict]) -> list[dict]:
        """The final comparison of the idea with the papers shown."""
        return self.verdict_function(idea, papers, self.examples, papers=papers)


@dataclass(frozen=True)
class BuiltinPrompts:
    """The project's own messages for each step (the builtin mode): format strings of
    ``prompts/judges/novelty_checker.yaml`` and its in-context examples."""

    texts: dict

    @classmethod
    def read(cls, path: Path = BUILTIN) -> BuiltinPrompts:
        from noveval.core.yaml_files import load_yaml

        return cls(load_yaml(path.read_text()))

    def keywords(self, idea: str) -> list[dict]:
        return [
            {"role": "system", "content": self.texts["keywords_system"]},
            {"role": "user", "content": self.texts["keywords_user"].format(idea=idea)},
        ]

    def facets(self, idea: str) -> list[dict]:
        return [{"role": "user", "content": self.texts["facets"].format(idea=idea)}]

    def rerank(self, idea: str, facets: str, passages: list[str]) -> list[dict]:
        """One RankGPT window: the instruction with the facets, the passages, the last ask."""
        values = {"idea": idea, "facets": facets or "(none)", "count": len(passages)}
        return [
            {"role": "system", "content": self.texts["rerank_system"].format(**values)},
            *window_turns(passages),
            {"role": "user", "content": self.texts["rerank_last"].format(**values)},
        ]

    def papers_text(self, papers: list[dict]) -> str:
        """Papers as the verdict shows them, numbered from 0."""
        return "\n".join(
            self.texts["paper"].format(number=i, title=p["title"], abstract=p["abstract"])
            for i, p in enumerate(papers)
        )

    def verdict(self, idea: str, papers: list[dict]) -> list[dict]:
        """The final comparison: the instruction with the examples, the idea and the papers."""
        examples = "\n\n".join(
            self.texts["example"].format(
                idea=example["idea"],
                papers=self.papers_text(example["papers"]),
                category=example["category"],
                review=example["review"],
            )
            for example in self.texts["examples"]
        )
        user = self.texts["verdict_user"].format(idea=idea, papers=self.papers_text(papers))
        return [
            {"role": "system", "content": self.texts["verdict_system"].format(examples=examples)},
            {"role": "user", "content": user},
        ]


def load_prompts(checker_root: str | Path | None, settings: dict) -> Prompts | BuiltinPrompts:
    """The upstream prompts in paper mode (``checker_root``: the upstream files, with
    ``settings``' prompt, examples, rerank variant), else the builtin messages."""
    if checker_root is None:
        return BuiltinPrompts.read()
    return Prompts.read(
        checker_root,
        settings["prompt"],
        settings["examples"],
        settings["rerank_variant"],
        settings["examples_as_run"],
    )


def opened_file(path: str) -> str:
    """How an f-string shows a text file opened for reading (their in-context part)."""
    return f"<_io.TextIOWrapper name='{path}' mode='r' encoding='UTF-8'>"


def parse_keywords(text: str) -> tuple[list[str], list[str]]:
    """The Python lists between <keywords> and <titles> tags; an unreadable list is empty."""
    found = []
    for pattern in (_KEYWORDS, _TITLES):
        match = pattern.search(text or "")
        try:
            value = ast.literal_eval(match.group(1).strip()) if match else []
        except (ValueError, SyntaxError):
            value = []
        found.append([str(v) for v in value] if isinstance(value, list | tuple) else [])
    return found[0], found[1]


def parse_checker_verdict(text: str | None) -> tuple[str, str] | None:
    """(class, review) from "Class: … Review: …" as their ``parse_output`` cleans them; None
    when the answer has no "Review:"."""
    if not text or "Review:" not in text:
        return None
    category = text.split("Review:")[0].split("Class:")[-1].strip()
    review = text.split("Review:")[1].strip()
    for mark in "*:\n":
        category, review = category.replace(mark, ""), review.replace(mark, "")
    category = category.strip(EDGES).lower().strip("-").strip(" ")
    return category, review.strip(EDGES).strip("-").strip(" ")


def decision_of(category: str | None) -> int | None:
    """Their runner's reading of the class: 1 novel, 0 not novel, None unreadable."""
    category = (category or "").strip().rstrip("]").strip().lower()
    if category == "novel":
        return 1
    if category in ("not novel", "not_novel", "notnovel"):
        return 0
    if "novel" in category:
        return 0 if "not" in category else 1
    return None
