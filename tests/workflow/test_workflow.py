"""The workflow end to end with the real SmolLM2 server: the shared run of the embedded default
(conftest's ``embedded_run``), its reruns and its report."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import LOOPBACK_KEY, REPO, planned_jobs, write_yaml
from report_check import assert_report_shows

from noveval.inference.batches import read_responses

pytestmark = [pytest.mark.workflow, pytest.mark.model]

# A tuple printed as a label: ('human-only', 'smollm2-135m')
TUPLE_LABEL = re.compile(r"\(\s*['\"][^'\"]*['\"]\s*,")


def test_novbench_grid_end_to_end(embedded_run):
    out = embedded_run.results / "novbench" / "tiny"
    table = pd.read_csv(out / "table.csv")
    assert len(table) == 1 + 2 * 3 * 3
    assert table.iloc[0]["model"] == "human"
    for model in ("smollm2-135m", "gpt-4o"):
        rows = table[table["model"] == model]
        assert set(zip(rows["strategy"], rows["perturbation"])) == {
            (s, p) for s in ("zero", "few", "rag") for p in ("none", "change", "del")
        }
    assert (table["n_papers"] == 2).all()
    assert table[["relevance", "coverage", "clarity", "dist_acc"]].notna().all().all()
    models = table[table["model"] != "human"]
    assert models["relevance"].between(0, 5).all() and models["clarity"].between(0, 1).all()
    assert (table["relevance_encoder"] == "all-minilm-l6-v2").all()
    # the loopback answers every call with a verdict in JSON: no item, counted, never a crash
    assert (table.loc[table["model"] == "gpt-4o", "n_empty"] == 2).all()
    assert (out / "sentiment_radar.png").stat().st_size > 10_000
    assert "Scored with" in (out / "table.md").read_text()
    # One inference job, one server start, answered the model's 9 cells; one the paraphrases:
    # each batch is one chunk, gathered into the batch's responses table.
    batch = out / "smollm2-135m" / "responses"
    assert sorted(path.name for path in batch.iterdir()) == [
        "cells", "cells.parquet", "paraphrase", "paraphrase.parquet"
    ]  # fmt: skip
    assert [path.name for path in (batch / "cells").iterdir()] == ["1-of-1.parquet"]
    responses = read_responses(batch / "cells.parquet", "zero-none")
    assert len(responses) == 2 and responses["error"].isna().all()
    assert (responses["output_tokens"] > 0).all()
    assert pd.read_parquet(batch / "cells.parquet")["cell"].nunique() == 9
    paraphrases = read_responses(batch / "paraphrase.parquet", "paraphrase")
    assert paraphrases["item_id"].str.contains("#").all()
    logs = embedded_run.results / "logs" / "novbench" / "tiny"
    infer_log = (logs / "smollm2-135m" / "cells" / "1-of-1" / "infer.log").read_text()
    assert "smollm2-135m/cells/1-of-1: 9 cells," in infer_log
    assert (logs / "papers.log").exists()  # every rule leaves its log


def test_every_table_of_the_run_names_its_index_columns(embedded_run):
    """No tables.md or table.md of either study labels a row or column with a tuple; the judges'
    name their setup and model."""
    results = embedded_run.results
    written = {*results.rglob("tables.md"), *results.rglob("table.md")}
    judges = results / "judges" / "tiny"
    grids = [judges / "pairwise" / "tables.md", judges / "pointwise" / "tables.md"]
    assert {*grids, results / "novbench" / "tiny" / "table.md"} <= written
    for path in written:
        assert not TUPLE_LABEL.search(path.read_text()), path
    for path in grids:
        headers = [line for line in path.read_text().splitlines() if line.startswith("| setup")]
        assert len(headers) == 3 and all(h.split("|")[2].strip() == "model" for h in headers)


def test_jobs_that_load_metric_models_run_with_the_hub_off(embedded_run):
    """NovBench scoring and the Idea Novelty Checker's embedding cut (MiniLM) load their models
    with the hub off, hub models from the weights cache (none in the embedded default: its
    models are packaged). The run's retrieval cells search Semantic Scholar: no model there."""
    logs = embedded_run.results / "logs"
    scoring = sorted(logs.glob("novbench/tiny/*/score.log"))
    checker = sorted(logs.glob("judges/tiny/*/pointwise/*/standard/novelty_checker/verdicts.log"))
    assert len(scoring) == 3 and checker  # human, smollm2-135m, gpt-4o
    for log in scoring + checker:
        assert "hub off (HF_HUB_OFFLINE=1); snapshots from the weights cache: none" in (
            log.read_text()
        ), log


def test_second_run_has_nothing_to_do(embedded_run):
    dry = embedded_run.snakemake("-n", "--cores", "2")
    assert "Nothing to be done" in dry.stdout + dry.stderr


def test_tables_and_figures_come_back_from_cached_outputs_with_no_key(embedded_run, tmp_path):
    """The README's command for tables and figures from cached outputs: no model call, no
    metric, no API key."""
    run = embedded_run.copy(tmp_path)
    novbench, judges = run.results / "novbench" / "tiny", run.results / "judges" / "tiny"
    table = pd.read_csv(novbench / "table.csv")
    for path in (novbench / "table.csv", novbench / "sentiment_radar.png"):
        path.unlink()
    (judges / "pairwise" / "tables.md").unlink()
    (judges / "motivation.png").unlink()
    keyless = {name: value for name, value in run.env.items() if name not in LOOPBACK_KEY}
    assert {rule for rule, _ in run.planned_jobs()} == {
        *("novbench_table", "novbench_radar", "judges_tables", "judges_motivation", "all"),
        "novbench_explorer",  # it reads the table
    }
    run.snakemake("--cores", "2", env=keyless)
    assert pd.read_csv(novbench / "table.csv").equals(table)
    assert "Tie rate" in (judges / "pairwise" / "tables.md").read_text()


