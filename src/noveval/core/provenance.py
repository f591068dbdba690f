"""What a workflow step's output depends on besides its inputs, as params of its rule: the
slice of the config it reads, and the version of the package code it runs.

Snakemake cannot see the package behind a rule's ``script:``. Each rule therefore names the
module of the concept it runs; a hash of the contents of its source file, of the package modules
it imports (transitively, read with ``ast``, never executed) and of the package data it names is
a param, so a changed metric reruns scoring and what follows, and nothing upstream. A hash of
contents, not modification times: a fresh clone of the same code, beside results copied back
from a cluster, reruns nothing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from pathlib import Path

PACKAGE = "noveval"
_PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def code_version(*modules: str, data: tuple[str, ...] = ()) -> str:
    """A short hash of the source of ``modules`` and every package module they import, and of
    the files of the package data folders ``data`` (relative to the package root)."""
    files: set[Path] = set()
    for module in modules:
        files |= _closure(module)
    root = _PACKAGE_ROOT
    for folder in data:
        files |= {path for path in (root / folder).rglob("*") if path.is_file()}
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(_file_digest(path))
    return digest.hexdigest()[:12]


@functools.cache
def _file_digest(path: Path) -> bytes:
    """The digest of a file's contents, read once per process (the Snakefile asks for the same
    modules' digests for many rules)."""
    return hashlib.sha256(path.read_bytes()).digest()


# Config lists whose order carries no meaning: lists of model names (outputs order models
# themselves), found by their key wherever they stand.
UNORDERED_LISTS = frozenset({"models", "generators"})


def canonical(value, key: str | None = None):
    """``value`` with every mapping's keys sorted and every list of model names sorted, at every
    depth: the config in the form that params carry, so that two files saying the same thing (a
    mapping's keys in another order, the models listed in another order) rerun nothing."""
    if isinstance(value, dict):
        return {name: canonical(value[name], name) for name in sorted(value, key=str)}
    if isinstance(value, list):
        items = [canonical(item) for item in value]
        return sorted(items) if key in UNORDERED_LISTS else items
    return value


def canonicalize(config: dict) -> None:
    """Put the workflow's config into canonical form in place (Snakemake holds the object)."""
    ordered = canonical(config)
    config.clear()
    config.update(ordered)


def config_slice(section: dict, *keys: str) -> dict:
    """The keys of a config section that a step reads: its param, so that only a change of
    these reruns it."""
    missing = [key for key in keys if key not in section]
    if missing:
        raise KeyError(f"config keys {missing} missing (the schema gives their defaults)")
    return {key: section[key] for key in keys}


@functools.cache
def _closure(module: str) -> frozenset[Path]:
    """The module's source file and those of the package modules it imports, transitively."""
    seen: dict[str, Path] = {}
    pending = [module]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen[name] = _source(name)
        pending += _imports(name, seen[name])
    return frozenset(seen.values())


# An import statement at the start of a line (a parenthesised name list may span lines): only
# these are parsed, not the whole module, since the Snakefile reads the closures of every stage
# at each start.
IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)",
    re.MULTILINE,
)


@functools.cache
def _imports(module: str, source: Path) -> list[str]:
    """The package modules a module imports (``from noveval.x import y`` names ``noveval.x.y``
    when that is a module, else ``noveval.x``)."""
    package = module if source.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for statement in IMPORT_STATEMENT.findall(source.read_text(encoding="utf-8")):
        try:
            (node,) = ast.parse(statement.strip()).body
        except (SyntaxError, ValueError):
            continue  # a line of prose that starts with "import" or "from"
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}".rstrip(".")
            found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names]
    return [name for name in found if _module_file(name) is not None]


def _source(module: str) -> Path:
    path = _module_file(module)
    if path is None:
        raise ModuleNotFoundError(f"no source file for module {module}")
    return path


@functools.cache
def _module_file(module: str) -> Path | None:
    """The source file of a package module, found on disk without importing it (an import would
    run the module, and some load torch: seconds at every start of the Snakefile)."""
    if module != PACKAGE and not module.startswith(f"{PACKAGE}."):
        return None
    path = _PACKAGE_ROOT.joinpath(*module.split(".")[1:])
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None
