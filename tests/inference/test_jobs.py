"""Inference jobs sized to the site: chunks, time limits by attempt, GPU types and constraints,
and preflight's check of every planned job against the partitions SLURM reports."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml
from conftest import REPO, config_schema, loopback_registry, write_yaml
from snakemake.utils import update_config, validate

from noveval.cluster.preflight.grid import site_gpu_type
from noveval.cluster.preflight.nodes import driver_partition
from noveval.cluster.preflight.slurm import job_limits_check, partition_limits, slurm_minutes
from noveval.cluster.resources import InferenceJobs, PlannedJob
from noveval.core.logs import log_to
from noveval.core.registry import load_registry
from noveval.core.site import Site
from noveval.inference.batches import gather_responses, read_responses
from noveval.inference.chunks import (
    attempt_runtime,
    chunk_count,
    chunk_ids,
    chunk_names,
    parse_chunk,
    time_limit_minutes,
)
from noveval.inference.job import run_inference
from noveval.inference.requests import build_request
from noveval.novbench.grid import novbench_grid

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SEVENTY_B = "deepseek-r1-distill-llama-70b"  # 2 x a100, 100 tokens/s, reasons: 1,700 per call


def test_chunk_count_keeps_each_chunk_within_its_share_of_the_limit():
    # 113.3 min of generation, a 5-min start, half of 120 min: 55 min of generation per chunk
    assert chunk_count(6800 / 60, 5, 120, 0.5) == 3
    assert chunk_count(55, 5, 120, 0.5) == 1 and chunk_count(55.1, 5, 120, 0.5) == 2
    assert chunk_count(1e6, 5, math.inf, 0.5) == 1  # no limit: one job
    assert chunk_count(100, 5, 8, 0.5) == 1  # not even a start fits: preflight names the job
    assert chunk_names(3) == ["1-of-3", "2-of-3", "3-of-3"]
    assert parse_chunk("2-of-3") == (2, 3)
    for bad in ("0-of-2", "3-of-2", "cells"):
        with pytest.raises(ValueError, match=f"chunk '{bad}'"):
            parse_chunk(bad)


def test_chunks_split_the_unique_request_ids_in_order_and_cover_them_once():
    ids = [f"r{n}" for n in range(7)]
    parts = [chunk_ids(ids, name) for name in chunk_names(3)]
    assert parts == [["r0", "r1", "r2"], ["r3", "r4"], ["r5", "r6"]]
    assert chunk_ids(ids, "1-of-1") == ids
    assert chunk_ids(ids[:1], "2-of-2") == []  # more chunks than calls: an empty chunk


def test_a_jobs_time_limit_is_its_estimate_with_the_safety_factor_and_30_minutes_at_least():
    assert time_limit_minutes(0.1, 1.5) == 30  # 1.5 x 6 + 10 = 19 minutes: the floor
    assert time_limit_minutes(2.0, 1.5) == 190  # 1.5 x 120 + 10
    assert time_limit_minutes(1.01, 1.0) == 71  # 60.6 + 10, rounded up


def test_time_limit_grows_with_the_attempt_up_to_the_partition():
    assert [attempt_runtime(75, attempt, 120) for attempt in (1, 2, 3)] == [75, 120, 120]
    assert [attempt_runtime(40, attempt, 600) for attempt in (1, 2, 3)] == [40, 80, 120]
    assert attempt_runtime(75, 2, math.inf) == 150
    assert attempt_runtime(700, 2, 600) == 700  # a retry never asks for less than the first try


def site_file(tmp_path, **settings):
    partitions = {
        "cpu": {"max_gpu": 0, "max_runtime": 600},
        "gpu": {"max_gpu": 4, "available_gpu_models": ["a100-sxm4"], "max_runtime": 120},
    }
    return write_yaml(tmp_path / "site.yaml", {"partitions": partitions, **settings})


def hand_made_jobs(tmp_path, **site) -> InferenceJobs:
    """The 70B model on a declared 200-paper dataset, two cells (zero and few, unperturbed)."""
    config = yaml_config()
    config["novbench"].update(
        datasets={
            "hand": {"url": "https://example.org/hand.json", "papers": 200, "retrieval": False}
        },
        models=[SEVENTY_B],
        strategies=["zero", "few"],
        perturbations=["none"],
    )
    config["judges"]["datasets"] = {}
    grid = novbench_grid(config, REGISTRY)
    return InferenceJobs(
        {"novbench": grid}, REGISTRY, config, Site.load(site_file(tmp_path, **site))
    )


def yaml_config() -> dict:
    """config/config.yaml with config/paper.yaml merged in, as Snakemake merges them."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    validate(config, config_schema())  # its defaults
    return config