def reordered(value):
    """``value`` with every mapping's keys in reverse order, at every depth."""
    if isinstance(value, dict):
        return {key: reordered(value[key]) for key in reversed(value)}
    return value


def sorted_overlay(path, config: dict):
    """``config`` written as a new user's yaml.safe_dump writes it: keys sorted."""
    path.write_text(yaml.safe_dump(config))
    return path


def test_overlays_that_say_the_same_in_another_order_rerun_nothing(embedded_run, tmp_path):
    """A copy of the run's config with every mapping's keys and the models lists reversed, and
    the same written sorted (as yaml.safe_dump writes it): no job."""
    config = reordered(embedded_run.config)
    for section in ("novbench", "judges"):
        config[section]["models"].reverse()
    assert config["novbench"]["models"] == ["gpt-4o", "smollm2-135m"]
    assert list(config) != list(embedded_run.config)
    backwards = tmp_path / "backwards.yaml"
    backwards.write_text(yaml.safe_dump(config, sort_keys=False))
    assert embedded_run.planned_jobs(backwards) == []
    assert embedded_run.planned_jobs(sorted_overlay(tmp_path / "sorted.yaml", config)) == []


def test_a_new_model_reruns_only_its_jobs_and_the_tables(embedded_run, tmp_path):
    config = embedded_run.config
    config["novbench"]["models"].insert(0, "gpt-5.1")
    jobs = embedded_run.planned_jobs(sorted_overlay(tmp_path / "gpt-5.1.yaml", config))
    assert {rule for rule, wildcards in jobs if wildcards.get("model") != "gpt-5.1"} == {
        "novbench_table",
        "novbench_radar",
        "novbench_explorer",
        "all",
    }
    assert {rule for rule, wildcards in jobs if wildcards.get("model") == "gpt-5.1"} == {
        "novbench_requests",
        "infer_api",
        "responses",
        "novbench_parse",
        "novbench_score",
    }


def test_a_scoring_setting_or_the_metrics_code_rerun_scoring_and_what_follows(
    embedded_run, tmp_path
):
    def steps(jobs) -> list[tuple[str, str | None]]:
        return sorted((rule, wildcards.get("model")) for rule, wildcards in jobs)

    scoring_and_after = [
        *[("novbench_score", model) for model in ("gpt-4o", "human", "smollm2-135m")],
        *[
            (rule, None)
            for rule in ("all", "novbench_radar", "novbench_table", "novbench_explorer")
        ],
    ]
    config = embedded_run.config
    config["novbench"]["scoring"]["coverage_threshold"] = 0.6
    threshold = sorted_overlay(tmp_path / "threshold.yaml", config)
    assert steps(embedded_run.planned_jobs(threshold)) == sorted(scoring_and_after)
    # The metrics module changed in a copy of the package that the workflow imports first: the
    # checkout stays as it is for the tests that run beside this one.
    package = tmp_path / "src"
    shutil.copytree(REPO / "src", package, ignore=shutil.ignore_patterns("__pycache__"))
    metrics = package / "noveval" / "novbench" / "metrics.py"
    metrics.write_text(metrics.read_text() + "\n# a changed metric\n")
    edited = embedded_run.snakemake(
        "-n", "--cores", "2", env={**embedded_run.env, "PYTHONPATH": str(package)}
    )
    assert steps(planned_jobs(edited.stdout)) == sorted(scoring_and_after)
    # One stage changed (the judges' tables): that rule reruns, no verdict, metric or figure
    # (each rule's code version hashes its own stage module and what it imports)
    metrics.write_text(metrics.read_text().removesuffix("\n# a changed metric\n"))
    tables = package / "noveval" / "judges" / "stages" / "tables.py"
    tables.write_text(tables.read_text() + "\n# a changed table\n")
    edited = embedded_run.snakemake(
        "-n", "--cores", "2", env={**embedded_run.env, "PYTHONPATH": str(package)}
    )
    assert {rule for rule, _ in planned_jobs(edited.stdout)} - {"all"} == {"judges_tables"}
    assert embedded_run.planned_jobs() == []


def test_a_changed_registry_entry_reruns_that_model_only(embedded_run):
    """A changed registry entry of gpt-4o (its price) reruns gpt-4o's requests and inference,
    and nothing of the local model."""
    registry_path = Path(embedded_run.config["registry"])
    content = registry_path.read_text()
    registry = yaml.safe_load(content)
    registry["models"]["gpt-4o"]["price_per_million"]["output"] += 1
    batches = [
        str(embedded_run.results / "novbench" / "tiny" / model / "responses" / "cells.parquet")
        for model in ("smollm2-135m", "gpt-4o")
    ]
    try:
        write_yaml(registry_path, registry)
        planned = embedded_run.snakemake(*batches, "-n", "--cores", "2").stdout
    finally:
        registry_path.write_text(content)
    outputs = [line for line in planned.splitlines() if line.strip().startswith("output:")]
    # 9 requests tables, the batch's one chunk, and its gathered responses table
    assert len(outputs) == 9 + 1 + 1 and all("/gpt-4o/" in line for line in outputs), planned[
        -2000:
    ]
    assert "params have changed since last execution" in planned


def test_the_report_shows_the_radar_beside_its_caption_in_chromium(embedded_run, tmp_path):
    assert_report_shows(embedded_run.config_path, tmp_path, "tiny")
