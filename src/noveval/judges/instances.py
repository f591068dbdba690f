"""Loader for the authors' release (pairwise / pointwise YAML) into one instances table.

A dataset is either a folder in the release layout (``{setup}/{format}.yaml``, optionally
``{format}_plan.yaml`` with the ideas in purpose-mechanism form, and nested D₋-generator folders
such as ``human-plus-generated/backbone-gpt-5.1/``) or a mapping ``{setup: {format: path}}``.
Nested folders become setups named with dots (``human-plus-generated.backbone-gpt-5.1``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pyarrow as pa

from noveval.core.files import write_table
from noveval.judges import release

log = logging.getLogger(__name__)

FORMATS = ("pointwise", "pairwise")
LABELS = {"POSITIVE": 1, "NEGATIVE": 0}
_TEXTS = pa.list_(pa.string())
INSTANCE_SCHEMA = pa.schema(
    {
        "instance_id": pa.string(),
        "setup": pa.string(),
        "format": pa.string(),
        "area": pa.string(),
        "ideas": _TEXTS,  # one idea (pointwise) or two (pairwise), in the release's order
        "titles": _TEXTS,
        "sources": _TEXTS,  # per idea: human-positive, human-negative or generated
        "label": pa.int64(),  # pointwise: 1 novel / 0 not; pairwise: index of the expected winner
    }
)


def release_files(
    dataset: str | Path | dict, name: str = "", downloads: str | Path = "downloads"
) -> dict[str, dict[str, str]]:
    """``{setup: {format or format_plan: path}}`` of a dataset entry of the config; a release
    declaration (``noveval.judges.release``) gives its files' download paths."""
    if release.is_declaration(dataset):
        return release.layout(release.release_files(name, dataset, downloads))
    if isinstance(dataset, dict):
        return {setup: {k: str(v) for k, v in files.items()} for setup, files in dataset.items()}
    root = Path(dataset)
    if not root.is_dir():
        raise FileNotFoundError(f"judges dataset: no release folder at {root}")
    found: dict[str, dict[str, str]] = {}
    for path in sorted(root.rglob("*.yaml")):
        kind = path.stem
        if kind.removesuffix("_plan") not in FORMATS:  # _plan: the purpose-mechanism form
            continue
        setup = ".".join(path.parent.relative_to(root).parts)
        if setup:
            found.setdefault(setup, {})[kind] = str(path)
    if not found:
        raise FileNotFoundError(f"judges dataset: no pairwise/pointwise YAML under {root}")
    return found


def idea_source(metadata: dict) -> str:
    """Where an idea comes from: generated ideas have no reviewer rating ('N/A')."""
    if str(metadata.get("rating", "N/A")) == "N/A":
        return "generated"
    return f"human-{str(metadata.get('type', '')).lower()}"


def load_release(path: str | Path, setup: str, format: str) -> pd.DataFrame:
    """One release YAML file → instances (see ``INSTANCE_SCHEMA``); the file's bad instances are
    listed in one error."""
    raw = release.read_release(path)
    rows, problems = [], []
    for key, entry in raw.items():
        try:
            rows.append(_instance(str(key), entry, setup, format, f"instance {key}"))
        except ValueError as error:
            problems.append(str(error))
    if problems:
        listed = "\n".join(f"  {problem}" for problem in problems)
        raise ValueError(f"{path}: {len(problems)} of {len(raw)} instances are bad:\n{listed}")
    frame = pd.DataFrame(rows, columns=INSTANCE_SCHEMA.names)
    log.info("%s: %d %s instances (%s)", path, len(frame), format, setup)
    return frame


def check_releases(files: Iterable[tuple[str, str, str]]) -> None:
    """Check the release files (path, setup, format) that exist before any job reads them: one
    error lists every bad file with its bad instances (``load_release``'s messages)."""
    problems = []
    for path, setup, format in dict.fromkeys(files):
        if not Path(path).is_file():
            continue  # downloaded by a job of this run: checked when it is loaded
        try:
            load_release(path, setup, format)
        except ValueError as error:
            problems.append(str(error))
    if problems:
        raise ValueError(
            "the judges' datasets have bad records, so no job started:\n" + "\n".join(problems)
        )


def _instance(key: str, entry: dict, setup: str, format: str, where: str) -> dict:
    try:
        if not isinstance(entry, dict):
            raise ValueError(f"expected a mapping, got {_kind(entry)}")
        if format == "pairwise":
            ideas = [entry["ideas"][i] for i in (0, 1)]
            metadata = [entry.get("metadata", {}).get(i, {}) for i in (0, 1)]
            winners = entry["expected_winners"]
            if len(winners) != 1 or winners[0] not in (0, 1):
                raise ValueError(f"expected_winners must be [0] or [1], got {winners}")
            label = int(winners[0])
        elif format == "pointwise":
            ideas = [entry["idea"]]
            metadata = [entry.get("metadata", {})]
            if entry["label"] not in LABELS:
                raise ValueError(f"label must be POSITIVE or NEGATIVE, got {entry['label']!r}")
            label = LABELS[entry["label"]]
        else:
            raise ValueError(f"unknown format '{format}' (known: {', '.join(FORMATS)})")
        for index, idea in enumerate(ideas):
            _check_idea(idea, f"idea {index}" if format == "pairwise" else "idea")
        return {
            "instance_id": key,
            "setup": setup,
            "format": format,
            "area": entry.get("context") or metadata[0].get("area", ""),
            "ideas": [_plain(idea) for idea in ideas],
            "titles": [str(m.get("title", "")) for m in metadata],
            "sources": [idea_source(m) for m in metadata],
            "label": label,
        }
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{where}: missing or malformed field {error}") from None
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def _check_idea(idea, name: str) -> None:
    """An idea is non-empty text, or a mapping (the purpose-mechanism form) whose fields are all
    non-empty text."""
    fields = idea.items() if isinstance(idea, dict) and idea else [(None, idea)]
    for field, text in fields:
        label = name if field is None else f"{name} field {field!r}"
        if not isinstance(text, str):
            raise ValueError(f"{label} must be text, got {_kind(text)}")
        if not str(text).strip():
            raise ValueError(f"{label} is empty")


def _kind(value) -> str:
    """A value's YAML kind for error messages (``null`` for None)."""
    return "null" if value is None else type(value).__name__


def _plain(idea) -> str:
    """An idea as text; a purpose-mechanism idea (a mapping of fields) as 'Field: text' lines."""
    if isinstance(idea, dict):
        return "\n".join(f"{str(k).capitalize()}: {v}" for k, v in idea.items())
    return str(idea)


def write_instances(frame: pd.DataFrame, path: str | Path) -> None:
    """Write instances with the fixed schema, atomically."""
    write_table(pa.Table.from_pandas(frame, schema=INSTANCE_SCHEMA, preserve_index=False), path)


def read_instances(path: str | Path) -> pd.DataFrame:
    """Instances as written by ``write_instances``."""
    frame = pd.read_parquet(path)
    for column in ("ideas", "titles", "sources"):
        frame[column] = frame[column].map(list)
    return frame