def test_a_batch_is_split_into_chunks_that_fit_the_site_and_retries_grow(tmp_path):
    jobs = hand_made_jobs(
        tmp_path, gpu_types={"a100": "a100-sxm4"}, constraints={"a100-80gb": "gpu80g"}
    )
    # 400 calls x 1,700 tokens at 100 tokens/s = 113.3 min; half of 120 min less a 5-min start
    # leaves 55 min per chunk: 3 chunks of 134 calls
    assert jobs.batch_calls("novbench", "hand", SEVENTY_B, "cells") == 400
    assert jobs.chunks("novbench", "hand", SEVENTY_B, "cells") == ["1-of-3", "2-of-3", "3-of-3"]
    wildcards = SimpleNamespace(
        track="novbench", dataset="hand", model=SEVENTY_B, batch="cells", chunk="2-of-3"
    )
    resources = jobs.resources()
    first = math.ceil(1.5 * (5 + 134 * 1700 / 100 / 60) + 10)  # 75 min
    assert first == 75 and resources["runtime"](wildcards, 1) == first
    assert [resources["runtime"](wildcards, attempt) for attempt in (2, 3)] == [120, 120]
    assert resources["gpu"](wildcards) == 2 and resources["gpu_model"](wildcards) == "a100-sxm4"
    assert resources["constraint"](wildcards) == "gpu80g"  # registry a100-80gb, as the site says
    assert resources["slurm_extra"](wildcards) is None
    assert jobs.chunk_paths("results", wildcards) == [
        f"results/novbench/hand/{SEVENTY_B}/responses/cells/{k}-of-3.parquet" for k in (1, 2, 3)
    ]
    planned = jobs.planned()
    assert [job.name for job in planned] == [
        f"novbench/hand/{SEVENTY_B}/cells/{k}-of-3" for k in (1, 2, 3)
    ]
    assert {(job.gpus, job.gpu_type, job.runtime, job.mem_mb) for job in planned} == {
        (2, "a100-sxm4", 75, 128_000)
    }


def test_a_job_no_partition_takes_stays_whole_and_unmapped_names_pass_through(tmp_path):
    jobs = hand_made_jobs(tmp_path, job_share=1.0)
    # the site's partitions take no GPU type "a100": no partition fits, so no split (preflight)
    assert jobs.chunks("novbench", "hand", SEVENTY_B, "cells") == ["1-of-1"]
    wildcards = SimpleNamespace(track="novbench", dataset="hand", model=SEVENTY_B, batch="cells")
    assert jobs.resources()["constraint"](wildcards) == "a100-80gb"
    assert Site.load(tmp_path / "none.yaml").max_runtime(2, "a100") == math.inf
    assert REGISTRY.model("qwen3-32b").constraint == "a100-80gb"
    assert REGISTRY.model("qwen3-14b").constraint is None
    with pytest.raises(ValueError, match="job_share: 1.5 is greater than the maximum of 1"):
        Site.load(site_file(tmp_path, job_share=1.5))


