"""The authors' NovBench prompts, read out of their pinned generation scripts without running them.

Each script builds its prompt with one f-string function (``build_novelty_prompt`` or
``build_novelty_rag_prompt``); ``ast`` gives its literal parts and the placeholders (a parameter, or
a parameter indexed by a number), which are filled exactly as the f-string would (``str(value)``).
The SEA scripts add a constant system message, read from their ``messages`` list.

The reviewer-model scripts (CycleReviewer, DeepReviewer) pass their prompt as ``custom_prompt`` to
the ``ai_researcher`` library with the paper's sentences apart. The library's system prompt (of
the review mode the script asks for) and its sampling parameters are read out of its upstream file
(:func:`library_call`); the user message is the script's prompt followed by the sentences.
Llama-OpenReviewer and Reviewer2 have no script: their model card's prompt format (read out of
the upstream file the card points to, :func:`card_format`) wraps the open models' prompt.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from noveval.core.registry import ModelSpec
from noveval.core.templates import PROMPT_DIR
from noveval.core.upstream import UpstreamSource, fetched_path
from noveval.core.yaml_files import load_yaml
from noveval.novbench.parsing import format_evaluation

SCRIPTS = PROMPT_DIR / "novbench" / "authors.yaml"
LIBRARY = (
    "ai_researcher"  # the upstream source (noveval/core/upstream.yaml) of the reviewer library
)
SAMPLING = ("temperature", "top_p", "max_tokens")


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


@cache
def _scripts() -> dict:
    """The map of models to the authors' scripts (read once: the workflow asks for every cell)."""
    return load_yaml(SCRIPTS.read_text())


def script_family(spec: ModelSpec) -> str:
    """The family of scripts (``api``, ``open``, ``sea``) whose prompts ``spec`` gets."""
    return _scripts()["models"].get(spec.name, "api" if spec.engine == "api" else "open")


def script_path(spec: ModelSpec, strategy: str) -> str:
    """The upstream path of the script that builds ``strategy``'s prompt for ``spec``."""
    families = _scripts()["families"]
    return families[script_family(spec)][strategy]


def prompt_of(root: str | Path, path: str) -> AuthorsPrompt:
    """The prompt function of the pinned script ``path`` under ``root`` (digest checked).

    CycleReviewer_few.py and Deep_review_few.py write "it’s" as GBK bytes, which Python cannot
    compile as they are: the scripts that ran had the character that GBK gives (``UpstreamSource``
    reads a file that is not UTF-8 as GBK).
    """
    return _parse(UpstreamSource("novbench", Path(root)).text(path), path)


@dataclass(frozen=True)
class LibraryCall:
    """What the reviewer library sends with a script's prompt: its system prompt and sampling."""

    path: str
    system: str
    sampling: dict


def library_of(spec: ModelSpec) -> dict | None:
    """The reviewer library class (path, class, mode) whose ``evaluate`` ``spec``'s scripts call,
    or None for a model whose scripts send their prompt themselves."""
    return _scripts()["libraries"].get(script_family(spec))


def library_call(root: str | Path, library: dict) -> LibraryCall:
    """The system prompt and sampling parameters of ``library`` (an entry of ``libraries``),
    read from its upstream file under ``root`` (digest checked)."""
    path = library["path"]
    source = UpstreamSource(LIBRARY, Path(root)).text(path)
    return _library_call(source, path, library["class"], library.get("mode"))


@cache
def _library_call(source: str, path: str, class_name: str, mode: str | None) -> LibraryCall:
    with warnings.catch_warnings():  # the library's own invalid escape sequences
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        module = ast.parse(source)
    classes = [
        node for node in module.body if isinstance(node, ast.ClassDef) and node.name == class_name
    ]
    if len(classes) != 1:
        raise ValueError(f"{path}: expected one class {class_name}, found {len(classes)}")
    methods = {node.name: node for node in classes[0].body if isinstance(node, ast.FunctionDef)}
    if "evaluate" not in methods:
        raise ValueError(f"{path}: {class_name} has no evaluate method")
    evaluate = methods["evaluate"]
    if mode is None:
        system = _assigned_constant(evaluate, "system_prompt", path)
    else:
        system = _mode_prompt(methods.get("_generate_system_prompt"), mode, path)
    return LibraryCall(path, system, _sampling(evaluate, path))


def _assigned_constant(function: ast.FunctionDef, name: str, path: str) -> str:
    """The string constant assigned to ``name`` in ``function``."""
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise ValueError(f"{path}: {function.name} assigns no constant {name}")


def _mode_prompt(function: ast.FunctionDef | None, mode: str, path: str) -> str:
    """The constant that ``_generate_system_prompt`` returns for ``mode == <mode>``."""
    for node in ast.walk(function) if function else ():
        test = node.test if isinstance(node, ast.If) else None
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == "mode"
            and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == mode
        ):
            returned = node.body[0]
            if isinstance(returned, ast.Return) and isinstance(returned.value, ast.Constant):
                return returned.value.value
            raise ValueError(f"{path}: the {mode} system prompt is not a constant")
    raise ValueError(f"{path}: no system prompt for mode {mode!r}")


