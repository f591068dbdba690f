"""Where each job may reach the network: hosted-API inference on the submitting host unless the
site says otherwise (then preflight checks that compute nodes reach each provider), and jobs
that load metric models with the hub off.

Where the jobs run on a real cluster: tests/planning/test_slurm.py; the rule of each inference
job in the paper grid: tests/planning/test_plan.py; the hub off in the jobs of a finished run:
tests/workflow/test_workflow.py.
"""

from __future__ import annotations

import os
import re
import socket
import sys
from dataclasses import replace

import pytest
import yaml
from conftest import REPO, write_yaml

from noveval.cluster.preflight.findings import run_command
from noveval.cluster.preflight.network import (
    ON_HOST,
    REACH_SCRIPT,
    provider_network_check,
    provider_urls,
    reach_check,
)
from noveval.cluster.preflight.slurm import job_step
from noveval.cluster.resources import api_inference_on_host, api_models_pattern
from noveval.core.registry import load_registry
from noveval.core.site import SITE_FILE_VARIABLE
from noveval.inference.weights import use_offline

REGISTRY = load_registry(REPO / "config" / "models.yaml")
CI_SITE = {"partitions": {"cpu": {"max_gpu": 0}, "gpu": {"max_gpu": 2}}}


def test_hosted_api_inference_runs_on_the_host_unless_the_site_says_slurm(tmp_path, monkeypatch):
    monkeypatch.delenv(SITE_FILE_VARIABLE, raising=False)
    assert api_inference_on_host(tmp_path / "absent.yaml")  # no site file: the default
    assert api_inference_on_host(REPO / "profiles" / "slurm" / "site.yaml")
    slurm = write_yaml(tmp_path / "slurm.yaml", {**CI_SITE, "api_inference": "slurm"})
    assert not api_inference_on_host(slurm)
    monkeypatch.setenv(SITE_FILE_VARIABLE, str(slurm))  # as the SLURM profile reads it
    assert not api_inference_on_host()
    wrong = write_yaml(tmp_path / "wrong.yaml", {"api_inference": "login"})
    with pytest.raises(
        ValueError,
        match=r"wrong.yaml: api_inference: 'login' is not one of \['host', 'slurm', None\]",
    ):
        api_inference_on_host(wrong)


def test_rule_infer_api_takes_exactly_the_hosted_models(tmp_path):
    pattern = re.compile(api_models_pattern(REGISTRY))
    hosted = {name for name, spec in REGISTRY.models.items() if spec.engine == "api"}
    assert {"gpt-4o", "gpt-5.1"} <= hosted
    assert {name for name in REGISTRY.models if pattern.fullmatch(name)} == hosted
    assert not pattern.fullmatch("gpt-4o-served-here")  # a name that starts like one
    entries = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    entries["models"] = {
        name: entry for name, entry in entries["models"].items() if entry["engine"] != "api"
    }
    served_only = load_registry(write_yaml(tmp_path / "models.yaml", entries))
    assert not re.fullmatch(api_models_pattern(served_only), "gpt-4o")


def test_a_compute_node_step_has_the_sites_account_and_qos():
    site = {**CI_SITE, "account": "novelty", "qos": "short"}
    step = job_step(site, "cpu")
    assert step[:2] == ["srun", "--partition=cpu"]
    assert "--account=novelty" in step and "--qos=short" in step
    assert not any(flag.startswith(("--account", "--qos")) for flag in job_step(CI_SITE, "cpu"))


def test_each_provider_once_with_the_sdks_default_address():
    specs = [REGISTRY.model(name) for name in ("gpt-4o", "gpt-5.1", "qwen3-32b")]
    assert provider_urls(specs) == ["https://api.openai.com/v1"]
    claude = [spec for spec in REGISTRY.models.values() if spec.api == "messages"][0]
    assert provider_urls([replace(claude, base_url=None)]) == ["https://api.anthropic.com"]


def test_the_reach_script_names_the_provider_a_node_cannot_reach(loopback):
    """REACH_SCRIPT run here, as preflight runs it on a compute node: the loopback provider is
    reached, a port nothing listens on is not."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
    reached = loopback.base_url("chat")
    urls = [reached, dead]
    check = reach_check(*run_command([sys.executable, "-c", REACH_SCRIPT, *urls]), "here", urls)
    assert check.ok is False and check.line().startswith(
        f"FAIL  provider network: here cannot reach {dead} "
    )
    assert check.line().endswith(f"; fix: {ON_HOST}") and reached not in check.detail
    check = reach_check(
        *run_command([sys.executable, "-c", REACH_SCRIPT, reached]), "here", [reached]
    )
    assert check.line() == f"OK    provider network: here reaches {reached}"
    failed_step = reach_check(
        False, "srun: error: Invalid account", "a node of partition cpu", urls
    )
    assert failed_step.line() == (
        "FAIL  provider network: a node of partition cpu: srun: error: Invalid account; fix: the "
        f"site file's `account` and `qos` as SLURM takes them, or {ON_HOST}"
    )


def test_provider_network_is_checked_only_where_hosted_calls_leave_this_host(tmp_path):
    hosted = [REGISTRY.model("gpt-4o")]
    default = write_yaml(tmp_path / "site.yaml", CI_SITE)
    skip = provider_network_check(str(default), CI_SITE, hosted)
    assert skip.line() == "SKIP  provider network: hosted-API inference runs on this host"
    gpu_only = {"api_inference": "slurm", "partitions": {"gpu": {"max_gpu": 2}}}
    path = write_yaml(tmp_path / "gpu-only.yaml", gpu_only)
    assert provider_network_check(str(path), gpu_only, hosted).line() == (
        "FAIL  provider network: no CPU partition in the site file; fix: a CPU partition "
        f"(`max_gpu: 0`) under `partitions`, or {ON_HOST}"
    )
    served = [REGISTRY.model("qwen3-32b")]
    assert provider_network_check(str(path), gpu_only, served).ok is None


def test_a_job_that_loads_metric_models_is_off_the_hub_without_hub_models(monkeypatch):
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY"):
        monkeypatch.setenv(variable, "")  # restored after the test
    assert use_offline([]) == {}  # packaged models only: the hub is off all the same
    assert os.environ["HF_HUB_OFFLINE"] == os.environ["TRANSFORMERS_OFFLINE"] == "1"
