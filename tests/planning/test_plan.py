"""The paper registry, SLURM job sizing, the vLLM command line and the compute plan (no model)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import (
    PAPER_GRID_MINUTES,
    REPO,
    SAMPLE,
    config_schema,
    planned_jobs,
    run_snakemake,
    snakemake_env,
    tiny_judges_release,
    write_yaml,
)
from snakemake.utils import update_config, validate

from noveval.cluster import resources as cluster
from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.inference.engines.servers import server_command
from noveval.inference.workloads import (
    PlanSettings,
    Workload,
    output_tokens_per_call,
    runtime_minutes,
)
from noveval.judges.statistics.calibration import calibrate
from noveval.literature.assisted_search import AssistedSearchPrompts
from noveval.novbench.releases import download, release_files
from noveval.planning.judges import calibrated_judges, checker_workloads
from noveval.planning.literature import search_workloads
from noveval.planning.novbench import novbench_workloads
from noveval.planning.table import plan_table

REGISTRY = load_registry(REPO / "config" / "models.yaml")
PAPER = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
NOVBENCH_MODELS = PAPER["novbench"]["models"]
JUDGES = ["gpt-5.1", "gpt-5.2", "gpt-5.4"] + [
    f"claude-{name}" for name in ("sonnet-4-5", "opus-4-5", "opus-4-6")
]
ONE_A100 = {"qwen3-32b", "qwen3-14b", "qwen3-8b", "deepseek-r1-distill-qwen-14b",
            "deepseek-r1-distill-llama-8b", "gpt-oss-20b", "cyclereviewer-8b", "deepreviewer-7b",
            "llama-openreviewer-8b", "reviewer2", "sea-e", "sea-s", "deepreviewer-14b"}  # fmt: skip
TWO_A100 = {"deepseek-r1-distill-llama-70b", "cyclereviewer-70b"}


def paper_config() -> dict:
    """config/config.yaml with config/paper.yaml merged in, as Snakemake merges overlays."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, PAPER)
    return config


def test_registry_holds_both_studies_with_the_papers_allocation():
    assert len(NOVBENCH_MODELS) == 20  # Table 2's 19 and gpt-3.5-turbo (Tables 3 and 4)
    assert {"smollm2-135m", "qwen3-8b", "gpt-4o", *NOVBENCH_MODELS, *JUDGES} <= set(REGISTRY.models)
    for name in NOVBENCH_MODELS + JUDGES:
        spec = REGISTRY.model(name)
        assert name == name.lower() and " " not in name
        if spec.engine == "api":
            assert spec.api_key_env and spec.base_url and spec.price_per_million["output"] > 0
            assert spec.gpus == 0
            continue
        assert spec.engine == "vllm" and "/" in spec.reference and spec.throughput_tokens_per_s
        allocation = (spec.gpus, spec.gpu_model)
        if name in ONE_A100:
            assert allocation == (1, "a100"), name
        elif name in TWO_A100:
            assert allocation == (2, "a100"), name
        else:
            assert name == "gpt-oss-120b" and allocation == (2, "h100")
    anthropic = REGISTRY.model("claude-opus-4-6")
    assert anthropic.api_key_env == "ANTHROPIC_API_KEY" and "anthropic.com" in anthropic.base_url


def test_paper_overlay_validates_and_selects_the_whole_grid():
    config = paper_config()
    validate(config, config_schema())
    section = config["novbench"]
    assert config["decoding"]["max_tokens"] == 4096
    assert section["strategies"] == ["zero", "few", "rag"]
    assert section["perturbations"] == ["none", "change", "del"]
    releases = release_files(section["datasets"], "downloads")
    # the sample is dropped; Table 5's 100 papers are a dataset of their own
    assert set(releases) == {"emnlp2023", "coling2020", "emnlp2023-release100"}
    assert section["datasets"]["emnlp2023-release100"]["models"] == ["gpt-4o"]
    assert releases["emnlp2023"].paper_count() == 1684 and releases["emnlp2023"].has_retrieval()
    assert releases["emnlp2023"].url.endswith("/data/Final_data.json")


