"""Conda deployment: conda's version and room for the environments and pip's cache."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from noveval.cluster.preflight.findings import Finding, run_command, skipped
from noveval.cluster.preflight.grid import Grid
from noveval.cluster.resources import inference_env

# What each conda environment takes (GB): the environment's folder under the conda prefix, and
# the wheels pip keeps in its cache while building it. noveval.yaml: the test environment of this
# checkout (torch's CPU build) takes 2.3 GB, its conda environment with Python about 3. The vLLM
# environment: torch 2.14 on CUDA 13.0 with the CUDA libraries as wheels, FlashInfer and vLLM
# itself, an estimate from the wheels' sizes of such builds (not measured here).
ENV_SIZES_GB = {"noveval.yaml": (3.0, 1.0), "inference-vllm.yaml": (14.0, 6.0)}
ENVS_DIR = Path(__file__).resolve().parents[4] / "workflow" / "envs"


def conda_check(version_output: str) -> Finding:
    """``conda --version`` against the oldest conda Snakemake deploys environments with."""
    from packaging.version import InvalidVersion, Version
    from snakemake.deployment.conda import MIN_CONDA_VER

    said = version_output.strip()
    fix = "`conda update -n base conda` (docs/cluster.md#the-login-node)"
    try:
        version = Version(said.split()[-1])
    except (IndexError, InvalidVersion):
        return Finding("conda", False, f"no version in `conda --version`: {said!r}", fix=fix)
    need = f"Snakemake's conda deployment needs >= {MIN_CONDA_VER}"
    return Finding("conda", version >= Version(MIN_CONDA_VER), f"{version} ({need})", fix=fix)


def built(prefix: Path, env_file: Path) -> bool:
    """Whether Snakemake has built ``env_file`` under ``prefix`` (its copy ``<hash>.yaml`` of the
    file, with the ``<hash>.env_setup_done`` flag next to it)."""
    content = env_file.read_bytes()
    return any(
        copy.with_suffix(".env_setup_done").exists() and copy.read_bytes() == content
        for copy in prefix.glob("*.yaml")
    )


def _existing(path: Path) -> Path:
    return next(folder for folder in (path, *path.parents) if folder.exists())


def env_space_check(
    prefix: Path,
    pip_cache: Path | None,
    env_files: Iterable[Path],
    sizes: Mapping[str, tuple[float, float]] = ENV_SIZES_GB,
) -> Finding:
    """Room for the environments not built yet: their folders under the conda prefix and their
    wheels in pip's cache (None: caching is off), summed per file system."""
    to_build = [path for path in env_files if not built(prefix, path)]
    if not to_build:
        return Finding("environments space", True, f"every environment is built in {prefix}")
    wants = [(prefix, sum(sizes[path.name][0] for path in to_build))]
    if pip_cache is not None:
        wants.append((pip_cache, sum(sizes[path.name][1] for path in to_build)))
    needed: dict[int, float] = {}
    for folder, gb in wants:
        device = _existing(folder).stat().st_dev
        needed[device] = needed.get(device, 0.0) + gb
    parts, ok, fixes = [], True, []
    for folder, gb in wants:
        existing = _existing(folder)
        free_gb = shutil.disk_usage(existing).free / 1e9
        total = needed[existing.stat().st_dev]
        ok &= free_gb >= total
        parts.append(f"{folder}: {free_gb:,.0f} GB free, {gb:,.1f} GB to write")
        if free_gb < total:
            fixes.append(
                "`conda_prefix` in the site file on a larger file system"
                if folder == prefix
                else "`export PIP_CACHE_DIR=<a folder on a larger file system>`"
            )
    names = ", ".join(path.name for path in to_build)
    if len(needed) < len(wants):
        parts.append(f"one file system: {sum(gb for _, gb in wants):,.1f} GB in all")
    detail = f"{'; '.join(parts)}; for {names}"
    return Finding("environments space", ok, detail, fix=", or ".join(dict.fromkeys(fixes)))


def pip_cache_dir() -> Path | None:
    """The folder pip caches wheels in (its own answer; None: caching is off)."""
    ok, said = run_command([sys.executable, "-m", "pip", "cache", "dir"])
    return Path(said.strip()) if ok and said.strip() else None


def conda_checks(grid: Grid) -> list[Finding]:
    """conda's version, and room for the environments and pip's cache, under conda deployment."""
    if grid.conda_prefix is None:
        why = "the run deploys no conda environment (software-deployment-method)"
        return [skipped("conda", why), skipped("environments space", why)]
    ok, said = run_command(["conda", "--version"])
    from snakemake.deployment.conda import MIN_CONDA_VER

    fix = f"`conda` >= {MIN_CONDA_VER} on PATH (docs/cluster.md#the-login-node)"
    version = conda_check(said) if ok else Finding("conda", False, said, fix=fix)
    names = {"noveval.yaml", *(inference_env(spec) for spec in grid.specs)}
    env_files = [ENVS_DIR / name for name in sorted(names)]
    return [version, env_space_check(grid.conda_prefix, pip_cache_dir(), env_files)]
