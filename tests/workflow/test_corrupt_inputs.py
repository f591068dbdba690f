"""A job whose Parquet input is cut short fails naming the file and the way out
(docs/recovery.md, a corrupt intermediate); any other failure keeps its own error."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest
from snakemake.iocontainers import Namedlist

from noveval.workflow.stage import CorruptInput, run_stage


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