def test_slurm_resources_follow_the_allocation():
    spec = REGISTRY.model("deepseek-r1-distill-llama-70b")
    assert cluster.gpus(spec) == 2 and cluster.gpu_model(spec) == "a100"
    assert cluster.cpus_per_gpu(spec) == 8 and cluster.mem_mb(spec) == 128_000
    # 60 calls x 1,700 tokens at 100 tokens/s after a 5-min start, with the safety factor
    hours = 5 / 60 + 60 * 1700 / 100 / 3600
    assert runtime_minutes(spec, 60, 4096, 16, PlanSettings()) == math.ceil(1.5 * hours * 60 + 10)
    hosted = REGISTRY.model("gpt-4o")
    sizes = (cluster.gpus, cluster.gpu_model, cluster.cpus_per_gpu)
    assert [size(hosted) for size in sizes] == [0, "", 0]
    assert cluster.inference_env(REGISTRY.model("qwen3-8b")) == "inference-vllm.yaml"
    assert cluster.inference_env(REGISTRY.model("gpt-4o")) == "noveval.yaml"


def test_vllm_serves_on_the_gpus_the_job_got(monkeypatch):
    spec = REGISTRY.model("gpt-oss-120b")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    command = server_command(spec, 8123, threads=8)
    assert command[:3] == ["vllm", "serve", "openai/gpt-oss-120b"]
    options = dict(zip(command[3::2], command[4::2]))
    assert options["--tensor-parallel-size"] == "2" and options["--max-model-len"] == "16384"
    assert options["--served-model-name"] == "gpt-oss-120b" and options["--port"] == "8123"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    qwen = REGISTRY.model("qwen3-32b")
    command = server_command(qwen, 8123, threads=8)
    assert command[command.index("--tensor-parallel-size") + 1] == "1"
    assert command[-2:] == ["--gpu-memory-utilization", "0.95"]
    assert qwen.request_options() == {"chat_template_kwargs": {"enable_thinking": True}}
    assert REGISTRY.model("gpt-5.4").request_options() == {}  # the judge track sets it per call
    effort = replace(REGISTRY.model("gpt-5"), reasoning_effort="minimal")
    assert effort.call_parameters({"max_tokens": 8})["reasoning_effort"] == "minimal"
    parsed = replace(qwen, reasoning_parser="qwen3", chat_template="t.jinja")
    command = server_command(parsed, 8123, threads=8)
    assert "--reasoning-parser" in command and "--chat-template" in command


def test_plan_renders_a_custom_evaluators_own_prompt():
    decoding = {"temperature": 0.0, "seed": 0, "max_tokens": 64, "mode": "greedy"}
    novbench = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["novbench"]
    novbench["custom"] = {"bare": {"model": "gpt-4o", "template": "{{ descriptions | join(' ') }}"}}
    cells = [
        {"dataset": "here", "model": "gpt-4o", "strategy": strategy, "perturbation": "none"}
        for strategy in ("zero", "custom-bare")
    ]
    workloads = novbench_workloads(
        cells, {"here": str(SAMPLE)}, "gpt-4o-mini", novbench, decoding, REGISTRY, "nowhere",
        PlanSettings(),
    )  # fmt: skip
    by_strategy = {w.strategy: w for w in workloads}
    assert by_strategy["custom-bare"].calls == len(json.loads(SAMPLE.read_text()))
    # the bare sentences, without the zero-shot prompt's instructions
    assert 0 < by_strategy["custom-bare"].input_tokens < by_strategy["zero"].input_tokens


