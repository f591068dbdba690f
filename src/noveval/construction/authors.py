"""The authors' NovBench construction prompts, read out of their pinned scripts, never run.

Their scripts build each prompt as an f-string (assigned, extended with ``+=``, or returned) or as a
module constant filled with ``str.format``. ``ast`` gives the literal parts and the placeholders;
:meth:`Template.render` fills them exactly as Python would (``str(value)``).
"""

from __future__ import annotations

import ast
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from noveval.core.upstream import UpstreamSource

INTRODUCTION_PROMPTS = "code/Novelty_sentence_review/LLM4nov_sentence.py"
CONSTRUCTION = "code/data_process/rev_inrto_nov_identification.py"
NORMALISATION = "code/data_process/output_format.py"


@dataclass(frozen=True)
class Source:
    """Where a prompt is built: a script, and a function (its returned or ``variable``'s value)
    or a module constant (``constant``)."""

    path: str
    function: str | None = None
    variable: str | None = None
    constant: str | None = None


# The introduction-sentence prompts of Appendix A, the review-sentence prompt of Appendix B and
# the construction's normalisation prompt (the "step" prompt is a chain of two calls).
SOURCES = {
    "direct": Source(INTRODUCTION_PROMPTS, function="build_prompt"),
    "context": Source(CONSTRUCTION, function="build_novelty_prompt"),
    "few_shot": Source(INTRODUCTION_PROMPTS, constant="novelty_prompt_template"),
    "step_summary": Source(INTRODUCTION_PROMPTS, function="check_novelty", variable="step1_prompt"),
    "step_decision": Source(
        INTRODUCTION_PROMPTS, function="check_novelty", variable="step3_prompt"
    ),
    "review": Source(CONSTRUCTION, function="build_prompt"),
    "normalisation": Source(NORMALISATION, function="build_prompt"),
}
INTRODUCTION_STRATEGIES = ("direct", "step", "context", "few_shot")


@dataclass(frozen=True)
class Template:
    """A prompt as literal parts and named placeholders."""

    name: str
    parts: tuple[str | tuple[str], ...]  # a placeholder is a 1-tuple holding its name

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(part[0] for part in self.parts if isinstance(part, tuple)))

    def render(self, **values) -> str:
        """The prompt the script builds from ``values`` (one per placeholder)."""
        if set(values) != set(self.placeholders):
            raise ValueError(
                f"prompt '{self.name}' takes {', '.join(self.placeholders)}, "
                f"got {', '.join(sorted(values)) or 'nothing'}"
            )
        return "".join(
            str(values[part[0]]) if isinstance(part, tuple) else part for part in self.parts
        )


def template(root: str | Path, name: str) -> Template:
    """The authors' prompt ``name`` (a key of ``SOURCES``), read from the pinned script under
    ``root`` (digest checked)."""
    if name not in SOURCES:
        raise ValueError(f"no authors' prompt '{name}' (known: {', '.join(SOURCES)})")
    source = SOURCES[name]
    return _read(UpstreamSource("novbench", Path(root)).text(source.path), name, source)


@cache
def _read(text: str, name: str, source: Source) -> Template:
    module = ast.parse(text)
    if source.constant:
        return Template(name, _format_parts(_module_constant(module, source)))
    return Template(name, _function_parts(module, source))


def _module_constant(module: ast.Module, source: Source) -> str:
    values = [
        node.value.value
        for node in module.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == source.constant for t in node.targets)
        and isinstance(node.value, ast.Constant)
    ]
    if len(values) != 1:
        raise ValueError(f"{source.path}: expected one constant {source.constant}")
    return values[0]


def _format_parts(text: str) -> tuple[str | tuple[str], ...]:
    parts: list[str | tuple[str]] = []
    for literal, field, spec, conversion in string.Formatter().parse(text):
        parts.append(literal)
        if field is not None:
            if spec or conversion or not field.isidentifier():
                raise ValueError(f"unsupported placeholder {{{field}}} in a format template")
            parts.append((field,))
    return tuple(part for part in parts if part)


def _function_parts(module: ast.Module, source: Source) -> tuple[str | tuple[str], ...]:
    functions = [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name == source.function
    ]
    if len(functions) != 1:
        raise ValueError(f"{source.path}: expected one function {source.function}")
    function = functions[0]
    parameters = {argument.arg for argument in function.args.args}
    variable = source.variable
    if variable is None:
        returned = [node.value for node in function.body if isinstance(node, ast.Return)]
        if len(returned) != 1:
            raise ValueError(f"{source.path}: {function.name} has no single return")
        if not isinstance(returned[0], ast.Name):
            return _string_parts(returned[0], parameters, source)
        variable = returned[0].id
    parts: list = []
    for node in function.body:
        if _targets(node, variable) and isinstance(node, ast.Assign):
            parts = list(_string_parts(node.value, parameters, source))
        elif _targets(node, variable) and isinstance(node.op, ast.Add):
            parts.extend(_string_parts(node.value, parameters, source))
    if not parts:
        raise ValueError(f"{source.path}: {function.name} builds no string {variable}")
    return tuple(parts)


def _targets(node: ast.stmt, variable: str) -> bool:
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == variable for t in node.targets)
    return (
        isinstance(node, ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and node.target.id == variable
    )


def _string_parts(node: ast.expr, names: set[str], source: Source) -> tuple[str | tuple[str], ...]:
    """The parts of a string constant or an f-string whose placeholders are plain names."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if not isinstance(node, ast.JoinedStr):
        raise ValueError(f"{source.path}: {source.function} builds its prompt from an expression")
    parts: list[str | tuple[str]] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(value.value)
        elif (
            isinstance(value, ast.FormattedValue)
            and isinstance(value.value, ast.Name)
            and value.conversion == -1
            and value.format_spec is None
        ):
            parts.append((value.value.id,))
        else:
            raise ValueError(
                f"{source.path}: unsupported placeholder {ast.unparse(value)!r} in the prompt"
            )
    return tuple(parts)
