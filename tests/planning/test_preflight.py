"""Pre-flight checks (noveval.cluster.preflight) on hand-made SLURM answers, folders and
environments.

tests/planning/test_slurm.py runs `snakemake preflight` against the CI's real SLURM cluster.
"""

from __future__ import annotations

import csv
import json
import shutil
import socket
from dataclasses import replace
from pathlib import Path

import yaml
from conftest import REPO
from loopback_hub import LoopbackHub, Repository
from snakemake.utils import update_config

from noveval.cluster.preflight.access import api_key_checks, gated_check, hub_token
from noveval.cluster.preflight.conda import (
    ENV_SIZES_GB,
    ENVS_DIR,
    conda_check,
    conda_checks,
    env_space_check,
)
from noveval.cluster.preflight.findings import Finding, skipped, warning
from noveval.cluster.preflight.grid import Grid, hub_scorers
from noveval.cluster.preflight.nodes import (
    MIN_DRIVER,
    driver_check,
    glibc_check,
    glibc_checks,
    node_check,
    node_command,
)
from noveval.cluster.preflight.run import checks
from noveval.cluster.preflight.served import served_check, substitution_checks
from noveval.cluster.preflight.slurm import partition_checks, site_file_check, slurm_partitions
from noveval.cluster.preflight.templates import (
    chat_template_checks,
    snapshot_template,
    template_check,
)
from noveval.cluster.preflight.weights import hub_revision_check, pinned_check, weights_cache_check
from noveval.core.registry import load_registry
from noveval.core.site import SITE_FILE_VARIABLE

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SITE = {
    "partitions": {
        "cpu": {"max_gpu": 0},
        "gpu-a100": {"max_gpu": 4, "available_gpu_models": ["a100"]},
        "gpu-h100": {"max_gpu": 4, "available_gpu_models": ["h100"]},
    }
}


def test_check_lines():
    assert Finding("site file", True, "x.yaml").line() == "OK    site file: x.yaml"
    assert Finding("key K", False, "not set").line() == "FAIL  key K: not set"
    assert Finding("NVIDIA driver", None, "no GPU").line() == "SKIP  NVIDIA driver: no GPU"
    assert warning("hub x", "gated", "`x`").line() == "WARN  hub x: gated; fix: `x`"
    assert warning("hub x", "gated", "`x`").ok is True  # a warning fails nothing
    assert skipped("glibc", "no vLLM model") == Finding("glibc", None, "no vLLM model")