def test_plan_scales_rendered_prompts_to_a_declared_dataset():
    settings = PlanSettings()
    decoding = {"temperature": 0.0, "seed": 0, "max_tokens": 4096, "mode": "greedy"}
    novbench = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["novbench"]
    cells = [
        {"dataset": name, "model": model, "strategy": "zero", "perturbation": perturbation}
        for name in ("here", "declared")
        for model in ("qwen3-8b", "gpt-4o")
        for perturbation in ("none", "change")
    ]
    datasets = {
        "here": str(SAMPLE),
        "declared": {"url": "https://example.org/x.json", "papers": 700, "retrieval": True},
    }
    workloads = novbench_workloads(
        cells, datasets, "gpt-4o-mini", novbench, decoding, REGISTRY, "nowhere", settings
    )
    by_key = {(w.dataset, w.model, w.step, w.perturbation): w for w in workloads}
    sample_papers = len(json.loads(SAMPLE.read_text()))
    here = by_key["here", "qwen3-8b", "generation", "none"]
    declared = by_key["declared", "qwen3-8b", "generation", "none"]
    assert here.calls == sample_papers and not here.stand_in
    assert declared.calls == 700 and declared.stand_in
    assert declared.input_tokens == pytest.approx(here.input_tokens * 700 / sample_papers, abs=1)
    assert declared.output_tokens == 700 * 1700  # 700-token answer + 1,000 reasoning tokens
    assert by_key["declared", "gpt-4o", "generation", "none"].output_tokens == 700 * 700
    paraphrase = by_key["declared", "gpt-4o-mini", "paraphrase", "change"]
    assert paraphrase.calls > 700  # one call per description

    table = plan_table(workloads, REGISTRY, 16, settings).set_index(["model", "step"])
    qwen = table.loc["qwen3-8b", "generation"]
    # 4 cells on 2 datasets: one job, one server start, per dataset
    assert qwen["cells"] == 4 and qwen["jobs"] == 2
    assert qwen["requests"] == 2 * (700 + sample_papers)
    generating = qwen["output_tokens"] / 1000 / 3600
    expected = 2 * 5 / 60 + generating  # GPUs x (starts + generation)
    assert qwen["gpu_hours"] == pytest.approx(expected, abs=0.01)
    assert qwen["gpu_hours_unperturbed"] == pytest.approx(2 * 5 / 60 + generating / 2, abs=0.01)
    assert qwen["gpu_hours_saved"] == pytest.approx(2 * 5 / 60, abs=0.01)
    gpt = table.loc["gpt-4o", "generation"]
    cost = (gpt["input_tokens"] * 2.5 + gpt["output_tokens"] * 10.0) / 1e6
    assert gpt["gpu_hours"] == 0 and gpt["api_cost_usd"] == pytest.approx(cost, abs=0.01)
    total = table.loc["all", ""]
    assert total["requests"] == table["requests"].iloc[:-1].sum()
    assert output_tokens_per_call(REGISTRY.model("qwen3-8b"), 320, settings) == 320


@pytest.mark.workflow
def test_plan_target_needs_no_model_and_no_key(tmp_path):
    """The plan of the embedded grid with gpt-4o, on a judges release without the
    purpose-mechanism files (the workflow rewrites the standard ones, which the plan prices)."""
    results = tmp_path / "results"
    judges = {
        "datasets": {"tiny": tiny_judges_release(tmp_path, pairs=2, ideas=2)},
        "idea_formats": {"purpose_mechanism": ["reference"]},
    }
    overlay = write_yaml(
        tmp_path / "plan.yaml",
        {
            "results": str(results),
            "novbench": {"models": ["smollm2-135m", "gpt-4o"]},
            "judges": judges,
        },
    )
    arguments = ["--cores", "1", "plan", "--configfile", "config/config.yaml", str(overlay)]
    result = run_snakemake(*arguments, env=snakemake_env(OPENAI_API_KEY=""))
    assert "rule infer" not in result.stdout + result.stderr
    table = pd.read_csv(results / "plan" / "compute_plan.csv")
    assert set(table["model"]) == {"smollm2-135m", "gpt-4o", "human", "all"}  # human: scoring
    assert table.iloc[-1]["api_cost_usd"] > 0
    markdown = (results / "plan" / "compute_plan.md").read_text()
    assert "| gpt-4o" in markdown and "characters per token" in markdown
    judged = table[(table["track"] == "judges") & (table["model"] != "all")]
    assert set(judged["step"]) >= {"reference", "purpose_mechanism"}


