"""The pilot: which calls it makes, what it measures, and the plan that then uses it (no model)."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import pytest
import yaml
from conftest import REPO, config_schema, planned_jobs, write_yaml
from snakemake.utils import validate

from noveval.cluster.pilot import pilot_requests, pilot_sources
from noveval.core.files import write_table
from noveval.core.registry import load_registry
from noveval.inference.measured import MEASURED_COLUMNS, measure, read_measured, write_measured
from noveval.inference.requests import REQUEST_COLUMNS, build_request
from noveval.inference.workloads import (
    BATCH_WINDOW_HOURS,
    PlanSettings,
    Workload,
    hosted_hours,
    measured_path,
    runtime_minutes,
)
from noveval.judges.grid.build import judges_grid
from noveval.novbench.grid import novbench_grid
from noveval.planning.notes import plan_notes
from noveval.planning.table import plan_table

REGISTRY = load_registry(REPO / "config" / "models.yaml")
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 4096}
LATENCY_S = 2.0  # the loopback server's fixed latency in the pilot (the client adds ~0.05 s)


def measured_row(model: str, track: str, tokens_per_s: float, **values) -> dict:
    """A measured file row: 10 s of calls in flight at ``tokens_per_s``."""
    row = {
        "model": model,
        "track": track,
        "engine": REGISTRY.model(model).engine,
        "calls": 16,
        "failed_calls": 0,
        "sent_calls": 16,
        "send_s": 10.0,
        "sent_output_tokens": round(10 * tokens_per_s),
        "output_tokens_per_s": tokens_per_s,
        "calls_per_s": 1.6,
        "mean_output_tokens": 900.0,
        "mean_reasoning_tokens": 0.0,
        "server_start_s": 120.0,
    }
    return {**row, **values}


def generation(model: str, calls: int, perturbation: str = "none") -> Workload:
    return Workload(track="novbench", dataset="d", model=model, batch="cells",
                    step="generation", strategy="zero", perturbation=perturbation, papers=calls,
                    calls=calls, input_tokens=0, output_tokens=calls * 900,
                    stand_in=False)  # fmt: skip


def test_plan_and_time_limits_follow_a_measured_throughput(tmp_path):
    path = tmp_path / "measured.csv"
    config = {"plan": {}, "results": str(tmp_path / "results")}
    assert PlanSettings.from_config(config).measurements == {}  # no pilot yet: assumed
    config["plan"]["measured"] = str(path)
    spec = REGISTRY.model("qwen3-8b")
    workloads = [generation("qwen3-8b", 6000), generation("gpt-4o", 10)]
    estimates = {}
    for tokens_per_s in (1200.0, 2400.0):
        write_measured([measured_row("qwen3-8b", "novbench", tokens_per_s)], path)
        settings = PlanSettings.from_config(config)
        table = plan_table(workloads, REGISTRY, 16, settings).set_index("model")
        estimates[tokens_per_s] = table.loc["qwen3-8b"]
        assert table.loc["gpt-4o", "estimate"] == "assumed"
        # 6,000 calls x 900 measured tokens, the measured start of 120 s
        minutes = (120 + 6000 * 900 / tokens_per_s) / 60
        expected = math.ceil(1.5 * minutes + 10)
        assert runtime_minutes(spec, 6000, 4096, 16, settings) == expected
    assert {row["estimate"] for row in estimates.values()} == {"measured"}
    assert estimates[1200.0]["job_hours_max"] == pytest.approx((120 + 4500) / 3600, abs=0.01)
    assert estimates[2400.0]["job_hours_max"] == pytest.approx((120 + 2250) / 3600, abs=0.01)
    # the same calls on the judge track: nothing measured there, the assumed 1,700 tokens
    assumed = runtime_minutes(spec, 6000, 4096, 16, settings, track="judges")
    assert assumed == math.ceil(1.5 * (120 + 6000 * 1700 / 2400) / 60 + 10)


def test_plan_compares_unperturbed_wall_hours_with_the_paper(tmp_path):
    path = tmp_path / "measured.csv"
    # a two-GPU model: 10 h of unperturbed generation; 20 more with the perturbations
    write_measured([measured_row("deepseek-r1-distill-llama-70b", "novbench", 100.0)], path)
    settings = PlanSettings.from_config({"plan": {"measured": str(path)}})
    workloads = [
        generation("deepseek-r1-distill-llama-70b", 4000),
        generation("deepseek-r1-distill-llama-70b", 8000, perturbation="del"),
        generation("qwen3-8b", 10),
    ]
    table = plan_table(workloads, REGISTRY, 16, settings)
    row = table.set_index("model").loc["deepseek-r1-distill-llama-70b"]
    assert row["wall_hours_unperturbed"] == pytest.approx(120 / 3600 + 10, abs=0.01)
    assert row["gpu_hours_unperturbed"] == pytest.approx(2 * (120 / 3600 + 10), abs=0.01)
    notes = plan_notes(table, workloads, settings, DECODING)
    assert "5-70 wall hours per model for its unperturbed cells" in notes
    assert "1 of the 2 GPU models of this grid fall within" in notes
    assert f"Measured by the pilot ({path})" in notes
    assert "novbench: deepseek-r1-distill-llama-70b (estimate = measured)" in notes
    assert "Assumed: novbench: qwen3-8b." in notes


def test_hosted_hours_are_calls_over_concurrency_times_latency_within_rate_limits(tmp_path):
    """600 gpt-4o calls of 500 output tokens, 4 in flight: 10 s each at the assumed 50 tokens/s,
    so 1,500 s; a measured latency replaces it; rate limits only ever lengthen it. GPU jobs: the
    GPU-hours over the GPUs of their partition held at once; the total is the longest
    partition's."""
    gpt = replace(REGISTRY.model("gpt-4o"), requests_per_minute=None, tokens_per_minute=None)
    calls = replace(generation("gpt-4o", 600), input_tokens=600 * 1500, output_tokens=600 * 500)
    settings = PlanSettings()
    assert hosted_hours(gpt, calls, 4, settings) == pytest.approx(1500 / 3600)
    assert hosted_hours(replace(gpt, requests_per_minute=30), calls, 4, settings) == (
        pytest.approx(1500 / 3600)
    )  # 20 minutes' worth of requests: the latency binds
    assert hosted_hours(replace(gpt, requests_per_minute=10), calls, 4, settings) == 1.0
    tokens = replace(gpt, tokens_per_minute=20_000)  # 1.2 M tokens: an hour
    assert hosted_hours(tokens, calls, 4, settings) == pytest.approx(1.0)
    path = tmp_path / "measured.csv"
    write_measured([measured_row("gpt-4o", "novbench", 50.0, mean_latency_s=3.0)], path)
    measured = PlanSettings.from_config({"plan": {"measured": str(path)}, "results": ""})
    assert hosted_hours(gpt, calls, 4, measured) == pytest.approx(600 / 4 * 3.0 / 3600)

    workloads = [generation("qwen3-8b", 6000), generation("cyclereviewer-70b", 600), calls]
    partitions = {"qwen3-8b": ["gpu-a100", 8], "cyclereviewer-70b": ["gpu-h100", 4]}
    table = plan_table(workloads, REGISTRY, 16, settings, partitions=partitions)
    rows, total = table.set_index("model").iloc[:-1], table.iloc[-1]
    assert rows.loc["qwen3-8b", "partition"] == "gpu-a100" and rows.loc["gpt-4o", "partition"] == ""
    for model, (_, held) in partitions.items():
        assert rows.loc[model, "gpu_wall_hours"] == pytest.approx(
            rows.loc[model, "gpu_hours"] / held, abs=0.01
        )
    assert total["gpu_wall_hours"] == rows["gpu_wall_hours"].max()
    assert total["hosted_hours"] == rows.loc["gpt-4o", "hosted_hours"] > 0
    assert total["batch_hours"] == BATCH_WINDOW_HOURS == rows.loc["gpt-4o", "batch_hours"]
    assert rows.loc["qwen3-8b", "batch_hours"] == 0 == rows.loc["qwen3-8b", "hosted_hours"]


