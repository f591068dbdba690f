"""The package's layers: imports run one way, with no circle, and modules stay small.

From the bottom: a small core (files, logs, templates, provenance, upstream files, downloads, the
registry, the site file, answer reading shared by the tracks, the published numbers), then
inference and the literature search, then the tracks and the construction of their benchmarks,
then planning, the cluster, preflight, the pilot and the reproduction report, and on top the
workflow adapter's own helpers (the rules and scripts are outside the package). A module may
import its own layer or any below it; every import counts, those inside functions too.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "src" / "noveval"
LAYERS = {  # package -> layer (the longest prefix wins); each top-level folder is one layer
    "noveval": 0,
    "noveval.core": 0,
    "noveval.inference": 1,
    "noveval.literature": 1,
    "noveval.novbench": 2,
    "noveval.judges": 2,
    "noveval.construction": 2,
    "noveval.planning": 3,
    "noveval.cluster": 3,
    "noveval.reproduction": 3,
    "noveval.workflow": 4,
}
LAYER_NAMES = ["core", "inference and literature", "tracks", "planning", "workflow adapter"]
MAX_LINES = 400
# Modules longer than MAX_LINES, each with why it is not split (none today).
LONG: dict[str, str] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, modules: set[str]) -> set[str]:
    """The package modules a module's source imports, at any depth of its code."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in modules}
    return found


def layer_of(module: str) -> int:
    prefix = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[prefix]


def upward(sources: dict[str, str]) -> list[str]:
    """Each import of a higher layer, as 'module (layer) -> imported (layer)'."""
    modules = set(sources)
    return [
        f"{module} ({LAYER_NAMES[layer_of(module)]}) -> {target} ({LAYER_NAMES[layer_of(target)]})"
        for module, source in sorted(sources.items())
        for target in sorted(imported(source, modules) - {module})
        if layer_of(target) > layer_of(module)
    ]


def circle(sources: dict[str, str]) -> list[str]:
    """One import circle (graphlib's), or none."""
    modules = set(sources)
    graph = {module: imported(source, modules) - {module} for module, source in sources.items()}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return {module_name(p): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}


def test_imports_run_down_the_layers_with_no_circle(sources):
    assert upward(sources) == []
    assert circle(sources) == []


def test_an_upward_import_or_a_circle_is_named(sources):
    """The checks above fail on what they guard against: a core module importing a track (even
    inside a function), and two modules importing each other."""
    bad = {**sources, "noveval.core.files": sources["noveval.core.files"] + (
        "\n\ndef f():\n    from noveval.judges.grid.build import judges_grid\n"
    )}  # fmt: skip
    assert set(upward(bad)) - set(upward(sources)) == {
        "noveval.core.files (core) -> noveval.judges.grid.build (tracks)"
    }
    looped = {
        **sources,
        "noveval.core.logs": sources["noveval.core.logs"] + "\nimport noveval.core.templates\n",
    }
    looped["noveval.core.templates"] += (
        "\nfrom noveval.core import logs\nimport noveval.core.logs\n"
    )
    assert set(circle(looped)) == {"noveval.core.logs", "noveval.core.templates"}


def test_modules_stay_short_or_say_why(sources):
    long = {m for m, source in sources.items() if len(source.splitlines()) > MAX_LINES}
    assert long == set(LONG), {
        "long, not listed": long - set(LONG),
        "listed, short": set(LONG) - long,
    }


def test_every_module_stands_in_a_layer_folder(sources):
    """The folders show the layers: no module stands loose at the package's top, and each
    folder is a package with a docstring saying what it owns."""
    assert [m for m in sources if m.count(".") == 1 and (PACKAGE / f"{m[8:]}.py").exists()] == []
    packages = [p.parent for p in PACKAGE.rglob("__init__.py")]
    undocumented = [str(p.relative_to(PACKAGE)) for p in packages if not ast.get_docstring(
        ast.parse((p / "__init__.py").read_text(encoding="utf-8")))]  # fmt: skip
    assert undocumented == []
