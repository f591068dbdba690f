"""The authors' NovBench prompts, read out of their pinned generation scripts without running them.

Each script builds its prompt with one f-string function (``build_novelty_prompt`` or
``build_novelty_rag_prompt``); ``ast`` gives its literal parts and the placeholders (a parameter, or
a parameter indexed by a number), which are filled exactly as the f-string would (``str(value)``).
The SEA scripts add a constant system message, read from their ``messages`` list.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from noveval.registry import ModelSpec
from noveval.templates import PROMPT_DIR
from noveval.upstream import UpstreamSource, fetched_path

SCRIPTS = PROMPT_DIR / "novbench" / "authors.yaml"


@dataclass(frozen=True)
class AuthorsPrompt:
    """The prompt function of one script: its parameters, f-string parts and system message."""

    path: str
    parameters: tuple[str, ...]
    parts: tuple[str | ast.expr, ...]
    system: str | None

    def render(self, *arguments) -> str:
        """The prompt the script's function returns for these positional arguments."""
        if len(arguments) != len(self.parameters):
            raise ValueError(
                f"{self.path}: the prompt takes {len(self.parameters)} arguments "
                f"({', '.join(self.parameters)}), got {len(arguments)}"
            )
        bound = dict(zip(self.parameters, arguments))
        return "".join(
            part if isinstance(part, str) else str(self._value(part, bound)) for part in self.parts
        )

    def _value(self, node: ast.expr, bound: dict):
        if isinstance(node, ast.Name):
            return bound[node.id]
        sequence = bound[node.value.id]
        index = node.slice.value
        if index >= len(sequence):
            raise ValueError(
                f"{self.path}: the prompt uses {node.value.id}[{index}], "
                f"but only {len(sequence)} are given"
            )
        return sequence[index]


def script_family(spec: ModelSpec) -> str:
    """The family of scripts (``api``, ``open``, ``sea``) whose prompts ``spec`` gets."""
    mapping = yaml.safe_load(SCRIPTS.read_text())
    return mapping["models"].get(spec.name, "api" if spec.engine == "api" else "open")


def script_path(spec: ModelSpec, strategy: str) -> str:
    """The upstream path of the script that builds ``strategy``'s prompt for ``spec``."""
    families = yaml.safe_load(SCRIPTS.read_text())["families"]
    return families[script_family(spec)][strategy]


def prompt_of(root: str | Path, path: str) -> AuthorsPrompt:
    """The prompt function of the pinned script ``path`` under ``root`` (digest checked)."""
    return _parse(UpstreamSource("novbench", Path(root)).text(path), path)


@cache
def _parse(source: str, path: str) -> AuthorsPrompt:
    module = ast.parse(source)
    functions = [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("build_novelty")
    ]
    if len(functions) != 1:
        raise ValueError(f"{path}: expected one build_novelty* function, found {len(functions)}")
    function = functions[0]
    returned = [node.value for node in function.body if isinstance(node, ast.Return)]
    if len(returned) != 1 or not isinstance(returned[0], ast.JoinedStr):
        raise ValueError(f"{path}: {function.name} does not return one f-string")
    parameters = tuple(argument.arg for argument in function.args.args)
    parts = tuple(_part(value, parameters, path) for value in returned[0].values)
    return AuthorsPrompt(path, parameters, parts, _system_message(module))


def _part(value: ast.expr, parameters: tuple[str, ...], path: str) -> str | ast.expr:
    """A literal part, or a placeholder ``{name}`` / ``{name[<int>]}`` without conversion."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    node = value.value if isinstance(value, ast.FormattedValue) else None
    plain = (
        isinstance(value, ast.FormattedValue) and value.conversion == -1 and not value.format_spec
    )
    if plain and isinstance(node, ast.Name) and node.id in parameters:
        return node
    if (
        plain
        and isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in parameters
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, int)
    ):
        return node
    raise ValueError(f"{path}: unsupported placeholder {ast.unparse(value)!r} in the prompt")


def _system_message(module: ast.Module) -> str | None:
    """The constant content of a ``{"role": "system", "content": ...}`` message, if any."""
    for node in ast.walk(module):
        if not isinstance(node, ast.Dict) or None in node.keys:
            continue
        fields = {
            key.value: value
            for key, value in zip(node.keys, node.values)
            if isinstance(key, ast.Constant)
        }
        role, content = fields.get("role"), fields.get("content")
        if (
            isinstance(role, ast.Constant)
            and role.value == "system"
            and isinstance(content, ast.Constant)
        ):
            return content.value
    return None


def upstream_inputs(results: str, spec: ModelSpec, strategy: str) -> list[str]:
    """The fetched script a request of ``spec`` and ``strategy`` is built from (rule inputs)."""
    return [str(fetched_path(results, "novbench", script_path(spec, strategy)))]