def test_measure_counts_what_the_run_sent_and_estimates_reasoning():
    spec = REGISTRY.model("qwen3-8b")  # a reasoning model
    responses = pd.DataFrame({
        "request_id": ["a", "b", "c", "c", "d"],
        "text": ["x" * 40, "y" * 80, "z" * 8, "z" * 8, None],
        "output_tokens": [110, 220, 30, 30, 0],
        "error": [None, None, None, None, "APIError: down"],
        "latency_s": [9.0, 2.0, 3.0, 3.0, 60.0],
    })  # fmt: skip
    # a: answered by an earlier run's journal; b, c sent now, in 4 s; d failed for good
    sent = {"request_ids": ["b", "c", "d"], "server_start_s": 31.25, "send_s": 4.0}
    row = measure(responses, sent, spec, "novbench", chars_per_token=4.0)
    assert list(row) == MEASURED_COLUMNS
    assert (row["calls"], row["failed_calls"], row["sent_calls"]) == (3, 1, 2)
    assert row["sent_output_tokens"] == 250 and row["output_tokens_per_s"] == 62.5
    assert row["calls_per_s"] == 0.5 and row["server_start_s"] == 31.25
    assert row["mean_latency_s"] == 2.5  # b and c, answered in this run
    assert row["mean_output_tokens"] == pytest.approx(360 / 3)
    # output tokens beyond the text's 10, 20 and 2 tokens
    assert row["mean_reasoning_tokens"] == pytest.approx((100 + 200 + 28) / 3)
    journaled = measure(responses, {}, spec, "novbench", chars_per_token=4.0)
    assert math.isnan(journaled["output_tokens_per_s"]) and journaled["sent_calls"] == 0


