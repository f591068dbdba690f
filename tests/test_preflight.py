"""Pre-flight checks (noveval.preflight) on hand-made SLURM answers, folders and environments.

tests/test_slurm.py runs `snakemake preflight` against the CI's real SLURM cluster.
"""

from __future__ import annotations

import csv
import socket
from dataclasses import replace
from pathlib import Path

import yaml
from conftest import REPO
from snakemake.utils import update_config

from noveval.preflight import (
    MIN_DRIVER,
    Check,
    api_key_checks,
    checks,
    driver_check,
    gated_check,
    hub_scorers,
    hub_token,
    partition_checks,
    pinned_check,
    served_check,
    site_file_check,
    slurm_partitions,
    substitution_checks,
    weights_cache_check,
)
from noveval.registry import load_registry
from noveval.weights import SITE_FILE_VARIABLE

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


def test_every_download_of_the_grid_is_pinned_or_named():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    models = config["novbench"]["models"]
    scorers = hub_scorers(config, REGISTRY, models)
    assert [scorer.name for scorer in scorers] == ["spiced", "distilgpt2"]
    assert hub_scorers(config, REGISTRY, ["gpt-5.4"]) == []  # a judges-only grid scores nothing
    downloads = [REGISTRY.model(name) for name in models if REGISTRY.model(name).engine == "vllm"]
    downloads += scorers
    unpinned = [item for item in downloads if not item.revision]
    check = pinned_check(downloads, allow_unpinned=False)
    assert check.ok is (not unpinned)
    for item in downloads:  # each unpinned one named with its repository, no pinned one
        assert (f"{item.name} ({item.reference})" in check.detail) is (item in unpinned)
    pinned = [replace(item, revision="0" * 40) for item in downloads]
    assert pinned_check(pinned, False) == Check(
        "revisions", True, "every open model and hub scorer of the grid is pinned"
    )
    one = [replace(downloads[0], revision=None)]
    assert pinned_check(one, False).line() == (
        f"FAIL  revisions: no revision in config/models.yaml: {one[0].name} "
        f"({one[0].reference}); pin a hub commit for each"
    )
    assert pinned_check(one, True).ok is True  # weights.allow_unpinned: main, recorded


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


def published_cells(model: str) -> list[str]:
    """The cells of the judge study's published numbers for ``model``, read by hand."""
    path = REPO / "src" / "noveval" / "reproduction" / "published" / "judges.csv"
    with path.open(newline="") as handle:
        return [row["cell"] for row in csv.DictReader(handle) if row["model"] == model]


def pointed(name: str, loopback) -> object:
    spec = REGISTRY.model(name)
    return replace(spec, base_url=loopback.base_url(spec.api))


def test_hosted_models_are_looked_up_and_a_retired_one_names_its_published_cells(loopback):
    env = {"ANTHROPIC_API_KEY": "sk-loopback", "OPENAI_API_KEY": "sk-loopback"}
    for name in ("claude-opus-4-6", "gpt-5.4"):
        spec = pointed(name, loopback)
        assert served_check(spec, env) == Check(
            f"model {name}", True, f"{spec.reference} is served"
        )
    assert served_check(pointed("claude-opus-4-5", loopback), env) == Check(
        "model claude-opus-4-5",
        True,
        "claude-opus-4-5-20251101 is served, deprecated: retires on 2027-01-22",
    )
    retired = served_check(pointed("claude-sonnet-4-5", loopback), env)
    cells = published_cells("claude-sonnet-4-5")
    assert retired.ok is False and len(cells) >= 47  # the two-track and tie-rate figures...
    assert retired.detail.startswith(
        "claude-sonnet-4-5-20250929 was retired on 2026-11-30; cannot be reproduced: "
        f"{len(cells)} published numbers ("
    )
    assert all(cell in retired.detail for cell in cells)
    assert retired.detail.endswith(
        ". To run another model in its place, name it in judges.substitutions "
        "({claude-sonnet-4-5: <successor>}): reported as a substitution, not like-for-like"
    )


def test_a_model_the_provider_does_not_know_answers_not_found(loopback):
    env = {"ANTHROPIC_API_KEY": "sk-loopback", "OPENAI_API_KEY": "sk-loopback"}
    for name in ("claude-opus-4-6", "gpt-5.1"):
        spec = pointed(name, loopback)
        loopback.unknown = {spec.reference}
        try:
            check = served_check(spec, env)
        finally:
            loopback.unknown = set()
        assert check.ok is False and check.detail.startswith(
            f"{spec.reference} is not served (Error code: 404 - "
        )
        said = (
            "not_found_error"
            if spec.api == "messages"
            else f"The model '{spec.reference}' does not"
        )
        assert said in check.detail
        assert (
            f"cannot be reproduced: {len(published_cells(name))} published numbers" in check.detail
        )


def test_a_lookup_that_cannot_be_made_names_the_model_and_the_key():
    spec = REGISTRY.model("claude-opus-4-6")
    assert served_check(spec, {}) == Check(
        "model claude-opus-4-6",
        False,
        "claude-opus-4-6: the lookup cannot be made: ANTHROPIC_API_KEY is not set "
        "(registry api_key_env of claude-opus-4-6)",
    )
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    unreachable = replace(REGISTRY.model("gpt-5.1"), base_url=f"http://127.0.0.1:{port}/v1")
    check = served_check(unreachable, {"OPENAI_API_KEY": "sk-test"})
    assert check.ok is False and check.name == "model gpt-5.1"
    assert check.detail.startswith(f"gpt-5.1: the lookup at http://127.0.0.1:{port}/v1 failed (")
    assert "APIConnectionError" in check.detail
    assert check.detail.endswith("check OPENAI_API_KEY and the network")


def test_only_hosted_models_are_looked_up_and_substitutions_are_reported(tmp_path, loopback):
    registry = replace(
        REGISTRY,
        models={**REGISTRY.models, "claude-opus-4-6": pointed("claude-opus-4-6", loopback)},
    )
    config = {"results": str(tmp_path), "judges": {"substitutions": {"claude-sonnet-4-5": "x"}}}
    env = {"ANTHROPIC_API_KEY": "sk-loopback", SITE_FILE_VARIABLE: str(tmp_path / "site.yaml")}
    lines = [
        check.line() for check in checks(config, registry, ["smollm2-135m", "claude-opus-4-6"], env)
    ]
    models = [line for line in lines if "  model " in line]
    assert models == ["OK    model claude-opus-4-6: claude-opus-4-6 is served"]
    (substitution,) = substitution_checks({"claude-sonnet-4-5": "claude-sonnet-4-6"})
    assert substitution.name == "substitution claude-sonnet-4-5" and substitution.ok is True
    assert substitution.detail.startswith(
        "claude-sonnet-4-6 runs in place of claude-sonnet-4-5; compared not like-for-like with "
        f"{len(published_cells('claude-sonnet-4-5'))} published numbers"
    )
    assert any(
        line.startswith("OK    substitution claude-sonnet-4-5: x runs in place") for line in lines
    )
