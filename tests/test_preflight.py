"""Pre-flight checks (noveval.preflight) on hand-made SLURM answers, folders and environments.

tests/test_slurm.py runs `snakemake preflight` against the CI's real SLURM cluster.
"""

from __future__ import annotations

from pathlib import Path

from conftest import REPO

from noveval.preflight import (
    MIN_DRIVER,
    Check,
    api_key_checks,
    driver_check,
    gated_check,
    hub_token,
    partition_checks,
    site_file_check,
    slurm_partitions,
    weights_cache_check,
)
from noveval.registry import load_registry

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SITE = {
    "partitions": {
        "cpu": {"max_gpu": 0},
        "gpu-a100": {"max_gpu": 4, "available_gpu_models": ["a100"]},
        "gpu-h100": {"max_gpu": 4, "available_gpu_models": ["h100"]},
    }
}


def test_check_lines():
    assert Check("site file", True, "x.yaml").line() == "OK    site file: x.yaml"
    assert Check("key K", False, "not set").line() == "FAIL  key K: not set"
    assert Check("NVIDIA driver", None, "no GPU").line() == "SKIP  NVIDIA driver: no GPU"


def test_site_file_check(tmp_path):
    good = tmp_path / "site.yaml"
    good.write_text("partitions:\n  cpu: {max_gpu: 0}\n  gpu: {max_gpu: 2}\n")
    check, site = site_file_check(good)
    assert check == Check("site file", True, f"{good} (2 partitions)")
    assert set(site["partitions"]) == {"cpu", "gpu"}
    assert site_file_check(tmp_path / "none.yaml")[0].ok is False
    (tmp_path / "empty.yaml").write_text("account: null\n")
    check, _ = site_file_check(tmp_path / "empty.yaml")
    assert check.detail == f"{tmp_path / 'empty.yaml'}: no `partitions` table"


def test_sinfo_answer_gives_partitions_and_gpu_types():
    answer = (
        "cpu (null)\ngpu-a100 gpu:a100:4(S:0-1)\ngpu-a100 gpu:a100:2\nmixed gpu:h100:4,gpu:l4:2\n"
    )
    assert slurm_partitions(answer) == {
        "cpu": set(),
        "gpu-a100": {"a100"},
        "mixed": {"h100", "l4"},
    }


def test_partitions_and_gpu_types_against_slurm():
    known = {"cpu": set(), "gpu-a100": {"a100"}, "gpu-h100": {"h100"}}
    names, types = partition_checks(SITE, known, {"a100", "h100"})
    assert names == Check("partitions", True, "cpu, gpu-a100, gpu-h100 known to SLURM")
    assert types == Check("GPU types", True, "grid needs a100, h100; SLURM offers them")

    # A partition SLURM does not have; one whose nodes carry another GPU; a GPU type no
    # partition of the site file offers.
    known = {"cpu": set(), "gpu-a100": {"v100"}}
    names, types = partition_checks(SITE, known, {"a100", "l40s"})
    assert names.ok is False
    assert names.detail == "not known to SLURM: gpu-h100 (it has: cpu, gpu-a100)"
    assert types.ok is False
    assert types.detail == (
        "gpu-a100 offers v100 in SLURM, not a100; no partition of the site file offers l40s "
        "(asked for by the grid's models)"
    )


def test_weights_cache_writable_with_room(tmp_path):
    cache = tmp_path / "hub" / "not-created-yet"
    ok = weights_cache_check(cache, missing_gb=0.5)
    assert ok.ok is True and ok.detail.startswith(f"{cache}: ")
    assert ok.detail.endswith("GB free, 0.5 GB of weights to download")
    assert not list(tmp_path.glob(".preflight-*"))  # the probe file is gone
    too_big = weights_cache_check(cache, missing_gb=1e9)  # an exabyte
    assert too_big.ok is False and "1,000,000,000.0 GB of weights to download" in too_big.detail
    # /proc takes no new file, not even from root.
    unwritable = weights_cache_check(Path("/proc/weights"), missing_gb=0)
    assert unwritable == Check(
        "weights cache", False, "/proc/weights: not writable (No such file or directory)"
    )


def test_gated_model_without_token(tmp_path):
    check = gated_check("cyclereviewer-8b", "WestlakeNLP/CycleReviewer-ML-Llama-3.1-8B", None)
    assert check == Check(
        "access cyclereviewer-8b",
        False,
        "WestlakeNLP/CycleReviewer-ML-Llama-3.1-8B is gated: no Hugging Face token "
        "(HF_TOKEN or `hf auth login`)",
    )
    assert hub_token({"HF_HOME": str(tmp_path)}) is None
    (tmp_path / "token").write_text("hf_from_login\n")
    assert hub_token({"HF_HOME": str(tmp_path)}) == "hf_from_login"
    assert hub_token({"HF_HOME": str(tmp_path), "HF_TOKEN": "hf_env"}) == "hf_env"


def test_registry_flags_the_gated_reviewers():
    gated = sorted(name for name, spec in REGISTRY.models.items() if spec.gated)
    assert gated == [
        "cyclereviewer-70b",
        "cyclereviewer-8b",
        "deepreviewer-14b",
        "deepreviewer-7b",
        "llama-openreviewer-8b",
    ]


def test_one_line_per_api_key_of_the_grid():
    models = ["gpt-4o", "gpt-5", "gemini-2.5-flash", "qwen3-8b", "smollm2-135m"]
    lines = api_key_checks(REGISTRY, models, {"OPENAI_API_KEY": "sk-test"})
    assert [line.line() for line in lines] == [
        "FAIL  key GEMINI_API_KEY: not set, for gemini-2.5-flash",
        "OK    key OPENAI_API_KEY: set, for gpt-4o, gpt-5",
    ]


def test_driver_version_against_vllm_cuda():
    assert MIN_DRIVER == "580.65.06"
    newer = driver_check("580.95.05\n580.65.06\n", "this host")
    assert newer == Check(
        "NVIDIA driver", True, "580.65.06 on this host (vLLM's CUDA 13.0 needs >= 580.65.06)"
    )
    older = driver_check("570.172.08\n", "a node of partition gpu")
    assert older.ok is False and older.detail.startswith("570.172.08 on a node of partition gpu")
    assert driver_check("", "this host").detail == "this host: nvidia-smi reported no GPU"