def _sampling(evaluate: ast.FunctionDef, path: str) -> dict:
    """The ``SamplingParams`` of ``evaluate``: constants, or a parameter's default value."""
    arguments = evaluate.args.args[len(evaluate.args.args) - len(evaluate.args.defaults) :]
    defaults = {
        argument.arg: default.value
        for argument, default in zip(arguments, evaluate.args.defaults)
        if isinstance(default, ast.Constant)
    }
    calls = [
        node
        for node in ast.walk(evaluate)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "SamplingParams"
    ]
    if not calls:
        raise ValueError(f"{path}: {evaluate.name} builds no SamplingParams")
    sampling = {}
    for keyword in calls[0].keywords:
        value = keyword.value
        if isinstance(value, ast.Constant):
            sampling[keyword.arg] = value.value
        elif isinstance(value, ast.Name) and value.id in defaults:
            sampling[keyword.arg] = defaults[value.id]
        else:
            raise ValueError(f"{path}: SamplingParams({keyword.arg}=...) is not a constant")
    missing = [key for key in SAMPLING if key not in sampling]
    unsent = [key for key in sampling if key not in SAMPLING]
    if missing or unsent:
        raise ValueError(
            f"{path}: SamplingParams sets {', '.join(sampling)}; a request sends exactly "
            f"{', '.join(SAMPLING)}"
        )
    return sampling


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


@dataclass(frozen=True)
class CardFormat:
    """A model card's prompt format: its system message and the user message around a prompt
    (a ``str.format`` template of ``paper_text``)."""

    path: str
    system: str
    user: str

    def messages(self, prompt: str) -> list[dict]:
        """The system message and the prompt wrapped as the card's user message."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user.format(paper_text=prompt)},
        ]


def card_of(spec: ModelSpec) -> dict | None:
    """The card entry (source, path, format) of a reviewer model without a script, or None."""
    return (_scripts().get("cards") or {}).get(spec.name)


def card_format(root: str | Path, card: dict) -> CardFormat:
    """The prompt format of ``card``, read from its upstream file in ``root`` (digest checked)."""
    formats = {"system_user_templates": _system_user_templates, "llama2_inst": _llama2_inst}
    if card["format"] not in formats:
        raise ValueError(f"card format '{card['format']}' is unknown (known: {', '.join(formats)})")
    source = UpstreamSource(card["source"], Path(root)).text(card["path"])
    return formats[card["format"]](source, card["path"])


def _system_user_templates(source: str, path: str) -> CardFormat:
    """Module constants SYSTEM_PROMPT_TEMPLATE (``review_fields``: the output format's three
    sections) and USER_PROMPT_TEMPLATE (``paper_text``)."""
    constants = {
        target.id: node.value.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    missing = {"SYSTEM_PROMPT_TEMPLATE", "USER_PROMPT_TEMPLATE"} - set(constants)
    if missing:
        raise ValueError(f"{path}: no constant {', '.join(sorted(missing))}")
    system = constants["SYSTEM_PROMPT_TEMPLATE"].format(review_fields=format_evaluation([]))
    return CardFormat(path, system, constants["USER_PROMPT_TEMPLATE"])


LLAMA2_SYSTEM = ("[INST] <<SYS>>\n", "<</SYS>>\n")


def _llama2_inst(source: str, path: str) -> CardFormat:
    """The system text of the last ``prompt_Llama_2`` constant (the review model's; the first is
    the prompt model's): ``[INST] <<SYS>>\n{system}<</SYS>>\n{user}[/INST]``."""
    prompts = [
        node.value.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "prompt_Llama_2" for t in node.targets)
        and isinstance(node.value, ast.Constant)
    ]
    opening, closing = LLAMA2_SYSTEM
    if not prompts or not prompts[-1].startswith(opening) or closing not in prompts[-1]:
        raise ValueError(f"{path}: no prompt_Llama_2 constant of the form {opening!r}…{closing!r}")
    system = prompts[-1][len(opening) :].split(closing, 1)[0]
    return CardFormat(path, system, "{paper_text}")


def upstream_inputs(results: str, spec: ModelSpec, strategy: str) -> list[str]:
    """The fetched script a request of ``spec`` and ``strategy`` is built from, and the library
    file its script calls or the file its model card points to (rule inputs)."""
    inputs = [str(fetched_path(results, "novbench", script_path(spec, strategy)))]
    library = library_of(spec)
    if library:
        inputs.append(str(fetched_path(results, LIBRARY, library["path"])))
    card = card_of(spec)
    if card:
        inputs.append(str(fetched_path(results, card["source"], card["path"])))
    return inputs