@pytest.mark.workflow
def test_paper_grid_dry_run_and_plan_need_no_cluster_file_or_key(paper_grid):
    planned = paper_grid.dry_run
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", planned, re.MULTILINE))
    # EMNLP: 9 cells, COLING (no RAG): 6; emnlp2023-release100 (Table 5): GPT-4o's 9
    assert jobs["novbench_requests"] == str(20 * (9 + 6) + 3 * 3)
    # the three datasets (emnlp2023-release100 reads Final_data.json too), the released change, del
    assert jobs["novbench_download"] == "5" and "Group job scores" in planned
    # One batch (one responses table) per model and dataset, plus the paraphrases of EMNLP and
    # COLING; the five runnable judge backbones (claude-sonnet-4-5 is retired) and the agentic
    # judge's gpt-5.6-sol on the judges' one dataset; the literature search's two LLM steps
    # (claude-opus-4-6) for the 12 retrieval files. A batch is one inference job (one server
    # start) per chunk: more than one where it would outlast the site's partitions.
    chunks = re.findall(
        r"wildcards: track=(\w+), dataset=(\S+), model=(\S+), batch=(\w+), chunk=(\d+)-of-(\d+)",
        planned,
    )
    assert len(chunks) == int(jobs["infer"]) + int(jobs["infer_api"]) == len(set(chunks))
    batches = {tuple(batch): int(count) for *batch, _, count in chunks}
    assert len(batches) == int(jobs["responses"]) == 20 * 2 + 1 + 2 + 6 + 2
    assert {(model, batch) for _, _, model, batch in batches if "search" in batch} == {
        ("claude-opus-4-6", "search_contributions"),
        ("claude-opus-4-6", "search_queries"),
    }
    assert jobs["judges_related"] == jobs["judges_search_query_requests"] == "12"
    assert sum(batch[-1] == "paraphrase" for batch in batches) == 2
    assert sum(batches.values()) == len(chunks) > len(batches)
    # Hosted-API models' calls are jobs of rule infer_api, a local rule (on the submitting host:
    # tests/planning/test_slurm.py), the served models' are jobs of infer (SLURM jobs).
    inference = [
        (rule, REGISTRY.model(wildcards["model"]).engine)
        for rule, wildcards in planned_jobs(planned)
        if rule.startswith("infer")
    ]
    assert {rule for rule, engine in inference if engine == "api"} == {"infer_api"}
    assert {rule for rule, engine in inference if engine != "api"} == {"infer"}
    # one download per open model and per hub scorer, each pinned (preflight fails otherwise)
    downloads = set(re.findall(r"output: \S+/weights/([^/\s]+)\.json", planned))
    open_models = {name for name in NOVBENCH_MODELS if REGISTRY.model(name).engine == "vllm"}
    assert downloads == open_models | {"spiced", "distilgpt2", "specter2-base"}
    table = pd.read_csv(paper_grid.plan / "compute_plan.csv")
    models = table[
        (table["track"] == "novbench") & (table["gpus_per_job"] > 0) & (table["model"] != "all")
    ]
    hosted = {"gpt-4o", "gpt-3.5-turbo", "gpt-5", "gemini-2.5-flash"}
    assert set(models["model"]) == set(NOVBENCH_MODELS) - hosted
    assert (models["gpu_hours"] > 0).all() and table.iloc[-1]["api_cost_usd"] > 0
    search = table[table["step"].isin(["search_contributions", "search_queries"])]
    assert set(search["model"]) == {"claude-opus-4-6"} and (search["api_cost_usd"] > 0).all()
    assert "Semantic Scholar searches" in (paper_grid.plan / "compute_plan.md").read_text()
    # the Idea Novelty Checker: 2 backbones x 2 human setups, on the submitting host; its calls
    # and its reranker's priced, its searches counted
    assert jobs["judges_novelty_checker"] == "4"
    checker = table[table["step"].isin(["novelty_checker", "novelty_checker rerank"])]
    assert set(checker["model"]) == {"claude-opus-4-6", "gpt-5.4", "gpt-5.4-mini"}
    assert (checker["api_cost_usd"] > 0).all()
    assert "Idea Novelty Checker: about" in (paper_grid.plan / "compute_plan.md").read_text()


