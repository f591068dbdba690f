"""Atomic file writes and Parquet table reads: every output of a step goes through here.

A write goes to a staging file beside the target, is fsynced, then renamed over the target, so
a killed job leaves either the old file or the whole new one, never half a file.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

NO_SPACE = re.compile(r"No space left on device|\[Errno 28\]")


def nearest_existing(path: str | Path) -> Path:
    """``path``, or its nearest parent that exists (where a folder to be made will live)."""
    path = Path(path)
    return next(folder for folder in (path, *path.parents) if folder.exists())


def free_bytes(path: str | Path) -> int:
    """Free bytes on the file system that holds ``path`` (or would hold it)."""
    return shutil.disk_usage(nearest_existing(path)).free


def out_of_space(error: BaseException | None) -> bool:
    """Whether ``error``, or an error it was raised from, is a full disk (ENOSPC): by its errno,
    or by its text where a library (pyarrow, a server's log) gives only that."""
    while error is not None:
        if getattr(error, "errno", None) == errno.ENOSPC or NO_SPACE.search(str(error)):
            return True
        error = error.__cause__ or error.__context__
    return False


@contextmanager
def staged(path: str | Path) -> Iterator[Path]:
    """A staging path to write ``path``'s content to; on success it replaces ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.partial")
    try:
        yield staging
        with open(staging, "rb") as written:
            os.fsync(written.fileno())
        os.replace(staging, path)
    finally:
        staging.unlink(missing_ok=True)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a crash
    finally:
        os.close(folder)


def write_bytes(data: bytes, path: str | Path) -> None:
    """Write ``data`` to ``path`` atomically."""
    with staged(path) as staging:
        staging.write_bytes(data)


def write_table(table: pd.DataFrame | pa.Table, path: str | Path) -> None:
    """Write a table to Parquet atomically (a pyarrow table keeps its schema as given)."""
    with staged(path) as staging:
        if isinstance(table, pa.Table):
            pq.write_table(table, staging)
        else:
            table.to_parquet(staging, index=False)


def read_tables(paths: list[str | Path]) -> pd.DataFrame:
    """Several Parquet tables of one kind (one per grid cell) as one frame."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def read_json(path: str | Path):
    """A JSON file's data."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_json(data, path: str | Path) -> None:
    """``data`` as indented UTF-8 JSON (a folder made where missing)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
