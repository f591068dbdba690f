"""Every FAIL and WARN of the pre-flight names its fix: a command or a config line, in backticks
after ``; fix:``. Every finding a check can make that may fail or warn is written with a fix (read
from the checks' source), and every check is driven to its failures and warnings on hand-made
answers, folders and files, and a loopback hub and provider."""

from __future__ import annotations

import ast
import json
import re
import socket
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO, write_yaml
from loopback_hub import LoopbackHub, Repository

from noveval.cluster.preflight import access, conda, network, nodes, slurm, templates, weights
from noveval.cluster.preflight.findings import Finding
from noveval.cluster.preflight.grid import Grid
from noveval.cluster.resources import PlannedJob
from noveval.core.registry import load_registry

REGISTRY = load_registry(REPO / "config" / "models.yaml")
PREFLIGHT = REPO / "src" / "noveval" / "cluster" / "preflight"
FIX = re.compile(r"; fix: .*`[^`]+`")
COMMIT = "a" * 40


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_every_finding_that_can_fail_or_warn_is_written_with_its_fix():
    """In the checks' source, each ``Finding`` whose ``ok`` is not a literal True or None passes
    ``fix=``, and each ``warning`` passes its fix."""
    missing = []
    for module in sorted(PREFLIGHT.glob("*.py")):
        for call in ast.walk(ast.parse(module.read_text())):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
                continue
            keywords = {keyword.arg for keyword in call.keywords}
            if call.func.id == "Finding" and len(call.args) >= 2:
                ok = call.args[1]
                always_passes = isinstance(ok, ast.Constant) and ok.value in (True, None)
                if not always_passes and "fix" not in keywords and len(call.args) < 5:
                    missing.append(f"{module.name}:{call.lineno}")
            if call.func.id == "warning" and len(call.args) + len(keywords) < 3:
                missing.append(f"{module.name}:{call.lineno}")
    assert not missing


def site_grid(tmp_path: Path, models: list[str], registry=REGISTRY, **settings) -> Grid:
    fields = {"env": {}, "site_path": str(tmp_path / "none.yaml"), "site": {}, "partitions": None}
    return Grid({"results": str(tmp_path)}, registry, models, **{**fields, **settings})


