"""Atomic writes and table reads (noveval.core.files)."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from noveval.core.files import read_tables, write_bytes, write_table


def test_tables_round_trip_and_concatenate(tmp_path):
    first, second = tmp_path / "a" / "t.parquet", tmp_path / "b" / "t.parquet"
    write_table(pd.DataFrame({"item_id": ["p1", "p2"], "score": [0.5, 1.0]}), first)
    typed = pa.table({"item_id": ["p3"], "score": pa.array([2.0], type=pa.float32())})
    write_table(typed, second)
    assert pq.read_schema(second).field("score").type == pa.float32()
    both = read_tables([first, second])
    assert both["item_id"].tolist() == ["p1", "p2", "p3"]
    assert both["score"].tolist() == [0.5, 1.0, 2.0]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "t.parquet", "t.parquet"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_staging(tmp_path):
    path = tmp_path / "t.parquet"
    write_table(pd.DataFrame({"x": [1]}), path)
    with pytest.raises(pa.ArrowException):
        write_table(pd.DataFrame({"x": [1, "a"]}), path)  # mixed types: pyarrow refuses
    assert pd.read_parquet(path)["x"].tolist() == [1]
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]


def test_write_bytes_replaces_the_file(tmp_path):
    path = tmp_path / "d" / "release.json"
    write_bytes(b"old", path)
    write_bytes(b"new", path)
    assert path.read_bytes() == b"new" and [p.name for p in path.parent.iterdir()] == [path.name]
