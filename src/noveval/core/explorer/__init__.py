"""A study's instance explorer: a static page over its rows that opens from the file system.

The page (``static/``: index.html, explorer.js, explorer.css) reads script files that each call
``explorerLoad(name, payload)``: ``data/manifest.js`` (columns, tables, presets, the chunks),
``data/rows-<k>.js`` (compact rows, key columns as indices into the manifest's dictionaries),
``data/texts-<k>.js`` (a row's full texts, loaded when a row is opened) and
``data/instances-<k>.js`` (an instance's own texts). Browsers refuse ``fetch`` of local files but
load ``<script src>``: data as scripts, in chunks, is what lets the page open by double-click and
load only what a view needs (as HELM's front end keeps compact display records apart from full
texts). Written by hand because no library writes this layout; the page itself is plain
JavaScript with no build step.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

STATIC = Path(__file__).with_name("static")
PAGES = ("index.html", "explorer.js", "explorer.css")
ROWS_PER_CHUNK = 20_000  # a chunk of compact rows: about 2-4 MB of script
TEXT_CHARS_PER_CHUNK = 2_000_000  # full texts per chunk, in characters
INSTANCES_PER_CHUNK = 200
SNIPPET_CHARS = 200


@dataclass
class Explorer:
    """What one explorer shows: ``rows`` (one per answer or verdict; an ``id`` column unique per
    row, the ``instance_column``, key, number, flag and text columns as ``columns`` declares
    them), each row's full ``texts`` (row id -> field -> text), each instance's own texts
    (``instances``: id -> {title, sections}), the study's ``tables`` with the filter behind each
    cell, and one-click ``presets``."""

    study: str
    dataset: str
    title: str
    columns: list[dict]
    rows: pd.DataFrame
    instance_column: str
    instance_label: str
    chunk_column: str
    compare_column: str
    match_columns: list[str]
    text_fields: list[dict]
    texts: dict[str, dict[str, str]] = field(default_factory=dict)
    instances: dict[str, dict] = field(default_factory=dict)
    tables: list[dict] = field(default_factory=list)
    presets: list[dict] = field(default_factory=list)
    summary: list[list] = field(default_factory=list)


def snippet(text: str | None, chars: int = SNIPPET_CHARS) -> str:
    """The first ``chars`` characters of a text on one line (an ellipsis where cut)."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= chars else flat[: chars - 1] + "…"


def filter_of(eq: dict | None = None, flags: list[str] = (), **ranges) -> dict:
    """A filter of the page: key columns among values, flags set, numeric ranges (min, max)."""
    found: dict = {}
    if eq:
        found["eq"] = {column: [str(v) for v in values] for column, values in eq.items()}
    if flags:
        found["flags"] = list(flags)
    if ranges:
        found["range"] = ranges
    return found


def write_explorer(explorer: Explorer, folder: str | Path) -> dict:
    """Write ``explorer`` into ``folder`` (replaced): the page and its data scripts. Returns the
    manifest written."""
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    data = folder / "data"
    data.mkdir(parents=True)
    for page in PAGES:
        shutil.copyfile(STATIC / page, folder / page)
    rows = explorer.rows.reset_index(drop=True)
    keys = [c["name"] for c in explorer.columns if c["kind"] == "key"]
    dictionaries = {
        column: sorted(rows[column].dropna().astype(str).unique().tolist()) for column in keys
    }
    rows["t"] = _write_texts(rows, explorer, data)
    chunks = _write_rows(rows, explorer, dictionaries, data)
    instance_files = _write_instances(explorer.instances, data)
    manifest = {
        "study": explorer.study,
        "dataset": explorer.dataset,
        "title": explorer.title,
        "generated": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "instance_column": explorer.instance_column,
        "instance_label": explorer.instance_label,
        "compare_column": explorer.compare_column,
        "match_columns": explorer.match_columns,
        "columns": [*explorer.columns, {"name": "t", "kind": "texts"}],
        "dictionaries": dictionaries,
        "chunk_column": explorer.chunk_column,
        "chunks": chunks,
        "text_fields": explorer.text_fields,
        "instances": instance_files,
        "tables": explorer.tables,
        "presets": explorer.presets,
        "summary": explorer.summary,
    }
    _write_script(data / "manifest.js", "manifest", manifest)
    return manifest