def failures_and_warnings(tmp_path: Path, loopback, hub: LoopbackHub) -> list[Finding]:
    """Every check's findings on hand-made inputs that make it fail or warn."""
    found = []
    # the site file, and SLURM's partitions
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("partitions: [\n")
    unknown_key = write_yaml(tmp_path / "unknown.yaml", {"partitions": {"gpu": {"max_gpus": 2}}})
    no_table = write_yaml(tmp_path / "empty.yaml", {"account": None})
    for path in (tmp_path / "none.yaml", bad_yaml, unknown_key, no_table):
        found.append(slurm.site_file_check(path)[0])
    gpu = {"max_gpu": 2, "max_runtime": 900, "available_gpu_models": ["a100"]}
    site = {"partitions": {"cpu": {"max_gpu": 0}, "gpu": gpu}}
    found += slurm.partition_checks(site, {"gpu": {"v100"}}, {"a100", "h100"})
    found += slurm.slurm_checks(site_grid(tmp_path, ["qwen3-8b"], sinfo_error="srun: refused"))
    limits = slurm.partition_limits("cpu 1:00:00 (null) 8000\ngpu 10:00:00 gpu:a100:2 8000\n")
    for job in (
        PlannedJob("long", 1, "a100", 700, 3000),  # the site file says 900 min, SLURM 600
        PlannedJob("fat", 1, "a100", 30, 30_000),
        PlannedJob("wide", 4, "a100", 30, 3000),
    ):
        found.append(slurm.job_limits_check([job], limits, site))
    found.append(slurm.job_limits_check([PlannedJob("long", 1, "a100", 700, 3000)], limits, {}))
    # the weights: cache, sizes, pins, the hub
    found.append(weights.weights_cache_check(Path("/proc/weights"), 0))
    found.append(weights.weights_cache_check(tmp_path, 1e9))
    unsized = replace(REGISTRY.model("qwen3-8b"), download_gb=None, revision=None)
    registry = replace(REGISTRY, models={**REGISTRY.models, "qwen3-8b": unsized})
    found += weights.weights_checks(site_grid(tmp_path, ["qwen3-8b"], registry))
    for reference, revision in (
        ("org/tiny", "b" * 40),
        ("org/gone", COMMIT),
        ("org/gated", COMMIT),
    ):
        item = replace(REGISTRY.model("qwen3-8b"), reference=reference, revision=revision)
        found.append(weights.hub_revision_check(item, None, endpoint=hub.endpoint))
    item = replace(REGISTRY.model("qwen3-8b"), reference="org/tiny", revision=COMMIT)
    found.append(weights.hub_revision_check(item, None, f"http://127.0.0.1:{closed_port()}"))
    # chat templates, and a downloaded snapshot whose files are gone
    found.append(templates.template_check("bare", None, "org/bare snapshot", {}))
    found.append(templates.template_check("broken", "{% for m in messages %}", "x", {}))
    tiny = replace(REGISTRY.model("qwen3-8b"), name="tiny-vllm", reference="org/tiny-vllm")
    manifest = {"model": "tiny-vllm", "repo_id": "org/tiny-vllm", "revision": COMMIT,
                "snapshot": str(tmp_path / "gone"), "cache_dir": str(tmp_path),
                "files": [{"path": "config.json", "bytes": 2}]}  # fmt: skip
    (tmp_path / "weights").mkdir(exist_ok=True)
    (tmp_path / "weights" / "tiny-vllm.json").write_text(json.dumps(manifest))
    with_tiny = replace(REGISTRY, models={**REGISTRY.models, "tiny-vllm": tiny})
    found += templates.chat_template_checks(site_grid(tmp_path, ["tiny-vllm"], with_tiny))
    # access: tokens and keys, hosted models not served, retired, or not reached
    found.append(access.gated_check("cyclereviewer-8b", "org/gated", None))
    found += access.api_key_checks(REGISTRY, ["gpt-4o", "gemini-2.5-flash"], {})
    found.append(access.semantic_scholar_key_check(True, {}))
    found.append(access.served_check(REGISTRY.model("gpt-4o"), {}))
    keys = {"ANTHROPIC_API_KEY": "sk-loopback", "OPENAI_API_KEY": "sk-loopback"}
    for name in ("claude-sonnet-4-5", "gpt-5.1"):
        spec = replace(REGISTRY.model(name), base_url=loopback.base_url(REGISTRY.model(name).api))
        loopback.unknown = {spec.reference} if name == "gpt-5.1" else set()
        try:
            found.append(access.served_check(spec, keys))
        finally:
            loopback.unknown = set()
    unreached = replace(REGISTRY.model("gpt-5.1"), base_url=f"http://127.0.0.1:{closed_port()}/v1")
    found.append(access.served_check(unreached, keys))
    found += access.not_runnable_checks(REGISTRY, {"claude-sonnet-4-5": ("retired", 91)})
    # where hosted-API inference runs, and what its nodes reach
    hosted = [REGISTRY.model("gpt-4o")]
    gpu_only = {"api_inference": "slurm", "partitions": {"gpu": {"max_gpu": 2}}}
    path = write_yaml(tmp_path / "gpu-only.yaml", gpu_only)
    found.append(network.provider_network_check(str(path), gpu_only, hosted))
    wrong = write_yaml(tmp_path / "wrong.yaml", {"api_inference": "nodes", "partitions": {}})
    found.append(network.provider_network_check(str(wrong), {}, hosted))
    found.append(network.reach_check(False, "srun: error: Invalid account", "a node", ["u"]))
    found.append(network.reach_check(True, "unreachable u refused", "a node", ["u"]))
    # the nodes: glibc, the driver, SLURM's answers to a job step
    found += [nodes.glibc_check("glibc 2.28", "this host"), nodes.glibc_check("", "a100 nodes")]
    found += [nodes.driver_check("570.1", "a100 nodes"), nodes.driver_check("", "this host")]
    step = nodes.node_command({}, "gpu", "a100", ["nvidia-smi"])
    for said in (
        "srun: error: Unable to allocate resources: Requested nodes are busy",
        "srun: error: Unable to allocate resources: Invalid account or account/partition",
        "slurmstepd: error: execve(): nvidia-smi: No such file or directory",
    ):
        found.append(nodes.node_check("NVIDIA driver", "a100 nodes", "gpu", (False, said),
                                      nodes.driver_check, step))  # fmt: skip
    found += nodes.driver_checks(site_grid(tmp_path, ["qwen3-8b"], partitions={}))
    # conda and the room for its environments
    found += [conda.conda_check("conda 23.11.0"), conda.conda_check("")]
    envs = [conda.ENVS_DIR / "noveval.yaml"]
    found.append(conda.env_space_check(tmp_path / "conda", None, envs, {"noveval.yaml": (1e9, 0)}))
    return found


def test_every_failure_and_warning_of_a_check_names_its_fix(tmp_path, loopback):
    repositories = {
        "org/tiny": Repository({COMMIT: {"config.json": b"{}"}}, main=COMMIT),
        "org/gated": Repository({COMMIT: {"config.json": b"{}"}}, main=COMMIT, gated=True),
    }
    with LoopbackHub(repositories) as hub:
        found = failures_and_warnings(tmp_path, loopback, hub)
    found = [finding for finding in found if finding.status in ("FAIL", "WARN")]
    assert [finding.line() for finding in found if not FIX.search(finding.line())] == []
    assert len(found) >= 45
    # the checks' names, each made to fail or warn at least once
    names = {re.sub(r" .*", "", finding.name) for finding in found}
    assert names >= {"site", "partitions", "GPU", "job", "weights", "revisions", "hub", "chat",
                     "access", "key", "model", "provider", "glibc", "NVIDIA", "conda",
                     "environments"}  # fmt: skip


@pytest.mark.parametrize("status", ["OK", "SKIP"])
def test_a_passing_or_skipped_line_carries_no_fix(status):
    finding = Finding("key K", {"OK": True, "SKIP": None}[status], "set", fix="`export K=...`")
    assert finding.line() == f"{status:<4}  key K: set"