def test_site_file_check(tmp_path):
    good = tmp_path / "site.yaml"
    good.write_text("partitions:\n  cpu: {max_gpu: 0}\n  gpu: {max_gpu: 2}\n")
    check, site = site_file_check(good)
    assert check == Finding("site file", True, f"{good} (2 partitions)")
    assert set(site["partitions"]) == {"cpu", "gpu"}
    assert site_file_check(tmp_path / "none.yaml")[0].ok is False
    (tmp_path / "empty.yaml").write_text("account: null\n")
    check, _ = site_file_check(tmp_path / "empty.yaml")
    assert check.line() == (
        f"FAIL  site file: {tmp_path / 'empty.yaml'}: no `partitions` table; fix: `partitions:` "
        f"in {tmp_path / 'empty.yaml'}, each partition with its `max_gpu` and `max_runtime`"
    )
    (tmp_path / "typo.yaml").write_text("partitions:\n  gpu: {max_gpus: 2}\n")
    check, site = site_file_check(tmp_path / "typo.yaml")
    assert site == {} and check.line().startswith(
        f"FAIL  site file: {tmp_path / 'typo.yaml'}: partitions/gpu: Additional properties "
    )
    assert check.line().endswith(
        f"; fix: correct the key it names in `{tmp_path / 'typo.yaml'}` "
        "(docs/cluster.md#site-settings)"
    )


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
    assert names == Finding("partitions", True, "cpu, gpu-a100, gpu-h100 known to SLURM")
    assert types == Finding("GPU types", True, "grid needs a100, h100; SLURM offers them")

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
    assert types.fix == (
        "in the site file, `partitions: gpu-a100: available_gpu_models: [v100]`; "
        "`gpu_types: {l40s: <a GRES type sinfo lists>}` or a partition's `available_gpu_models` "
        "naming it"
    )
    assert (
        names.fix == "rename `partitions: gpu-h100` in the site file to a partition `sinfo` lists"
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
    assert unwritable.line() == (
        "FAIL  weights cache: /proc/weights: not writable (No such file or directory); fix: "
        "`weights_cache:` in the site file, a folder this user can write"
    )
    assert "; fix: `weights_cache:` in the site file on a file system with room (or free " in (
        too_big.line()
    )


def test_every_download_of_the_grid_is_pinned_or_named():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    models = config["novbench"]["models"]
    scorers = hub_scorers(config, REGISTRY, models)
    # NovBench's scorers, and the Idea Novelty Checker's encoder (the judges' systems)
    assert [scorer.name for scorer in scorers] == ["spiced", "distilgpt2", "specter2-base"]
    judges_only = hub_scorers(config, REGISTRY, ["gpt-5.4"])  # no NovBench model: no scoring
    assert [scorer.name for scorer in judges_only] == ["specter2-base"]
    config["judges"]["systems"].pop("novelty_checker")
    assert hub_scorers(config, REGISTRY, ["gpt-5.4"]) == []
    downloads = [REGISTRY.model(name) for name in models if REGISTRY.model(name).engine == "vllm"]
    downloads += scorers
    unpinned = [item for item in downloads if not item.revision]
    check = pinned_check(downloads, allow_unpinned=False)
    assert check.ok is (not unpinned)
    for item in downloads:  # each unpinned one named with its repository, no pinned one
        assert (f"{item.name} ({item.reference})" in check.detail) is (item in unpinned)
    pinned = [replace(item, revision="0" * 40) for item in downloads]
    assert pinned_check(pinned, False) == Finding(
        "revisions", True, "every open model and hub scorer of the grid is pinned"
    )
    one = [replace(downloads[0], revision=None)]
    assert pinned_check(one, False).line() == (
        f"FAIL  revisions: no revision in config/models.yaml: {one[0].name} "
        f"({one[0].reference}); fix: `weights.allow_unpinned: lock` in the config (main's commit "
        "locked at the first download), or a `revision:` for each in config/models.yaml"
    )
    # main at each download is not enough: the grid locks it, or the lock file holds its commit
    assert pinned_check(one, True).ok is False
    assert pinned_check(one, "lock").ok is True
    locked = {one[0].name: {"repository": one[0].reference, "commit": "c" * 40}}
    assert pinned_check(one, False, locked) == Finding(
        "revisions", True, f"0 pinned; locked: {one[0].name}@{'c' * 12} (the lock file's commits)"
    )


def test_gated_model_without_token(tmp_path):
    check = gated_check("cyclereviewer-8b", "WestlakeNLP/CycleReviewer-ML-Llama-3.1-8B", None)
    assert check.line() == (
        "FAIL  access cyclereviewer-8b: WestlakeNLP/CycleReviewer-ML-Llama-3.1-8B is gated: no "
        "Hugging Face token; fix: `export HF_TOKEN=<a token with access>` (or `hf auth login`)"
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
        "FAIL  key GEMINI_API_KEY: not set, for gemini-2.5-flash; fix: "
        "`export GEMINI_API_KEY=...` (README step 3)",
        "OK    key OPENAI_API_KEY: set, for gpt-4o, gpt-5",
    ]


def test_driver_version_against_vllm_cuda():
    assert MIN_DRIVER == "580.65.06"
    newer = driver_check("580.95.05\n580.65.06\n", "this host")
    assert newer == Finding(
        "NVIDIA driver (this host)", True, "580.65.06 (vLLM's CUDA 13.0 needs >= 580.65.06)"
    )
    older = driver_check("570.172.08\n", "a100 nodes")
    assert older.name == "NVIDIA driver (a100 nodes)"
    assert older.ok is False and older.detail.startswith("570.172.08 (")
    assert driver_check("", "this host").detail == "nvidia-smi reported no GPU"


def published_cells(model: str) -> list[str]:
    """The cells of the judge study's published numbers for ``model``, read by hand."""
    path = REPO / "src" / "noveval" / "core" / "published" / "judges.csv"
    with path.open(newline="") as handle:
        return [row["cell"] for row in csv.DictReader(handle) if row["model"] == model]


def pointed(name: str, loopback) -> object:
    spec = REGISTRY.model(name)
    return replace(spec, base_url=loopback.base_url(spec.api))


def test_hosted_models_are_looked_up_and_a_retired_one_names_its_published_cells(loopback):
    env = {"ANTHROPIC_API_KEY": "sk-loopback", "OPENAI_API_KEY": "sk-loopback"}
    for name in ("claude-opus-4-6", "gpt-5.4"):
        spec = pointed(name, loopback)
        assert served_check(spec, env) == Finding(
            f"model {name}", True, f"{spec.reference} is served"
        )
    assert served_check(pointed("claude-opus-4-5", loopback), env) == Finding(
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
    assert retired.line().endswith(
        "; fix: `judges.substitutions: {claude-sonnet-4-5: <successor>}` in the config runs "
        "another model in its place, reported as a substitution, not like-for-like"
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
    assert served_check(spec, {}).line() == (
        "FAIL  model claude-opus-4-6: claude-opus-4-6: the lookup cannot be made: "
        "ANTHROPIC_API_KEY is not set (registry api_key_env of claude-opus-4-6); fix: "
        "`export ANTHROPIC_API_KEY=...` (README step 3)"
    )
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    unreachable = replace(REGISTRY.model("gpt-5.1"), base_url=f"http://127.0.0.1:{port}/v1")
    check = served_check(unreachable, {"OPENAI_API_KEY": "sk-test"})
    assert check.ok is False and check.name == "model gpt-5.1"
    assert check.detail.startswith(f"gpt-5.1: the lookup at http://127.0.0.1:{port}/v1 failed (")
    assert "APIConnectionError" in check.detail
    assert check.line().endswith(
        "; fix: a valid `OPENAI_API_KEY` exported, and this host reaching the provider"
    )


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


def grid(tmp_path: Path, models: list[str], registry=REGISTRY, **settings) -> Grid:
    """The checks' view of a grid with results under ``tmp_path``, no site file, no SLURM."""
    fields = {"env": {}, "site_path": "", "site": {}, "partitions": None, **settings}
    return Grid({"results": str(tmp_path)}, registry, models, **fields)


def test_glibc_against_vllm_wheels():
    need = "vLLM 0.33's llguidance wheels need glibc >= 2.31"
    assert glibc_check("glibc 2.28", "a100 nodes") == Finding(
        "glibc (a100 nodes)", False, f"2.28 ({need})"
    )  # RHEL 8
    assert glibc_check("glibc 2.31\n", "this host") == Finding(
        "glibc (this host)", True, f"2.31 ({need})"
    )
    assert glibc_check("glibc 2.36", "this host").ok is True
    assert glibc_check("", "this host") == Finding(
        "glibc (this host)", False, "no glibc version in ''"
    )


def test_glibc_is_checked_only_for_vllm_models(tmp_path):
    assert glibc_checks(grid(tmp_path, ["smollm2-135m", "gpt-4o"])) == [
        Finding("glibc", None, "no vLLM model in the grid")
    ]
    import platform

    (here,) = glibc_checks(grid(tmp_path, ["qwen3-8b"]))  # no SLURM: this host only
    assert here.name == "glibc (this host)" and here.detail.startswith(platform.libc_ver()[1])


def test_conda_version_against_snakemake_minimum(tmp_path):
    need = "Snakemake's conda deployment needs >= 24.7.1"
    assert conda_check("conda 24.7.1\n") == Finding("conda", True, f"24.7.1 ({need})")
    assert conda_check("conda 23.11.0") == Finding("conda", False, f"23.11.0 ({need})")
    assert conda_check("conda 25.11.1").ok is True
    assert conda_check("") == Finding("conda", False, "no version in `conda --version`: ''")
    why = "the run deploys no conda environment (software-deployment-method)"
    assert conda_checks(grid(tmp_path, ["qwen3-8b"])) == [
        Finding("conda", None, why),
        Finding("environments space", None, why),
    ]


def gb_free(line: str, folder: Path) -> float:
    """The free space a line gives for ``folder``."""
    return float(line.split(f"{folder}: ")[1].split(" GB free")[0].replace(",", ""))


def test_room_for_the_conda_environments_not_built_yet(tmp_path):
    prefix, pip_cache = tmp_path / "conda", tmp_path / "pip"
    env_files = [ENVS_DIR / "inference-vllm.yaml", ENVS_DIR / "noveval.yaml"]
    assert ENV_SIZES_GB == {"noveval.yaml": (3.0, 1.0), "inference-vllm.yaml": (14.0, 6.0)}
    free_gb = shutil.disk_usage(tmp_path).free / 1e9
    both = env_space_check(prefix, pip_cache, env_files)
    # 3 + 14 GB of environments and 1 + 6 GB of wheels, both on tmp's file system
    assert both.ok is (free_gb >= 24) and both.name == "environments space"
    assert f"{prefix}: " in both.detail and abs(gb_free(both.detail, prefix) - free_gb) < 2
    assert both.detail.endswith(
        "GB free, 17.0 GB to write; "
        f"{pip_cache}: {both.detail.split(f'{pip_cache}: ')[1].split(' GB')[0]} GB free, 7.0 GB "
        "to write; one file system: 24.0 GB in all; for inference-vllm.yaml, noveval.yaml"
    )
    # Each half fits, both on one file system do not.
    share = {
        "noveval.yaml": (0.3 * free_gb, 0.0),
        "inference-vllm.yaml": (0.3 * free_gb, 0.6 * free_gb),
    }
    assert env_space_check(prefix, pip_cache, env_files, share).ok is False
    assert env_space_check(prefix, None, env_files, share).ok is True  # pip caches nothing

    # A built environment (Snakemake's copy of the file, and its flag) needs nothing; a copy
    # without the flag (a build that broke off) is built again.
    prefix.mkdir()
    shutil.copy(ENVS_DIR / "noveval.yaml", prefix / "0a1b2c.yaml")
    shutil.copy(ENVS_DIR / "inference-vllm.yaml", prefix / "3d4e5f.yaml")
    (prefix / "0a1b2c.env_setup_done").touch()
    one = env_space_check(prefix, None, env_files)
    assert one.detail.endswith("GB free, 14.0 GB to write; for inference-vllm.yaml")
    (prefix / "3d4e5f.env_setup_done").touch()
    assert env_space_check(prefix, pip_cache, env_files) == Finding(
        "environments space", True, f"every environment is built in {prefix}"
    )


COMMIT = "a" * 40
REJECTS_SYSTEM = (
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "<start_of_turn>{{ message['role'] }}\n{{ message['content'] }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def test_each_pinned_commit_is_on_the_hub():
    spec = REGISTRY.model("qwen3-8b")
    repositories = {
        "org/tiny": Repository({COMMIT: {"config.json": b"{}"}}, main=COMMIT),
        "org/gated": Repository({COMMIT: {"config.json": b"{}"}}, main=COMMIT, gated=True),
    }
    with LoopbackHub(repositories) as hub:

        def check(reference: str, revision: str | None) -> Finding:
            item = replace(spec, reference=reference, revision=revision)
            return hub_revision_check(item, None, endpoint=hub.endpoint)

        assert check("org/tiny", COMMIT) == Finding(
            "hub qwen3-8b", True, f"org/tiny@{COMMIT} is on the hub"
        )
        assert hub.requests == [("GET", f"/api/models/org/tiny/revision/{COMMIT}")]
        assert check("org/tiny", "b" * 40).line() == (
            f"FAIL  hub qwen3-8b: org/tiny@{'b' * 40}: the hub has no such revision; fix: another "
            "commit of org/tiny as `revision:` of qwen3-8b in the registry (config/models.yaml)"
        )
        assert check("org/gone", COMMIT) == Finding(
            "hub qwen3-8b", False, f"org/gone@{COMMIT}: no such repository on the hub (or private)"
        )
        assert check("org/gated", COMMIT).line() == (
            f"WARN  hub qwen3-8b: org/gated@{COMMIT}: gated, cannot be confirmed without access; "
            "fix: `export HF_TOKEN=<a token with access>` (see access)"
        )
        assert check("org/tiny", None) == Finding(
            "hub qwen3-8b", None, "org/tiny has no pinned revision (see revisions)"
        )
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    item = replace(spec, reference="org/tiny", revision=COMMIT)
    assert hub_revision_check(item, None, endpoint=f"http://127.0.0.1:{port}") == Finding(
        "hub qwen3-8b", False, f"org/tiny@{COMMIT}: the hub did not answer (ConnectError)"
    )


def test_a_chat_template_that_rejects_the_system_role_fails():
    check = template_check("gemma-like", REJECTS_SYSTEM, "org/tiny snapshot", {"bos_token": "<b>"})
    assert check == Finding(
        "chat template gemma-like",
        False,
        "org/tiny snapshot refuses system+user (TemplateError: System role not supported)",
    )
    accepts = REJECTS_SYSTEM.replace("raise_exception('System role not supported')", "''")
    assert template_check("any", accepts, "x", {}) == Finding(
        "chat template any", True, "x renders system+user and user only"
    )
    assert template_check("bare", None, "org/bare snapshot", {}).line() == (
        "FAIL  chat template bare: none in org/bare snapshot; fix: `chat_template:` of bare in the "
        "registry (config/models.yaml) rendering both"
    )
    broken = template_check("broken", "{% for m in messages %}", "x", {})
    assert broken.ok is False and "TemplateSyntaxError" in broken.detail


def test_snapshot_template_from_its_files(tmp_path):
    config = {"bos_token": {"content": "<s>"}, "eos_token": "</s>", "model_max_length": 8}
    config["chat_template"] = [
        {"name": "tool_use", "template": "tools"},
        {"name": "default", "template": "plain"},
    ]
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config))
    assert snapshot_template(tmp_path) == ("plain", {"bos_token": "<s>", "eos_token": "</s>"})
    (tmp_path / "chat_template.jinja").write_text("from the jinja file")
    assert snapshot_template(tmp_path)[0] == "from the jinja file"
    assert snapshot_template(tmp_path / "nothing") == (None, {})


def downloaded(tmp_path: Path, name: str, files: dict[str, str]) -> None:
    """A snapshot of ``files`` and the manifest rule weights writes for it."""
    snapshot = tmp_path / "hub" / name / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    for path, text in files.items():
        (snapshot / path).write_text(text)
    manifest = {
        "model": name,
        "repo_id": f"org/{name}",
        "revision": COMMIT,
        "snapshot": str(snapshot),
        "cache_dir": str(tmp_path / "hub"),
        "files": [{"path": path, "bytes": len(text)} for path, text in files.items()],
    }
    (tmp_path / "weights").mkdir(exist_ok=True)
    (tmp_path / "weights" / f"{name}.json").write_text(json.dumps(manifest))


def test_chat_templates_of_the_downloaded_models(tmp_path):
    tiny = replace(REGISTRY.model("qwen3-8b"), name="tiny-vllm", reference="org/tiny-vllm")
    registry = replace(REGISTRY, models={**REGISTRY.models, "tiny-vllm": tiny})
    config = {"chat_template": REJECTS_SYSTEM, "bos_token": "<bos>"}
    downloaded(tmp_path, "tiny-vllm", {"tokenizer_config.json": json.dumps(config)})
    downloaded(tmp_path, "reviewer2", {"config.json": "{}"})  # no template: the registry's
    models = ["reviewer2", "tiny-vllm", "qwen3-8b", "gpt-4o"]
    lines = [check.line() for check in chat_template_checks(grid(tmp_path, models, registry))]
    assert lines == [
        "OK    chat template reviewer2: pypi:noveval/prompts/novbench/reviewer2_chat.j2 renders "
        "system+user and user only",
        "FAIL  chat template tiny-vllm: org/tiny-vllm snapshot refuses system+user "
        "(TemplateError: System role not supported); fix: `chat_template:` of tiny-vllm in the "
        "registry (config/models.yaml) rendering both",
        "SKIP  chat templates: not downloaded yet: qwen3-8b (target fetch_weights; run preflight "
        "again after)",
    ]
    assert chat_template_checks(grid(tmp_path, ["gpt-4o"])) == [
        Finding("chat templates", None, "no vLLM model in the grid")
    ]
    # a snapshot whose files left the cache since the download
    (tmp_path / "hub" / "tiny-vllm" / "snapshots" / COMMIT / "tokenizer_config.json").unlink()
    gone = chat_template_checks(grid(tmp_path, ["tiny-vllm"], registry))[0]
    assert gone.ok is False and gone.detail.startswith(
        "model 'tiny-vllm': 1 files of org/tiny-vllm@"
    )


def test_gpu_node_steps_carry_the_site_account_and_qos():
    site = {"account": "lab", "qos": "short"}
    assert node_command(site, "gpu", "a100", ["nvidia-smi"]) == [
        "srun", "--partition=gpu", "--ntasks=1", "--time=2", "--account=lab", "--qos=short",
        "--immediate=60", "--gres=gpu:a100:1", "nvidia-smi",
    ]  # fmt: skip
    assert node_command({"account": None}, "gpu", "", ["true"])[-2:] == ["--gres=gpu:1", "true"]


def test_a_busy_partition_is_a_warning_a_refused_step_a_failure():
    # srun's answers (run_command joins their lines), as SLURM 22.05 gives them
    busy = (
        "srun: job 4 queued and waiting for resources | srun: error: Unable to allocate "
        "resources: Requested nodes are busy"
    )
    check = node_check("NVIDIA driver", "a100 nodes", "gpu", (False, busy), driver_check)
    assert check.line() == (
        f"WARN  NVIDIA driver (a100 nodes): partition gpu is busy: {busy}; fix: `snakemake "
        "preflight` again, with the same config files, when a node is free"
    )
    refused = (
        "srun: error: Unable to allocate resources: Requested node configuration is not available"
    )
    assert node_check("glibc", "h100 nodes", "gpu", (False, refused), glibc_check) == Finding(
        "glibc (h100 nodes)", False, f"partition gpu: {refused}"
    )
    ran = node_check("NVIDIA driver", "a100 nodes", "gpu", (True, "580.95.05\n"), driver_check)
    assert ran == driver_check("580.95.05", "a100 nodes") and ran.ok is True


def test_the_site_file_puts_conda_deployment_in_the_slurm_profile(tmp_path, monkeypatch):
    """profiles/slurm/config.yaml as Snakemake reads it (yte): the site file's
    software_deployment and conda_prefix become --sdm conda and --conda-prefix."""
    import yte

    def profile(site: dict) -> dict:
        site_file = tmp_path / "site.yaml"
        site_file.write_text(yaml.safe_dump({"partitions": {}, **site}))
        monkeypatch.setenv(SITE_FILE_VARIABLE, str(site_file))
        with open(REPO / "profiles" / "slurm" / "config.yaml") as handle:
            return yte.process_yaml(handle, require_use_yte=True)

    shipped = yaml.safe_load((REPO / "profiles" / "slurm" / "site.yaml").read_text())
    assert (shipped["software_deployment"], shipped["conda_prefix"]) == ("conda", None)
    monkeypatch.setenv("PATH", "/nonexistent")  # no conda here: a dry run plans without it
    assert "software-deployment-method" not in profile({"software_deployment": "conda"})
    monkeypatch.setenv("PATH", str(REPO / "tests" / "conda" / "bin"))  # the conda stand-in
    conda = profile({"software_deployment": "conda", "conda_prefix": "/shared/conda"})
    assert conda["software-deployment-method"] == "conda"
    assert conda["conda-prefix"] == "/shared/conda"
    assert "conda-prefix" not in profile({"software_deployment": "conda"})
    for none in ({"software_deployment": None}, {}):  # e.g. the CI site file: no conda there
        assert "software-deployment-method" not in profile(none)