def test_a_misspelled_site_key_names_itself(tmp_path):
    """The site file is checked against its schema: a key neither the profile, the plugin nor
    the workflow reads is an error, not a setting silently ignored."""
    wrong = write_yaml(tmp_path / "site.yaml", {"acount": "lab", "partitions": {}})
    with pytest.raises(ValueError, match=r"site.yaml: top level: .*\('acount' was unexpected\)"):
        Site.load(wrong)
    partition = {"gpu": {"max_gpus": 2, "max_runtime": 600}}
    wrong = write_yaml(tmp_path / "site.yaml", {"partitions": partition})
    with pytest.raises(ValueError, match=r"partitions/gpu: .*\('max_gpus' was unexpected\)"):
        Site.load(wrong)
    for shipped in (
        REPO / "profiles" / "slurm" / "site.yaml",
        REPO / "tests" / "slurm" / "ci-site.yaml",
    ):
        assert Site.load(shipped).partitions


def test_chunks_answer_their_share_and_a_rerun_sends_nothing(tmp_path, loopback, monkeypatch):
    """Two chunks of one batch on the loopback provider: each sends its half, the gathered table
    holds every cell's rows, and a rerun of a chunk answers from the journal."""
    monkeypatch.setenv("NOVEVAL_TEST_KEY", "sk-loopback")
    registry = loopback_registry(tmp_path / "models.yaml", loopback, "gpt-4o")
    spec = load_registry(registry).model("gpt-4o")
    folder = tmp_path / "results" / "novbench" / "d" / "gpt-4o"
    decoding = {"max_tokens": 16, "temperature": 0.0, "seed": 0}
    requests = []
    for cell, papers in (("zero-none", range(3)), ("few-none", range(2))):
        path = folder / cell / "requests.parquet"
        path.parent.mkdir(parents=True)
        rows = [
            build_request(f"p{n}", spec, [{"role": "user", "content": f"{cell} {n}"}], decoding)
            for n in papers
        ]
        pd.DataFrame(rows).to_parquet(path, index=False)
        requests.append(str(path))
    settings = {"concurrency": 2, "request_timeout_s": 10, "retry_for": 0}
    settings |= {"server_start_timeout_s": 10, "failure_budget": 0}

    def chunk(name: str) -> str:
        path = folder / "responses" / "cells" / f"{name}.parquet"
        run_inference(
            requests, str(path), "gpt-4o", str(registry), str(tmp_path / "cache"), settings,
            str(tmp_path / name / "infer.log"), str(tmp_path / name / "failures.json"),
            job=name, chunk=name,
        )  # fmt: skip
        return str(path)

    sent = len(loopback.bodies)
    paths = [chunk("1-of-2"), chunk("2-of-2")]
    assert len(loopback.bodies) - sent == 5
    parts = [pd.read_parquet(path) for path in paths]
    assert [len(part) for part in parts] == [3, 2]
    assert not set(parts[0]["request_id"]) & set(parts[1]["request_id"])
    gathered = folder / "responses" / "cells.parquet"
    with log_to(tmp_path / "responses.log"):
        gather_responses(paths, gathered)
    table = pd.read_parquet(gathered)
    assert table["cell"].value_counts().to_dict() == {"zero-none": 3, "few-none": 2}
    assert "1-of-2: 3, 2-of-2: 2" in (tmp_path / "responses.log").read_text()
    sent = len(loopback.bodies)
    chunk("2-of-2")  # resumed or rerun: its calls come from the journal
    assert len(loopback.bodies) == sent


def test_a_cell_without_requests_reads_no_responses_and_a_missing_cell_is_an_error(tmp_path):
    """A search step whose ideas got no queries (garbled contributions) sends nothing: its
    cell is absent from the batch's responses, an empty answer set; a cell that had requests
    and is absent is an error."""
    batch = tmp_path / "responses.parquet"
    pd.DataFrame({"request_id": ["r1"], "text": ["x"], "cell": ["a"]}).to_parquet(batch)
    none, some = tmp_path / "none.parquet", tmp_path / "some.parquet"
    pd.DataFrame({"request_id": pd.Series([], dtype=str)}).to_parquet(none)
    pd.DataFrame({"request_id": ["r2"]}).to_parquet(some)
    assert list(read_responses(batch, "a")["text"]) == ["x"]
    empty = read_responses(batch, "b", none)
    assert empty.empty and list(empty.columns) == ["request_id", "text"]
    with pytest.raises(ValueError, match="no responses of cell 'b'"):
        read_responses(batch, "b", some)
    with pytest.raises(ValueError, match="no responses of cell 'b'"):
        read_responses(batch, "b")