def _write_script(path: Path, name: str, payload) -> None:
    """One data script: ``explorerLoad(name, payload)`` (JSON, which is also JavaScript)."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    path.write_text(f"explorerLoad({json.dumps(name)},{text});\n", encoding="utf-8")


def _write_texts(rows: pd.DataFrame, explorer: Explorer, data: Path) -> list[int]:
    """The rows' full texts in chunks of about :data:`TEXT_CHARS_PER_CHUNK` characters, grouped by
    the chunk column and then the instance (so an instance's texts of one model sit together);
    each row's chunk index."""
    order = rows.sort_values([explorer.chunk_column, explorer.instance_column], kind="stable")
    index: dict[int, int] = {}
    chunk: dict[str, dict] = {}
    size, count = 0, 0
    for position, row_id in zip(order.index, order["id"], strict=True):
        texts = {k: v for k, v in explorer.texts.get(row_id, {}).items() if v}
        length = sum(map(len, texts.values()))
        if chunk and size + length > TEXT_CHARS_PER_CHUNK:
            _write_script(data / f"texts-{count}.js", f"texts-{count}", chunk)
            chunk, size, count = {}, 0, count + 1
        chunk[row_id] = texts
        size += length
        index[position] = count
    _write_script(data / f"texts-{count}.js", f"texts-{count}", chunk)
    return [index[position] for position in rows.index]


def _write_rows(
    rows: pd.DataFrame, explorer: Explorer, dictionaries: dict, data: Path
) -> list[dict]:
    """The compact rows, chunked by the chunk column's value (and :data:`ROWS_PER_CHUNK`)."""
    names = [c["name"] for c in explorer.columns] + ["t"]
    kinds = {c["name"]: c["kind"] for c in explorer.columns}
    codes = {
        column: {v: i for i, v in enumerate(values)} for column, values in dictionaries.items()
    }
    chunks = []
    for value, part in rows.groupby(explorer.chunk_column, sort=True):
        for start in range(0, len(part), ROWS_PER_CHUNK):
            piece = part.iloc[start : start + ROWS_PER_CHUNK]
            records = [
                [_cell(row[name], kinds.get(name, "texts"), codes.get(name)) for name in names]
                for row in piece.to_dict("records")
            ]
            name = f"rows-{len(chunks)}"
            _write_script(data / f"{name}.js", name, {"columns": names, "rows": records})
            chunks.append({"name": name, "rows": len(piece), "value": str(value)})
    return chunks


def _cell(value, kind: str, codes: dict | None):
    """One value of a compact row: a key's index, a number (None for NaN), a flag as 0/1."""
    if codes is not None:
        return None if value is None or value != value else codes[str(value)]
    if kind == "number":
        return None if value is None or not math.isfinite(float(value)) else round(float(value), 4)
    if kind in ("flag", "texts"):  # a flag as 0/1; texts: the index of the row's texts file
        return int(value)
    return None if value is None or value != value else str(value)


def _write_instances(instances: dict[str, dict], data: Path) -> dict[str, int]:
    """Each instance's own texts, :data:`INSTANCES_PER_CHUNK` a chunk; instance -> chunk."""
    where, ids = {}, sorted(instances)
    for count, start in enumerate(range(0, max(len(ids), 1), INSTANCES_PER_CHUNK)):
        part = {i: instances[i] for i in ids[start : start + INSTANCES_PER_CHUNK]}
        _write_script(data / f"instances-{count}.js", f"instances-{count}", part)
        where.update(dict.fromkeys(part, count))
    return where
