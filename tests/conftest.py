"""Shared fixtures: paths, the real data beside the checkout, and Snakemake runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from recording_proxy import RecordingProxy

from noveval.engines.servers import serve
from noveval.registry import load_registry

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE = REPO / "data" / "sample" / "novbench_sample.json"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
PROXIED_MODEL = "proxied-smollm2"


def unavailable(reason: str, required_by: str) -> None:
    """Skip a test whose outside resource is missing, or fail when the environment variable
    ``required_by`` is set (.ci/run sets it for what CI provides, so nothing skips there)."""
    if os.environ.get(required_by):
        pytest.fail(f"{reason} ({required_by} is set: this run requires it)")
    pytest.skip(reason)


def shared_file(*parts: str) -> Path:
    """A file of the authors' releases beside the checkout; skipped without it, outside CI."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        unavailable(
            f"real data not found at {path} (expected beside the checkout)",
            "NOVEVAL_REQUIRE_DATA",
        )
    return path


def write_yaml(path: Path, content: dict) -> Path:
    path.write_text(yaml.safe_dump(content, sort_keys=False))
    return path


def sample_subset(tmp_path: Path, count: int) -> Path:
    """The first ``count`` papers of the shipped sample, as a release file."""
    records = json.loads(SAMPLE.read_text())[:count]
    path = tmp_path / f"sample{count}.json"
    path.write_text(json.dumps(records))
    return path


def snakemake_env(**extra: str) -> dict:
    """The environment of a workflow run: this interpreter's tools first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", **extra}


def run_snakemake(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    """Run the workflow from the repository root (give ``--configfile`` in ``args``)."""
    kwargs.setdefault("env", snakemake_env())
    result = subprocess.run(
        [*SNAKEMAKE, *args], cwd=REPO, capture_output=True, text=True, timeout=1800, **kwargs
    )
    if check and result.returncode != 0:
        output = f"{result.stdout[-4000:]}\n{result.stderr[-6000:]}"
        raise AssertionError(f"snakemake failed ({result.returncode})\n{output}")
    return result


@pytest.fixture
def tiny_config(tmp_path):
    """A whole config (the default, changed by the test) with results under ``tmp_path``.

    Overlays merge into the default, so they cannot remove a dataset; tests write whole configs.
    """

    def make(name: str = "config.yaml", top: dict | None = None, **novbench) -> Path:
        config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
        config["results"] = str(tmp_path / "results")
        config["decoding"]["max_tokens"] = 48
        config["novbench"].update(novbench)
        config["judges"]["datasets"] = {}
        config.update(top or {})
        return write_yaml(tmp_path / name, config)

    return make


@pytest.fixture(scope="session")
def proxied_server(tmp_path_factory):
    """The real SmolLM2 llama.cpp server behind a proxy that records every call's request id."""
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    spec = load_registry(REPO / "config" / "models.yaml").model("smollm2-135m")
    with serve(spec, log_path, startup_timeout_s=120, threads=2) as endpoint:
        with RecordingProxy(endpoint.base_url) as proxy:
            yield proxy


def proxied_registry(tmp_path: Path, base_url: str) -> Path:
    """The registry plus an API model that reaches the local server through the proxy."""
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    registry["models"][PROXIED_MODEL] = {
        "engine": "api",
        "reference": "smollm2-135m",
        "base_url": base_url,
        "api_key_env": "NOVEVAL_TEST_KEY",
        "context_length": 8192,
        "price_per_million": {"input": 1.0, "output": 2.0},
    }
    return write_yaml(tmp_path / "models.yaml", registry)