def test_sinfo_time_limits_gres_and_memory_are_read():
    assert [slurm_minutes(t) for t in ("1:00:00", "30:00", "2-00:00:00", "45", "infinite")] == [
        60, 30, 2880, 45, math.inf
    ]  # fmt: skip
    found = partition_limits(
        "cpu 1:00:00 (null) 20000\ngpu 10:00:00 gpu:a100:2(S:0) 20000\n"
        "gpu 10:00:00 gpu:a100:4,gpu:h100:1 512000+\n"
    )
    assert found["cpu"].max_minutes == 60 and found["cpu"].gpus == {}
    assert found["gpu"].gpus == {"a100": 4, "h100": 1} and found["gpu"].mem_mb == 512_000


def test_preflight_names_the_planned_jobs_that_fit_no_partition():
    partitions = partition_limits("cpu 1:00:00 (null) 20000\ngpu 1:00:00 gpu:a100:2 20000\n")
    site = {"partitions": {"cpu": {}, "gpu": {}}}
    fitting = [
        PlannedJob("novbench/d/small/cells/1-of-1", 1, "a100", 40, 3000),
        PlannedJob("judges/d/gpt-4o/cells/1-of-1", 0, "", 60, 4000),
    ]
    ok = job_limits_check(fitting, partitions, site)
    assert ok.ok and ok.detail == "all 2 inference jobs fit a partition (longest 60 min)"
    misfits = [
        PlannedJob("novbench/d/big/cells/1-of-2", 2, "a100", 61, 3000),  # too long
        PlannedJob("novbench/d/wide/cells/1-of-1", 4, "a100", 30, 3000),  # too many GPUs
        PlannedJob("novbench/d/other/cells/1-of-1", 1, "h100", 30, 3000),  # no such GPU type
        PlannedJob("judges/d/fat/cells/1-of-1", 0, "", 30, 30_000),  # too much memory
    ]
    failed = job_limits_check(fitting + misfits, partitions, site)
    assert not failed.ok
    assert failed.detail.startswith(
        "4 of 6 inference jobs fit no partition (cpu 60 min, gpu 60 min)"
    )
    assert "novbench/d/big/cells/1-of-2 (61 min, 2 x a100, 3000 MB)" in failed.detail
    assert "judges/d/fat/cells/1-of-1 (30 min, 30000 MB)" in failed.detail
    assert "small" not in failed.detail and "gpt-4o" not in failed.detail


def test_preflight_reads_gpu_types_as_the_site_names_them():
    site = {
        "gpu_types": {"a100": "a100-sxm4"},
        "partitions": {"gpu": {"max_gpu": 4, "available_gpu_models": ["a100-sxm4"]}},
    }
    spec = REGISTRY.model(SEVENTY_B)
    assert site_gpu_type(site, spec) == "a100-sxm4"
    assert driver_partition(site, site_gpu_type(site, spec)) == "gpu"
    assert site_gpu_type({}, spec) == "a100"
    assert driver_partition({**site, "gpu_types": {}}, site_gpu_type({}, spec)) is None


def test_where_a_model_runs_changes_no_fingerprint():
    spec = REGISTRY.model("qwen3-32b")
    moved = replace(spec, constraint="gpu80g", slurm_extra="--exclusive")
    assert moved.fingerprint() == replace(spec, constraint=None).fingerprint()
    assert replace(spec, context_length=4096).fingerprint() != spec.fingerprint()
