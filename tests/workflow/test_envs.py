"""The cluster's conda environments (envs/*.yaml), as Snakemake's --sdm conda builds them.

Snakemake copies an env file to <conda prefix>/<hash>.yaml and conda runs its pip section from
there, so the files hold no path; envs/<name>.post-deploy.sh installs the package from the
checkout. There is no conda here: tests/conda/bin/conda stands in for it (Snakemake's questions,
and `env create` as a venv plus conda's own pip step), everything else is Snakemake's own code.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from importlib.metadata import distribution
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, run_snakemake, snakemake_env
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.workflow

ENVS = REPO / "workflow" / "envs"
STAND_IN = REPO / "tests" / "conda" / "bin"
# The one pin of the vLLM environment that is not the test environment's (see its header).
VLLM_ENV_OWN = {"numpy": "2.3.5"}


def pip_pins(env_file: Path) -> dict[str, str]:
    """``name==version`` lines of an env file's pip section (options such as an index left out)."""
    spec = yaml.safe_load(env_file.read_text())
    (section,) = [entry["pip"] for entry in spec["dependencies"] if isinstance(entry, dict)]
    pins = {}
    for line in section:
        if line.startswith("--"):
            assert line.startswith("--extra-index-url "), line  # no path, no editable install
            continue
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def versions_under_test(extras: tuple[str, ...] = ()) -> dict[str, str]:
    """The package's dependencies (with ``extras``), all the way down, at the versions this
    test environment has installed."""
    versions: dict[str, str] = {}
    walked: set[tuple[str, str]] = set()

    def walk(name: str, extras: tuple[str, ...]) -> None:
        dist = distribution(name)
        key = canonicalize_name(dist.metadata["Name"])
        versions[key] = dist.version
        for extra in extras or ("",):
            if (key, extra) in walked:
                continue
            walked.add((key, extra))
            for line in dist.requires or []:
                requirement = Requirement(line)
                if not requirement.marker or requirement.marker.evaluate({"extra": extra}):
                    walk(requirement.name, tuple(requirement.extras))

    walk("noveval", extras)
    del versions["noveval"]
    return versions


def test_cpu_env_pins_every_dependency_at_the_tested_version():
    assert pip_pins(ENVS / "noveval.yaml") == versions_under_test(("cluster",))


def test_vllm_env_pins_the_package_dependencies_at_the_versions_under_test():
    pins = pip_pins(ENVS / "inference-vllm.yaml")
    assert pins["vllm"] == "0.33.0" and pins["torch"] == "2.14.0"
    expected = {**versions_under_test(), **VLLM_ENV_OWN}
    assert {name: pins.get(name) for name in expected} == expected


def test_both_envs_install_the_package_with_one_post_deploy_script():
    script = (ENVS / "noveval.post-deploy.sh").read_text()
    assert (ENVS / "inference-vllm.post-deploy.sh").read_text() == script
    assert "pip install --no-deps --no-build-isolation --editable ." in script


def stand_in_env(**extra: str) -> dict:
    """Snakemake's environment with the conda stand-in first on PATH; pip offline, so every
    pin must be what this test environment has."""
    env = snakemake_env(PIP_NO_INDEX="1", **extra)
    return {**env, "PATH": f"{STAND_IN}:{env['PATH']}"}


def test_cpu_env_builds_where_snakemake_copies_it_and_a_job_imports_the_package(
    tmp_path, tiny_config
):
    config = tiny_config()
    conda_prefix = tmp_path / "conda"
    papers = tmp_path / "results" / "novbench" / "sample" / "papers.parquet"
    ours = distribution("noveval").locate_file("")
    run = run_snakemake(
        str(papers),
        "--sdm",
        "conda",
        "--conda-prefix",
        str(conda_prefix),
        "--cores",
        "1",
        "--configfile",
        str(config),
        env=stand_in_env(),
    )

    # Snakemake copied the env file and the post-deploy script beside the environment, under
    # the hash of its prefix and both texts, and ran the job in it.
    (copy,) = conda_prefix.glob("*.yaml")
    prefix = copy.with_suffix("")
    assert copy.read_text() == (ENVS / "noveval.yaml").read_text()
    script = (ENVS / "noveval.post-deploy.sh").read_bytes()
    assert prefix.with_suffix(".post-deploy.sh").read_bytes() == script
    digest = hashlib.md5(
        str(conda_prefix.resolve()).encode() + script + copy.read_bytes(), usedforsecurity=False
    )
    assert prefix.name.rstrip("_") == digest.hexdigest()
    assert prefix.with_suffix(".env_setup_done").exists()
    assert f"Activating conda environment: {os.path.relpath(prefix, REPO)}" in run.stderr
    assert len(pd.read_parquet(papers)) == 7

    # The environment's own interpreter imports the package from its own install (the checkout,
    # editable), and the test environment's install is untouched.
    where = subprocess.run(
        [
            prefix / "bin" / "python",
            "-c",
            "import importlib.metadata as m, noveval; "
            "print(m.distribution('noveval').locate_file('')); print(noveval.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert Path(where[0]).is_relative_to(prefix)
    assert where[1] == str(REPO / "src" / "noveval" / "__init__.py")
    assert distribution("noveval").locate_file("") == ours


def test_dry_run_with_sdm_conda_lists_both_environments(tmp_path, tiny_config):
    config = tiny_config(
        models=["smollm2-135m", "qwen3-8b"], strategies=["zero"], perturbations=["none"]
    )
    command = ["-n", "--profile", "profiles/slurm", "--sdm", "conda", "--configfile", str(config)]
    command += ["--conda-prefix", str(tmp_path / "conda")]
    # Even a dry run needs conda (Snakemake asks it for its platform): the stand-in answers.
    listed = run_snakemake(*command, env=stand_in_env())
    listed = listed.stdout + listed.stderr
    for env_file in ("workflow/envs/noveval.yaml", "workflow/envs/inference-vllm.yaml"):
        assert f"Conda environment {env_file} will be created." in listed


def test_the_slurm_profile_deploys_the_conda_environments(paper_grid):
    """The shipped site file's software_deployment: conda gives the SLURM profile --sdm conda:
    the paper grid's dry run lists both environments."""
    for env_file in ("workflow/envs/noveval.yaml", "workflow/envs/inference-vllm.yaml"):
        assert f"Conda environment {env_file} will be created." in paper_grid.dry_run