def test_measured_file_pools_a_models_tracks_and_names_a_missing_column(tmp_path):
    path = tmp_path / "measured.csv"
    rows = [
        measured_row("qwen3-8b", "novbench", 100.0, server_start_s=100.0),
        measured_row("qwen3-8b", "judges", 300.0, server_start_s=140.0, mean_output_tokens=80.0),
    ]
    write_measured(rows, path)
    measured = read_measured(path)["qwen3-8b"]
    assert measured.output_tokens_per_s == pytest.approx((1000 + 3000) / 20)
    assert measured.server_start_s == 120.0
    assert measured.answer_tokens == {"novbench": 900.0, "judges": 80.0}
    pd.read_csv(path).drop(columns="send_s").to_csv(path, index=False)
    with pytest.raises(ValueError, match=f"measured file {path}: no column send_s"):
        read_measured(path)


def test_pilot_takes_the_first_items_of_unperturbed_and_reference_cells(tmp_path):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["results"] = "out"
    validate(config, config_schema())
    assert config["pilot"] == {"papers": 2, "instances": 2}
    sources = pilot_sources(novbench_grid(config, REGISTRY), judges_grid(config, REGISTRY), "out")
    assert sorted(sources) == [("judges", "smollm2-135m"), ("novbench", "smollm2-135m")]
    assert sources["novbench", "smollm2-135m"] == [
        f"out/novbench/sample/smollm2-135m/{strategy}-none/requests.parquet"
        for strategy in ("zero", "few", "rag")
    ]
    assert all("/reference/" in path for path in sources["judges", "smollm2-135m"])

    spec = REGISTRY.model("smollm2-135m")
    tables = []
    for name, items in (("one", ["p3", "p3", "p1", "p2"]), ("two", ["p9", "p8"])):
        rows = [
            build_request(item, spec, [{"role": "user", "content": f"{item} {i}"}], DECODING)
            for i, item in enumerate(items)
        ]
        tables.append(tmp_path / f"{name}.parquet")
        write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), tables[-1])
    pilot_requests([str(path) for path in tables], 1, str(tmp_path / "pilot.parquet"))
    pilot = pd.read_parquet(tmp_path / "pilot.parquet")
    assert list(pilot["item_id"]) == ["p3", "p3", "p9"]  # both orders of a pair stay together


