"""The workflow end to end with the real SmolLM2 server, on tiny configs."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import run_snakemake, sample_subset

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
    responses = pd.read_parquet(out / "smollm2-135m" / "zero-none" / "responses.parquet")
    assert len(responses) == 3 and responses["error"].isna().all()
    assert (responses["output_tokens"] > 0).all()
    paraphrases = pd.read_parquet(out / "smollm2-135m" / "paraphrase" / "responses.parquet")
    assert paraphrases["item_id"].str.contains("#").all()

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
