"""A job whose Parquet input is cut short, or whose disk is full (ENOSPC, from writing to
/dev/full), fails naming the file or folder and the way out (docs/recovery.md); any other failure
keeps its own error."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pandas as pd
import pytest
from snakemake.iocontainers import Namedlist

from noveval.inference.engines.servers import check_alive
from noveval.workflow.stage import CorruptInput, DiskFull, run_stage


def table_job(tmp_path, scores) -> SimpleNamespace:
    """A job of rule novbench_table, as Snakemake hands it to the stage script."""
    inputs = Namedlist([str(scores)])  # named slices of one flat list, as Snakemake's
    inputs._set_name("scores", 0, 1)
    inputs._set_name("weights", 1, 1)
    return SimpleNamespace(
        rule="novbench_table",
        input=inputs,
        output=Namedlist(
            fromdict={"csv": str(tmp_path / "table.csv"), "markdown": str(tmp_path / "table.md")}
        ),
        log=[str(tmp_path / "table.log")],
    )


def test_a_truncated_parquet_input_is_named_with_the_way_out(tmp_path):
    scores = tmp_path / "scores.parquet"
    pd.DataFrame({"paper_id": ["a", "b"], "relevance": [0.5, 0.25]}).to_parquet(scores)
    scores.write_bytes(scores.read_bytes()[: scores.stat().st_size // 2])
    with pytest.raises(CorruptInput) as raised:
        run_stage(table_job(tmp_path, scores))
    message = str(raised.value)
    assert message.startswith(f"{scores}: not a readable Parquet file, cut short or corrupt (")
    assert message.endswith(
        "Delete it and rerun: Snakemake rebuilds it from its own inputs, and the inference jobs "
        "behind it answer from their journals (docs/recovery.md)"
    )
    assert "CorruptInput" in (tmp_path / "table.log").read_text()  # the job's log has it too


def test_a_readable_input_keeps_the_stage_s_own_error(tmp_path):
    scores = tmp_path / "scores.parquet"
    pd.DataFrame({"unexpected": [1]}).to_parquet(scores)
    with pytest.raises(Exception) as raised:
        run_stage(table_job(tmp_path, scores))
    assert not isinstance(raised.value, CorruptInput)


def test_a_full_disk_names_the_folder_and_the_way_out(tmp_path):
    """Rule responses writes its table through a staging file: here /dev/full, so the write
    fails with ENOSPC, as on a full disk."""
    chunk = tmp_path / "1-of-1.parquet"
    pd.DataFrame({"request_id": ["r1"], "text": ["an answer"]}).to_parquet(chunk)
    out = tmp_path / "responses" / "cells.parquet"
    out.parent.mkdir()
    (out.parent / ".cells.parquet.partial").symlink_to("/dev/full")
    job = SimpleNamespace(
        rule="responses",
        input=Namedlist([str(chunk)]),
        output=Namedlist([str(out)]),
        log=[str(tmp_path / "responses.log")],
    )
    with pytest.raises(DiskFull) as raised:
        run_stage(job)
    message = str(raised.value)
    assert message.startswith(f"no space left on the device of {out.parent} (")
    assert message.endswith(
        f"Free space there (df -h {out.parent}) and rerun: finished outputs stay, and the "
        "journals keep every answer (docs/recovery.md)"
    )
    assert not out.exists()


def test_a_server_that_finds_its_disk_full_says_so(tmp_path):
    """A process standing in for a model server that writes to /dev/full at start and exits."""
    log = tmp_path / "server.log"
    with open(log, "w") as handle:
        server = subprocess.Popen(
            [sys.executable, "-c", "open('/dev/full', 'w').write('weights' * 100000)"],
            stdout=handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
        server.wait()
    with pytest.raises(OSError) as raised:
        check_alive(server, log, 0)
    assert str(raised.value).startswith(
        "[Errno 28] model server exited with code 1 before it was ready: no space left on a "
        "device it writes to (OSError: [Errno 28] No space left on device)."
    )