@pytest.mark.workflow
def test_paper_grid_has_no_job_over_the_partitions_limit(paper_grid):
    """The paper grid's dry run against a site whose partitions allow 600 minutes: every job
    that asks for a time limit asks for at most that; inference is split into chunks, the 70B
    models' into the most."""
    runtimes = [
        (rule, wildcards, int(minutes))
        for rule, wildcards, minutes in planned_resource(paper_grid.dry_run, "runtime")
    ]
    infer = [(w["model"], m) for rule, w, m in runtimes if rule in ("infer", "infer_api")]
    assert len(infer) > 100 and max(minutes for *_, minutes in runtimes) <= PAPER_GRID_MINUTES
    chunks = Counter(model for model, _ in infer)
    assert chunks["deepseek-r1-distill-llama-70b"] > chunks["qwen3-8b"] > 1


def dry_run_jobs(dry_run: str) -> Counter:
    """Jobs a dry run lists, per (rule, model wildcard), grouped jobs' rules included."""
    jobs = Counter()
    for block in re.split(r"\n(?=\s*(?:local)?rule \w+:)", dry_run):
        if rule := re.match(r"\s*(?:local)?rule (\w+):", block):
            model = re.search(r"\n\s+wildcards: .*\bmodel=([^,\n]+)", block)
            jobs[rule.group(1), model.group(1) if model else ""] += 1
    return jobs


def plan_jobs(plan_folder: Path) -> Counter:
    """The compute plan's jobs per (rule, model) of the tracks the default target runs."""
    table = pd.read_csv(plan_folder / "compute_plan.csv")
    rows = table[table["track"].isin(["novbench", "judges"]) & (table["model"] != "all")]
    return Counter(
        {
            key: count
            for key, count in rows.groupby(["rule", "model"])["jobs"].sum().items()
            if count
        }
    )


@pytest.mark.workflow
@pytest.mark.parametrize("grid", ["paper_grid", "shipped_site_grid"])
def test_plan_counts_the_jobs_of_the_dry_run_per_rule_and_model(grid, request):
    """The plan's jobs are the DAG's: per rule and model, for the 600-minute site (the 70B
    model's batches split into many chunks) and for the shipped one (fewer)."""
    planned = request.getfixturevalue(grid)
    jobs = plan_jobs(planned.plan)
    dry = dry_run_jobs(planned.dry_run)
    assert jobs == Counter(
        {key: count for key, count in dry.items() if key[0] in {r for r, _ in jobs}}
    )
    assert {rule for rule, _ in jobs} >= {
        "infer",
        "infer_api",
        "novbench_score",
        "judges_novelty_checker",
    }
    table = pd.read_csv(planned.plan / "compute_plan.csv")
    seventy = table[(table["model"] == "deepseek-r1-distill-llama-70b") & (table["jobs"] > 0)]
    site = yaml.safe_load((REPO / "profiles" / "slurm" / "site.yaml").read_text())
    minutes = (
        PAPER_GRID_MINUTES
        if grid == "paper_grid"
        else site["partitions"]["gpu-a100"]["max_runtime"]
    )
    # each job within the site's share of its partition (the DAG's chunking), not the batch's hours
    assert 0 < seventy["job_hours_max"].max() * 60 <= site["job_share"] * minutes


def planned_resource(dry_run: str, name: str) -> list[tuple[str, dict[str, str], str]]:
    """(rule, wildcards, value of resource ``name``) of each job a dry run lists with it."""
    found = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", dry_run):
        rule = re.match(r"(?:local)?rule (\w+):", block)
        value = re.search(rf"\n\s+resources: .*\b{name}=([^,\n]+)", block)
        if rule and value:
            pairs = re.search(r"\n\s+wildcards: (.*)", block)
            wildcards = dict(p.split("=", 1) for p in pairs.group(1).split(", ")) if pairs else {}
            found.append((rule.group(1), wildcards, value.group(1)))
    return found