@pytest.mark.workflow
@pytest.mark.model
def test_pilot_on_the_embedded_run_measures_with_its_own_journal(embedded_run, loopback, tmp_path):
    """`snakemake pilot` on a copy of the embedded run (local SmolLM2, gpt-4o on the loopback
    server, answering each call after a fixed latency): 1 paper of the 3 unperturbed NovBench
    cells per model, the first item of the reference judge cells (a pair in one order, an idea);
    only the pilot's jobs run (gpt-4o's on the submitting host, as its grid calls), and the
    plan reads its file: gpt-4o's hours are its calls ÷ concurrency × that latency."""
    run = embedded_run.copy(tmp_path)
    config = run.config
    config["pilot"] = {"papers": 1, "instances": 1}
    overlay = write_yaml(tmp_path / "pilot.yaml", config)
    journals = {path: path.stat().st_mtime_ns for path in (run.results / "cache").rglob("*")}
    loopback.latency_s = LATENCY_S
    try:
        result = run.snakemake("pilot", "--cores", "2", config=overlay)
    finally:
        loopback.latency_s = 0.0

    assert {rule for rule, _ in planned_jobs(result.stdout + result.stderr)} == {
        "pilot_requests",
        "pilot_infer",
        "pilot_infer_api",
        "pilot",
    }
    assert {path: path.stat().st_mtime_ns for path in (run.results / "cache").rglob("*")} == (
        journals
    )  # the grid's journals are untouched: the pilot keeps its own
    assert any((run.results / "pilot" / "cache" / "smollm2-135m").iterdir())
    measured = pd.read_csv(measured_path(config)).set_index(["track", "model"])
    expected_calls = {
        ("novbench", "smollm2-135m"): 3,
        ("novbench", "gpt-4o"): 3,
        ("judges", "smollm2-135m"): 2,  # a pair in one order, an idea
    }
    assert measured["calls"].to_dict() == expected_calls
    assert measured["sent_calls"].to_dict() == expected_calls
    assert (measured["failed_calls"] == 0).all() and (measured["output_tokens_per_s"] > 0).all()
    assert measured.loc[("novbench", "gpt-4o"), "server_start_s"] < 1  # no server to start
    assert measured.loc[("judges", "smollm2-135m"), "server_start_s"] > 0
    # the pilot's calls are the grid's (the same request ids), its file their token counts
    for track, model in expected_calls:
        pilot = pd.read_parquet(run.results / "pilot" / track / model / "pilot_answers.parquet")
        grid = pd.concat(
            pd.read_parquet(path)
            for path in (run.results / track / "tiny" / model / "responses").glob("*.parquet")
        ).drop_duplicates("request_id")
        merged = pilot.merge(grid, on="request_id", suffixes=("", "_grid"))
        assert len(merged) == len(pilot)
        tokens = pilot["output_tokens"].sum()
        assert measured.loc[(track, model), "sent_output_tokens"] == tokens
        assert measured.loc[(track, model), "mean_output_tokens"] == tokens / len(pilot)
    settings = PlanSettings.from_config(config)
    assert settings.estimate("smollm2-135m", "judges") == "measured"
    assert settings.estimate("gpt-4o", "judges") == "assumed"
    again = run.snakemake("-n", "pilot", "--cores", "2", config=overlay)
    assert "Nothing to be done" in again.stdout + again.stderr

    assert measured.loc[("novbench", "gpt-4o"), "mean_latency_s"] == pytest.approx(
        LATENCY_S, rel=0.1
    )
    run.snakemake("--cores", "1", "plan", config=overlay)
    plan = pd.read_csv(run.results / "plan" / "compute_plan.csv")
    calls = (plan["model"] == "gpt-4o") & (plan["track"] == "novbench") & (plan["engine"] == "api")
    hosted = plan[calls]  # not its scoring jobs' row
    concurrency = config["inference"]["concurrency"]
    expected = hosted["requests"].sum() / concurrency * LATENCY_S / 3600
    assert hosted["hosted_hours"].sum() == pytest.approx(expected, rel=0.1)
    assert (hosted["batch_hours"] == BATCH_WINDOW_HOURS).all()


@pytest.mark.workflow
def test_paper_grid_plan_compares_wall_hours_of_unperturbed_cells(paper_grid):
    """The paper grid's plan (no pilot yet): every model assumed; the paper's 5-70 hours set
    against each GPU model's unperturbed wall hours, not its GPU-hours."""
    table = pd.read_csv(paper_grid.plan / "compute_plan.csv")
    models = table[(table["model"] != "all") & (table["rule"] == "infer")]
    assert set(models["estimate"]) == {"assumed"}
    gpu = models[(models["track"] == "novbench") & (models["gpus_per_job"] > 0)]
    wall = gpu.groupby("model")["wall_hours_unperturbed"].sum()
    within = int(wall.between(5, 70).sum())
    markdown = (paper_grid.plan / "compute_plan.md").read_text()
    assert f"{within} of the {len(wall)} GPU models of this grid fall within" in markdown
    assert (within, len(wall)) == (4, 16)
    assert "Measured: none" in markdown
