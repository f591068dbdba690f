"""The scoring estimate: FLOPs, CPU-hours, SLURM resources and the plan's scoring rows."""

from __future__ import annotations

import math
import subprocess
import sys
from types import SimpleNamespace

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from noveval.inference import scoring_cost
from noveval.inference.scoring_cost import (
    GFLOP_PER_CORE_S,
    ScoringLoad,
    cpu_hours,
    gflop,
    measured_load,
    mem_mb,
    plan_jobs,
    runtime_minutes,
)
from noveval.planning.table import with_scoring

DEFAULT = {
    "relevance_encoder": "all-minilm-l6-v2",
    "coverage_encoder": "all-minilm-l6-v2",
    "fluency_lm": "smollm2-135m",
}
PAPER = {**DEFAULT, "relevance_encoder": "spiced", "fluency_lm": "distilgpt2"}
LOAD = ScoringLoad(papers=2, paper_sentences=10, outputs=4, items=20, tokens_per_sentence=10)


def test_gflop_counts_a_shared_encoder_once():
    # encoder: 10.8 M x 30 sentences; LM: 134.5 M x 20 items; 2 FLOPs each, 10 tokens
    assert gflop(LOAD, DEFAULT) == pytest.approx(2 * (10.8 * 30 + 134.5 * 20) * 10 / 1000)
    assert cpu_hours(LOAD, DEFAULT) == pytest.approx(60.28 / GFLOP_PER_CORE_S / 3600)


def test_gflop_counts_two_encoders_each():
    expected = 2 * ((85.6 + 10.8) * 30 + 81.1 * 20) * 10 / 1000
    assert gflop(LOAD, PAPER) == pytest.approx(expected)


def test_unknown_metric_model_is_named():
    with pytest.raises(ValueError, match="'bert-huge'"):
        gflop(LOAD, {**DEFAULT, "fluency_lm": "bert-huge"})


def test_runtime_follows_the_estimate_with_a_floor():
    assert runtime_minutes(LOAD, DEFAULT, threads=8) == 30
    big = ScoringLoad(1684, 16840, 15156, 90936, 39.25)
    hours = scoring_cost.LOAD_MIN / 60 + cpu_hours(big, PAPER) / 8
    assert runtime_minutes(big, PAPER, threads=8) == math.ceil(1.5 * hours * 60 + 10)
    assert runtime_minutes(big, PAPER, threads=2) > runtime_minutes(big, PAPER, threads=8)


def test_mem_mb_from_the_models_weights():
    # 2,000 base + 8 MB per million parameters + 1,000 for an LM batch; one shared encoder
    assert mem_mb(DEFAULT) == math.ceil(2000 + 8 * (22.7 + 134.5) + 1000)
    assert mem_mb(PAPER) == math.ceil(2000 + 8 * (109.5 + 22.7 + 81.9) + 1000)


def write(path, columns: dict) -> str:
    pq.write_table(pa.table(columns), path)
    return str(path)


def test_measured_load_reads_the_job_tables(tmp_path):
    papers = write(
        tmp_path / "papers.parquet",
        {"descriptions": [["a", "b"], ["c"]], "gold_texts": [["g"], ["h", "i"]]},
    )
    cells = [
        write(tmp_path / f"{cell}.parquet", {"items_text": items})
        for cell, items in {"zero": [["x", "y"], []], "few": [["z"], ["w", "v", "u"]]}.items()
    ]
    load = measured_load(papers, cells)
    assert (load.papers, load.paper_sentences, load.outputs, load.items) == (2, 6, 4, 6)
    human = measured_load(papers, [])  # the gold row: its items are the gold items
    assert (human.outputs, human.items) == (2, 3)
    with pytest.raises(FileNotFoundError, match="not written yet"):
        measured_load(str(tmp_path / "missing.parquet"), cells)


def test_runtime_before_parsing_uses_the_planned_load(tmp_path):
    """In a SLURM group job, scoring's resources are evaluated before its parsed tables exist:
    the papers and the number of cells give the planned load instead."""
    papers = write(tmp_path / "papers.parquet", {"descriptions": [["a"], ["b"], ["c"]]})
    config = {"novbench": {"scoring": DEFAULT}}
    runtime = scoring_cost.scoring_resources(config)["runtime"]
    later = [str(tmp_path / "zero-none.parquet"), str(tmp_path / "few-none.parquet")]
    inputs = SimpleNamespace(papers=papers, get=lambda key, default: later)
    planned = scoring_cost.planned_load(3, 6)
    assert runtime(None, inputs, 8) == runtime_minutes(planned, DEFAULT, 8)
    # before the papers exist too, the error names them (Snakemake then waits for them)
    missing = SimpleNamespace(papers=str(tmp_path / "later.parquet"), get=inputs.get)
    with pytest.raises(FileNotFoundError) as error:
        runtime(None, missing, 8)
    assert error.value.filename == str(tmp_path / "later.parquet")


def test_plan_jobs_one_per_dataset_and_model_plus_human():
    rows = plan_jobs({("emnlp", "m1"): (100, 900), ("emnlp", "m2"): (100, 600)}, DEFAULT)
    assert [(r["dataset"], r["model"], r["items"]) for r in rows] == [
        ("emnlp", "m1", 900 * scoring_cost.ITEMS_PER_OUTPUT),
        ("emnlp", "m2", 600 * scoring_cost.ITEMS_PER_OUTPUT),
        ("emnlp", "human", 100 * scoring_cost.GOLD_PER_PAPER),
    ]
    assert rows[0]["cpu_hours"] == pytest.approx(1.5 * rows[1]["cpu_hours"], rel=0.05)


def test_with_scoring_adds_rows_after_novbench_and_to_its_totals():
    columns = ["track", "model", "rule", "step", "jobs", "requests", "job_hours_max"]
    table = pd.DataFrame(
        [
            ["novbench", "m1", "infer", "generation", 2, 10, 1.0],
            ["judges", "j1", "infer", "reference", 1, 5, 0.5],
            ["novbench", "all", "", "", 2, 10, 1.0],
            ["judges", "all", "", "", 1, 5, 0.5],
            ["total", "all", "", "", 3, 15, 1.0],
        ],
        columns=columns,
    )
    scoring = pd.DataFrame(
        plan_jobs({("d1", "m1"): (1000, 9000), ("d2", "m1"): (70, 630)}, DEFAULT)
    )
    result = with_scoring(table, scoring)
    assert list(result["model"]) == ["m1", "m1", "human", "j1", "all", "all", "all"]
    assert list(result.loc[1:2, "rule"]) == ["novbench_score"] * 2
    assert result.loc[1, "jobs"] == 2 and result.loc[1, "requests"] == 0
    totals = result[result["model"] == "all"].set_index("track")
    assert list(totals["jobs"]) == [2 + 4, 1, 3 + 4]
    assert totals.loc["total", "cpu_hours"] == pytest.approx(scoring["cpu_hours"].sum(), abs=0.01)
    assert totals.loc["judges", "cpu_hours"] == 0


def test_sizing_imports_no_model_library():
    heavy = "{'torch', 'transformers', 'pandas'}"
    check = f"import sys, noveval.inference.scoring_cost; print(sorted({heavy} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr
