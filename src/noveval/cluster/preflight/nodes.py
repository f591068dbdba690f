"""The GPU nodes: glibc where vLLM runs and the NVIDIA driver, from a job step on each GPU type."""

from __future__ import annotations

import os
import re
import shutil

from noveval.cluster.preflight.findings import (
    Finding,
    run_command,
    skipped,
    version_numbers,
    warning,
)
from noveval.cluster.preflight.grid import Grid, site_gpu_type
from noveval.cluster.preflight.slurm import job_step
from noveval.cluster.resources import gpus
from noveval.core.registry import ModelSpec

# vLLM 0.33.0 (workflow/envs/inference-vllm.yaml) runs torch 2.14.0 built on CUDA 13.0, which
# needs an NVIDIA driver of the R580 branch or newer: 580.65.06 is CUDA 13.0's minimum.
MIN_DRIVER = "580.65.06"

# vLLM 0.33's structured-output backend llguidance ships manylinux_2_31 wheels only: pip cannot
# install it (no wheel, and a Rust build from source) and the nodes cannot load it below 2.31.
MIN_GLIBC = "2.31"


def nodes_fix(what: str) -> str:
    """What resolves GPU nodes without ``what``: the site file sending the jobs to others."""
    return (
        f"a GPU partition of nodes with {what} under the site file's `partitions` (or their node "
        "features under `constraints`)"
    )


BUSY = re.compile(r"nodes are busy|can ?not start immediately|gave no answer", re.IGNORECASE)


def glibc_check(reported: str, where: str) -> Finding:
    """The C library version a host reports (``glibc 2.28``) against vLLM's wheels' minimum."""
    name = f"glibc ({where})"
    fix = (
        f"submit from a login node with glibc >= {MIN_GLIBC} (`getconf GNU_LIBC_VERSION`)"
        if where == "this host"
        else nodes_fix(f"glibc >= {MIN_GLIBC}")
    )
    found = re.search(r"(\d+\.\d+)", reported or "")
    if not found:
        return Finding(name, False, f"no glibc version in {reported.strip()!r}", fix=fix)
    ok = version_numbers(found.group(1)) >= version_numbers(MIN_GLIBC)
    need = f"vLLM 0.33's llguidance wheels need glibc >= {MIN_GLIBC}"
    return Finding(name, ok, f"{found.group(1)} ({need})", fix=fix)


def driver_check(nvidia_smi_output: str, where: str) -> Finding:
    """The lowest driver version that ``nvidia-smi --query-gpu=driver_version`` reports."""
    name = f"NVIDIA driver ({where})"
    fix = (
        f"an NVIDIA driver >= {MIN_DRIVER} on this host (`nvidia-smi` shows it)"
        if where == "this host"
        else nodes_fix(f"a driver >= {MIN_DRIVER}")
    )
    versions = [line.strip() for line in nvidia_smi_output.splitlines() if line.strip()]
    if not versions:
        return Finding(name, False, "nvidia-smi reported no GPU", fix=fix)
    lowest = min(versions, key=version_numbers)
    ok = version_numbers(lowest) >= version_numbers(MIN_DRIVER)
    return Finding(name, ok, f"{lowest} (vLLM's CUDA 13.0 needs >= {MIN_DRIVER})", fix=fix)


def node_command(site: dict, partition: str, gpu_type: str, command: list[str]) -> list[str]:
    """``command`` as a one-GPU job step on ``partition`` with the site's account and QoS,
    waiting at most GPU_WAIT_S for a node."""
    gres = f"gpu:{gpu_type}:1" if gpu_type else "gpu:1"
    return [*job_step(site, partition), f"--gres={gres}", *command]


def node_check(
    what: str, where: str, partition: str, answer: tuple[bool, str], parse, step: list[str] = ()
) -> Finding:
    """A job step's ``answer`` (run_command's to ``step``): ``parse(output, where)`` when it ran,
    a warning when the partition had no free node in time (busy), else a failure with SLURM's
    reason (or the node's, when the step's command is not there)."""
    ok, output = answer
    if ok:
        return parse(output, where)
    if BUSY.search(output):
        again = "`snakemake preflight` again, with the same config files, when a node is free"
        return warning(f"{what} ({where})", f"partition {partition} is busy: {output}", again)
    gres = [index for index, arg in enumerate(step) if arg.startswith("--gres=")]
    program = step[gres[0] + 1] if gres and len(step) > gres[0] + 1 else ""
    if program and re.search(r"execve|No such file|not found", output):
        fix = f"`{program}` on the PATH of partition {partition}'s nodes (a job step's PATH)"
    else:
        shown = f" (`{' '.join(step)}` repeats the step)" if step else ""
        fix = f"the site file's `account`, `qos` and `partitions: {partition}` as SLURM takes them"
        fix += shown
    return Finding(f"{what} ({where})", False, f"partition {partition}: {output}", fix=fix)


def on_gpu_nodes(grid: Grid, specs: list[ModelSpec], command: list[str], parse, what: str):
    """``command`` on a node of each GPU type of ``specs``, as :func:`node_check` reads it."""
    found = []
    for gpu_type in sorted({site_gpu_type(grid.site, spec) for spec in specs if gpus(spec)}):
        where = f"{gpu_type or 'GPU'} nodes"
        partition = driver_partition(grid.site, gpu_type)
        if partition is None:
            fix = f"a partition with `max_gpu` and `available_gpu_models: [{gpu_type}]`"
            fix += " in the site file"
            found.append(
                Finding(f"{what} ({where})", False, "no partition of the site file", fix=fix)
            )
            continue
        step = node_command(grid.site, partition, gpu_type, command)
        found.append(node_check(what, where, partition, run_command(step), parse, step))
    return found


def glibc_checks(grid: Grid) -> list[Finding]:
    """glibc where vLLM is installed (this host builds the environments) and where it runs."""
    if not grid.served:
        return [skipped("glibc", "no vLLM model in the grid")]
    found = [glibc_check(os.confstr("CS_GNU_LIBC_VERSION") or "", "this host")]
    if grid.partitions is None:
        return found
    return found + on_gpu_nodes(
        grid, grid.served, ["getconf", "GNU_LIBC_VERSION"], glibc_check, "glibc"
    )


def driver_checks(grid: Grid) -> list[Finding]:
    """The NVIDIA driver of each GPU type of the grid (a job step on its partition), or of this
    host without SLURM."""
    if not any(gpus(spec) for spec in grid.specs):
        return [skipped("NVIDIA driver", "no GPU job in the grid")]
    query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
    if grid.partitions is not None:
        return on_gpu_nodes(grid, grid.specs, query, driver_check, "NVIDIA driver")
    if not shutil.which("nvidia-smi"):
        return [skipped("NVIDIA driver", "no SLURM and no nvidia-smi on this host")]
    ok, output = run_command(query)
    where = "this host"
    fix = f"`{' '.join(query)}` answering on this host (the NVIDIA driver installed)"
    return [
        driver_check(output, where)
        if ok
        else Finding(f"NVIDIA driver ({where})", False, output, fix=fix)
    ]


def driver_partition(site: dict, gpu_type: str) -> str | None:
    """A partition of the site file with GPUs of ``gpu_type`` (any GPU partition for "")."""
    offering = [
        name
        for name, settings in sorted((site.get("partitions") or {}).items())
        if (settings or {}).get("max_gpu")
        and (not gpu_type or gpu_type in ((settings or {}).get("available_gpu_models") or ()))
    ]
    return offering[0] if offering else None
