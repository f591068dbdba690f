"""The workflow end to end with the real SmolLM2 server, on tiny configs."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, run_snakemake, sample_subset, write_yaml
from report_check import assert_report_shows

from noveval.batches import read_responses

pytestmark = [pytest.mark.workflow, pytest.mark.model]


def test_tiny_grid_end_to_end(tmp_path, tiny_config):
    dataset = sample_subset(tmp_path, 3)
    config = tiny_config(
        datasets={"tiny": str(dataset)},
        strategies=["zero", "few", "rag"],
        perturbations=["none", "change", "del"],
    )
    run_snakemake("--cores", "2", "--configfile", str(config))
    out = tmp_path / "results" / "novbench" / "tiny"
    table = pd.read_csv(out / "table.csv")
    assert len(table) == 1 + 3 * 3
    assert table.iloc[0]["model"] == "human"
    models = table[table["model"] != "human"]
    assert set(zip(models["strategy"], models["perturbation"])) == {
        (s, p) for s in ("zero", "few", "rag") for p in ("none", "change", "del")
    }
    assert (table["n_papers"] == 3).all()
    assert table[["relevance", "coverage", "clarity", "dist_acc"]].notna().all().all()
    assert models["relevance"].between(0, 5).all() and models["clarity"].between(0, 1).all()
    assert (table["relevance_encoder"] == "all-minilm-l6-v2").all()
    assert (out / "sentiment_radar.png").stat().st_size > 10_000
    assert "Scored with" in (out / "table.md").read_text()
    # One inference job, one server start, answered the model's 9 cells; one the paraphrases.
    batch = out / "smollm2-135m" / "responses"
    assert sorted(path.name for path in batch.iterdir()) == ["cells.parquet", "paraphrase.parquet"]
    responses = read_responses(batch / "cells.parquet", "zero-none")
    assert len(responses) == 3 and responses["error"].isna().all()
    assert (responses["output_tokens"] > 0).all()
    assert pd.read_parquet(batch / "cells.parquet")["cell"].nunique() == 9
    paraphrases = read_responses(batch / "paraphrase.parquet", "paraphrase")
    assert paraphrases["item_id"].str.contains("#").all()
    infer_log = tmp_path / "results" / "logs" / "novbench" / "tiny" / "smollm2-135m" / "cells"
    assert "smollm2-135m/cells: 9 cells," in (infer_log / "infer.log").read_text()

    # Every rule left its log; a second run has nothing to do.
    assert (tmp_path / "results" / "logs" / "novbench" / "tiny" / "papers.log").exists()
    dry = run_snakemake("-n", "--cores", "2", "--configfile", str(config))
    assert "Nothing to be done" in dry.stdout + dry.stderr

    # Tables and figures come back from the scores alone: no model call, no metric.
    (out / "table.csv").unlink()
    (out / "sentiment_radar.png").unlink()
    plan = run_snakemake("-n", "--cores", "2", "--configfile", str(config))
    planned = plan.stdout + plan.stderr
    assert "novbench_table" in planned and "novbench_radar" in planned
    for expensive in ("infer", "novbench_score"):
        assert f"rule {expensive}:" not in planned
    run_snakemake("--cores", "2", "--configfile", str(config))
    assert pd.read_csv(out / "table.csv").equals(table)

    # Reruns cost only what changed: a new model adds its own jobs and the tables and figures;
    # a scoring setting or the metrics' code rerun scoring and what follows, nothing upstream.
    report_steps = {"novbench_table", "novbench_radar", "novbench", "all"}
    with_gpt4o = yaml.safe_load(config.read_text())
    with_gpt4o["novbench"]["models"] = ["smollm2-135m", "gpt-4o"]
    jobs = planned_jobs(write_yaml(tmp_path / "gpt-4o.yaml", with_gpt4o))
    assert {rule for rule, wildcards in jobs if wildcards.get("model") != "gpt-4o"} <= report_steps
    assert {rule for rule, wildcards in jobs if wildcards.get("model") == "gpt-4o"} == {
        "novbench_requests",
        "infer",
        "novbench_parse",
        "novbench_score",
    }
    threshold = yaml.safe_load(config.read_text())
    threshold["novbench"]["scoring"]["coverage_threshold"] = 0.6
    scoring = planned_jobs(write_yaml(tmp_path / "threshold.yaml", threshold))
    assert {rule for rule, _ in scoring} == {"novbench_score"} | (report_steps - {"novbench"})
    assert {w["model"] for rule, w in scoring if rule == "novbench_score"} == {
        "smollm2-135m",
        "human",
    }
    metrics = REPO / "src" / "noveval" / "novbench" / "metrics.py"
    source = metrics.read_text()
    try:
        metrics.write_text(source + "\n# a changed metric\n")
        assert planned_jobs(config) == scoring
    finally:
        metrics.write_text(source)
    assert planned_jobs(config) == []

    # The Snakemake report of this run shows the radar beside its caption in Chromium.
    assert_report_shows(config, tmp_path, "tiny")


def planned_jobs(config: Path) -> list[tuple[str, dict[str, str]]]:
    """(rule, wildcards) of each job a dry run of the default target lists, sorted."""
    output = run_snakemake("-n", "--cores", "2", "--configfile", str(config)).stdout
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", output):
        if match := re.match(r"(?:local)?rule (\w+):", block):
            found = re.search(r"\n\s+wildcards: (.*)", block)
            pairs = found.group(1).split(", ") if found else []
            jobs.append((match.group(1), dict(pair.split("=", 1) for pair in pairs)))
    return sorted(jobs, key=lambda job: (job[0], sorted(job[1].items())))