def test_release_download_checks_its_digest(tmp_path):
    digest = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    entry = {"url": SAMPLE.as_uri(), "sha256": digest, "papers": 7, "retrieval": True}
    release = release_files({"sample": entry, "gone": None}, tmp_path / "downloads")
    assert set(release) == {"sample"}
    release = release["sample"]
    assert not release.available and release.paper_count() == 7 and release.has_retrieval()
    download(release)
    assert Path(release.path).read_bytes() == SAMPLE.read_bytes()
    assert release.paper_count() == len(json.loads(SAMPLE.read_text()))
    wrong = replace(release, path=str(tmp_path / "wrong.json"), sha256="0" * 64)
    with pytest.raises(ValueError, match="has SHA-256"):
        download(wrong)
    assert not Path(wrong.path).exists()
    with pytest.raises(FileNotFoundError, match="novbench dataset 'x': no file at"):
        release_files({"x": str(tmp_path / "missing.json")}, tmp_path)
    # A file the workflow builds (the built NovBench) declares its size and retrieval.
    built = {"path": str(tmp_path / "built.json"), "papers": 12, "retrieval": True}
    release = release_files({"built": built}, tmp_path)["built"]
    assert not release.available and release.paper_count() == 12 and release.has_retrieval()


def _judge_cell(model, format, setup, change, papers, calls_each, input_per_call):
    calls = papers * calls_each
    return Workload(track="judges", dataset="d", model=model, batch="cells", step=change,
                    strategy=f"{format}/{setup}", perturbation="none", papers=papers,
                    calls=calls, input_tokens=calls * input_per_call, output_tokens=0,
                    stand_in=False)  # fmt: skip


def _published(*cells):
    return pd.DataFrame(
        [{"metric": "cost_usd", "model": model, "format": format, "setup": setup,
          "change": change, "paper_value": usd} for model, format, setup, change, usd in cells]
    )  # fmt: skip


def test_judge_output_tokens_are_calibrated_on_published_costs_and_held_out_cells_scored():
    workloads = [
        # the plan's cells: 154 pairs x 2 orders x 3 calls of 1,000 input tokens
        _judge_cell("gpt-5.4", "pairwise", "human-only", "reference", 154, 6, 1000),
        _judge_cell("gpt-5.4", "pairwise", "human-plus-generated", "low_reasoning", 154, 6, 1000),
        _judge_cell("gpt-5.4", "pairwise", "human-only", "low_reasoning", 154, 6, 1000),
        _judge_cell("gpt-5.4", "pairwise", "human-only", "P4", 154, 2, 800),
        _judge_cell("gpt-5.2", "pairwise", "human-only", "reference", 154, 6, 1000),
        _judge_cell("qwen3-8b", "pairwise", "human-only", "reference", 154, 6, 1000),
    ]
    published = _published(
        # the authors' run: 161 pairs x 6 calls = 966 calls at batch prices (half)
        ("gpt-5.4", "pairwise", "human-only", "reference", 966 * 0.5 * (2500 + 500 * 15) / 1e6),
        ("gpt-5.4", "pairwise", "human-only", "low_reasoning", 966 * 0.5 * (2500 + 200 * 15) / 1e6),
        # held out: 150 output tokens per call
        ("gpt-5.4", "pairwise", "human-plus-generated", "low_reasoning",
         966 * 0.5 * (2500 + 150 * 15) / 1e6),
        ("gpt-5.4", "pairwise", "human-only", "retrieval", 99.0),  # holds its collection: not used
    )  # fmt: skip
    calibration = calibrate(workloads, published, REGISTRY, "batch")
    assert set(calibration.values) == {
        ("gpt-5.4", "pairwise", "reference"),
        ("gpt-5.4", "pairwise", "low_reasoning"),
    }
    assert calibration.values["gpt-5.4", "pairwise", "reference"].per_call == pytest.approx(500)
    held = calibration.held_out.iloc[0]
    assert (held["setup"], held["change"]) == ("human-plus-generated", "low_reasoning")
    # predicted with the calibrated 200 tokens: 966 x 0.5 x (2,500 + 3,000) / 1e6
    assert held["plan_usd"] == pytest.approx(966 * 0.5 * 5500 / 1e6)
    assert held["error"] == pytest.approx(5500 / 4750 - 1)
    assert calibrate(workloads, published, REGISTRY, "live").values[
        "gpt-5.4", "pairwise", "reference"
    ].per_call == pytest.approx((0.5 * (2500 + 500 * 15) - 2500) / 15)
    calibrated, table = calibrated_judges(workloads, calibration, REGISTRY, 16000, PlanSettings())
    per_call = table.set_index(["model", "change"])
    assert per_call.loc[("gpt-5.4", "P4"), "output_tokens_per_call"] == 1700  # no P3 published
    assert per_call.loc[("gpt-5.4", "P4"), "derived_from"] == "assumed: no published cost"
    assert per_call.loc[("gpt-5.2", "reference"), "output_tokens_per_call"] == 500
    assert per_call.loc[("gpt-5.2", "reference"), "derived_from"] == (
        "as gpt-5.4 (same responses API)"
    )
    assert per_call.loc[("qwen3-8b", "reference"), "output_tokens_per_call"] == 1700  # reasons
    assert calibrated[0].output_tokens == 154 * 6 * 500
    _, capped = calibrated_judges(workloads, calibration, REGISTRY, 300, PlanSettings())
    assert capped["output_tokens_per_call"].max() == 300
    nothing = calibrate(workloads[-1:], published, REGISTRY)  # no published cell planned
    assert nothing.values == {} and nothing.held_out.empty
    plan = plan_table(calibrated, REGISTRY, 16, PlanSettings())
    assert (plan["api_cost_batch_usd"] - plan["api_cost_usd"] / 2).abs().max() <= 0.005


