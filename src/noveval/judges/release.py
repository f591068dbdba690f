"""The judge study's release as a download: a dataset entry ``{url, commit, pairs, ideas}``.

``url`` is the raw-file base of the authors' repository (``{url}/{commit}/data/{path}``),
``commit`` the pinned data commit whose file list is recorded in ``release.yaml`` beside this
module, ``pairs`` and ``ideas`` the declared instances per pairwise and pointwise file. Files go
to ``{downloads}/{dataset}/{path}``; until they are there the declaration stands in for them, so
the grid, the dry run and the compute plan need neither the files nor a network. A downloaded
file that does not hold its declared instances is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from noveval.core.downloads import fetch
from noveval.core.yaml_files import load_yaml

MANIFEST = Path(__file__).with_name("release.yaml")
# The release's names: *_plan files hold the ideas in purpose-mechanism form (our change name).
KINDS = ("pointwise", "pairwise", "pointwise_plan", "pairwise_plan")


def is_declaration(entry) -> bool:
    """Whether a ``judges.datasets`` entry declares a release download (rather than files)."""
    return isinstance(entry, dict) and "url" in entry


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a declared release."""

    path: str  # inside the release's data/ folder
    url: str
    local: str
    setup: str
    kind: str  # pointwise | pairwise | pointwise_plan | pairwise_plan | other
    chars: int
    instances: int | None  # declared instances of a judged file
    sha256: str | None = None


def manifest(commit: str) -> dict:
    """The recorded file list of the release at ``commit``."""
    recorded = load_yaml(MANIFEST.read_text(encoding="utf-8"))
    if recorded["commit"] != commit:
        raise ValueError(
            f"judges release: no file list recorded for commit {commit} "
            f"({MANIFEST} lists {recorded['commit']})"
        )
    return recorded


def release_files(name: str, entry: dict, downloads: str | Path) -> list[ReleaseFile]:
    """Every file of the release declared by ``entry`` for dataset ``name``."""
    missing = [key for key in ("url", "commit", "pairs", "ideas") if key not in entry]
    if missing:
        raise ValueError(f"judges dataset '{name}': the release declaration lacks {missing}")
    files = []
    for item in manifest(entry["commit"])["files"]:
        path = Path(item["path"])
        kind = item.get("kind", path.stem)
        if kind != "other" and kind not in KINDS:
            raise ValueError(f"{MANIFEST}: {item['path']} is no {'/'.join(KINDS)} file")
        declared = entry["pairs"] if kind.startswith("pairwise") else entry["ideas"]
        files.append(
            ReleaseFile(
                path=item["path"],
                url=f"{entry['url'].rstrip('/')}/{item.get('commit', entry['commit'])}/data/"
                f"{item['path']}",
                local=f"{downloads}/{name}/{item['path']}",
                setup=item.get("setup", ".".join(path.parent.parts)),
                kind=kind,
                chars=item["chars"],
                instances=None if kind == "other" else item.get("instances", declared),
                sha256=item.get("sha256"),
            )
        )
    return files


def layout(files: list[ReleaseFile]) -> dict[str, dict[str, str]]:
    """``{setup: {kind: local path}}`` of the judged files."""
    found: dict[str, dict[str, str]] = {}
    for file in files:
        if file.kind != "other":
            found.setdefault(file.setup, {})[file.kind] = file.local
    return found


def read_release(path: str | Path) -> dict:
    """The instances of a release YAML file, by key. A file that is not UTF-8, not YAML, not a
    mapping, or empty is an error naming the file (and the line of a YAML error)."""
    try:
        raw = load_yaml(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        bad = error.object[error.start : error.start + 1]
        raise ValueError(f"{path}: not UTF-8 text (byte {error.start} is {bad!r})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ValueError(f"{path}: not valid YAML{at}: {problem}") from None
    if raw is None or raw == {}:
        raise ValueError(f"{path}: no instances (an empty dataset)")
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping of instances, got {type(raw).__name__}")
    return raw


def download(file: ReleaseFile, target: str) -> None:
    """Fetch one release file (SHA-256 checked where recorded; logged either way) and check that
    a judged file holds the instances the release declares: a mismatch is an error naming the
    file, and the file is not kept."""
    fetch(f"dataset '{file.path}'", file.url, target, file.sha256)
    if file.instances is None:
        return
    found = len(read_release(target))
    if found != file.instances:
        Path(target).unlink()
        raise ValueError(
            f"{target} ({file.url}): {found} instances, but the release declares "
            f"{file.instances} for {file.path} (judges.datasets pairs / ideas, or its "
            f"'instances' in {MANIFEST})"
        )