def test_the_literature_search_is_planned_once_per_idea_of_the_retrieval_files():
    def cell(model, strategy, papers):
        return Workload("judges", "d", model, "cells", "retrieval", strategy, "none", papers,
                        papers, 0, 0, False)  # fmt: skip

    judged = [
        cell("gpt-5.4", "pairwise/human-only", 10),  # 20 ideas
        cell("gpt-5.1", "pairwise/human-only", 10),  # the same ideas, another judge
        cell("gpt-5.4", "pointwise/human-only", 7),
    ]
    retrieval = {"model": "claude-opus-4-6", "max_tokens": None, "n_queries": 5,
                 "max_contributions": 3}  # fmt: skip
    workloads, ideas = search_workloads(
        judged, retrieval, 512, REGISTRY, AssistedSearchPrompts(), PlanSettings()
    )
    assert ideas == 27
    assert sorted((w.step, w.strategy, w.calls) for w in workloads) == [
        ("search_contributions", "pairwise/human-only", 20),
        ("search_contributions", "pointwise/human-only", 7),
        ("search_queries", "pairwise/human-only", 20),
        ("search_queries", "pointwise/human-only", 7),
    ]
    assert all(w.model == "claude-opus-4-6" and w.input_tokens > 0 for w in workloads)


def test_the_novelty_checker_is_priced_per_idea_with_its_reranker_apart():
    """The paper's checker on 100 ideas: 3 calls each on gpt-5.4 (5,000 prompt tokens in all),
    9 RankGPT windows each on gpt-5.4-mini (7,400 prompt tokens a window), outputs at the plan's
    assumption; the published cost (the whole system's) calibrates neither."""
    cell = {"dataset": "d", "model": "gpt-5.4", "format": "pointwise", "setup": "s"}
    cell["change"] = "novelty_checker"
    settings = PlanSettings()
    checker, reranker = checker_workloads(cell, 100, paper_config()["judges"], REGISTRY, settings)
    assert (checker.model, checker.calls, checker.input_tokens) == ("gpt-5.4", 300, 500_000)
    assert (reranker.model, reranker.step, reranker.calls) == (
        "gpt-5.4-mini",
        "novelty_checker rerank",
        900,
    )
    assert reranker.input_tokens == 900 * 7400
    per_call = output_tokens_per_call(REGISTRY.model("gpt-5.4"), 8192, settings, "judges")
    assert checker.output_tokens == 300 * per_call
    calibration = calibrate([checker], published("judges"), REGISTRY, settings.published_pricing)
    assert calibrated_judges([checker], calibration, REGISTRY, 8192, settings)[0] == [checker]
