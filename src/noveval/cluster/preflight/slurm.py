"""The site file and SLURM: its partitions, their GPU types and limits, and job steps on them."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from noveval.cluster.preflight.findings import Finding, run_command, skipped
from noveval.cluster.preflight.grid import Grid, site_gpu_type
from noveval.cluster.resources import gpus
from noveval.core.site import SITE_FILE_VARIABLE, check_site
from noveval.core.yaml_files import load_yaml

GPU_WAIT_S = 60  # how long the driver check waits for a GPU node (srun --immediate)
SINFO_FIX = "`export SLURM_CONF=<the cluster's slurm.conf>`, so that `sinfo` answers on this host"


def site_file_check(path: str | Path) -> tuple[Finding, dict]:
    """The site file: readable YAML of the site file's keys with a ``partitions`` table (and its
    settings)."""
    try:
        site = load_yaml(Path(path).read_text()) or {}
    except OSError as error:
        fix = f"write {path} (README step 2), or `export {SITE_FILE_VARIABLE}=<your site file>`"
        return Finding("site file", False, f"{path}: {error.strerror}", fix=fix), {}
    except yaml.YAMLError as error:
        fix = f"correct the YAML of `{path}` where the error says"
        return Finding("site file", False, f"{path}: {error}", fix=fix), {}
    if not isinstance(site, dict) or not isinstance(site.get("partitions"), dict):
        fix = f"`partitions:` in {path}, each partition with its `max_gpu` and `max_runtime`"
        return Finding("site file", False, f"{path}: no `partitions` table", fix=fix), {}
    try:
        check_site(site, Path(path))
    except ValueError as error:
        fix = f"correct the key it names in `{path}` (docs/cluster.md#site-settings)"
        return Finding("site file", False, str(error), fix=fix), {}
    return Finding("site file", True, f"{path} ({len(site['partitions'])} partitions)"), site


def gres_types(gres: str) -> set[str]:
    """GPU types of a SLURM GRES string (``gpu:a100:2(S:0),gpu:h100:4`` -> {a100, h100})."""
    return {match for match in re.findall(r"gpu:([^:,()\s]+):\d+", gres)}


def slurm_partitions(sinfo_output: str) -> dict[str, set[str]]:
    """Partitions and their GPU types from ``sinfo --noheader --format='%R %G'``."""
    partitions: dict[str, set[str]] = {}
    for line in sinfo_output.splitlines():
        if line.strip():
            name, _, gres = line.strip().partition(" ")
            partitions.setdefault(name, set()).update(gres_types(gres))
    return partitions


def partition_checks(site: dict, known: dict[str, set[str]], needed_gpu_types: set[str]) -> list:
    """The site's partitions exist in SLURM, offer the GPU types the site file claims, and
    between them offer every GPU type the grid's jobs ask for."""
    partitions = site.get("partitions") or {}
    missing = sorted(set(partitions) - set(known))
    names = Finding(
        "partitions",
        not missing,
        f"not known to SLURM: {', '.join(missing)} (it has: {', '.join(sorted(known))})"
        if missing
        else f"{', '.join(sorted(partitions))} known to SLURM",
        fix=f"rename `partitions: {missing[0]}` in the site file to a partition `sinfo` lists"
        if missing
        else "",
    )
    problems, fixes = [], []
    for name, settings in sorted(partitions.items()):
        claimed = set((settings or {}).get("available_gpu_models") or ())
        if name in known and claimed - known[name]:
            problems.append(
                f"{name} offers {', '.join(sorted(known[name])) or 'no GPU'} in SLURM, not "
                f"{', '.join(sorted(claimed - known[name]))}"
            )
            offered = ", ".join(sorted(known[name]))
            fixes.append(f"`partitions: {name}: available_gpu_models: [{offered}]`")
    offered = {
        gpu
        for settings in partitions.values()
        for gpu in (settings or {}).get("available_gpu_models") or ()
    }
    if needed_gpu_types - offered:
        lacking = sorted(needed_gpu_types - offered)
        problems.append(
            f"no partition of the site file offers {', '.join(lacking)} (asked for by the grid's "
            "models)"
        )
        fixes.append(
            f"`gpu_types: {{{lacking[0]}: <a GRES type sinfo lists>}}` or a partition's "
            "`available_gpu_models` naming it"
        )
    needed = ", ".join(sorted(needed_gpu_types)) or "none"
    types = Finding(
        "GPU types",
        not problems,
        "; ".join(problems) if problems else f"grid needs {needed}; SLURM offers them",
        fix=f"in the site file, {'; '.join(fixes)}" if fixes else "",
    )
    return [names, types]


@dataclass(frozen=True)
class PartitionLimits:
    """What one SLURM partition's nodes offer (``sinfo``): time limit, GPUs by type, memory."""

    max_minutes: float
    gpus: dict[str, int]  # GRES type ("" untyped) -> GPUs per node
    mem_mb: int


def slurm_minutes(limit: str) -> float:
    """Minutes of a SLURM time limit as sinfo prints it ([days-]hours:minutes:seconds, or
    minutes:seconds; ``infinite``)."""
    if limit in ("infinite", "UNLIMITED", "n/a"):
        return math.inf
    days, _, clock = limit.rpartition("-")
    parts = [int(part) for part in clock.split(":")]
    if len(parts) == 1:  # minutes alone
        parts = [0, parts[0], 0]
    hours, minutes, seconds = [0] * (3 - len(parts)) + parts
    return int(days or 0) * 1440 + hours * 60 + minutes + seconds / 60


def partition_limits(sinfo_output: str) -> dict[str, PartitionLimits]:
    """Partitions from ``sinfo --noheader --format='%R %l %G %m'`` (one line per node group;
    a partition keeps the most of each)."""
    found: dict[str, PartitionLimits] = {}
    for line in sinfo_output.splitlines():
        if not line.strip():
            continue
        name, limit, gres, memory = line.split()
        gpus = {}
        for match in re.finditer(r"gpu(?::([^:,()\s]+))?:(\d+)", gres):
            gpus[match.group(1) or ""] = int(match.group(2))
        seen = found.get(name, PartitionLimits(0, {}, 0))
        found[name] = PartitionLimits(
            max(seen.max_minutes, slurm_minutes(limit)),
            {t: max(n, seen.gpus.get(t, 0)) for t, n in {**seen.gpus, **gpus}.items()},
            max(seen.mem_mb, int(re.sub(r"\D", "", memory) or 0)),
        )
    return found


def fits(job, partition: PartitionLimits) -> bool:
    """Whether a planned job (``noveval.cluster.resources.PlannedJob``) fits a partition's nodes."""
    offered = (
        sum(partition.gpus.values())
        if not job.gpu_type
        else max(partition.gpus.get(job.gpu_type, 0), partition.gpus.get("", 0))
    )
    return (
        job.runtime <= partition.max_minutes
        and job.mem_mb <= partition.mem_mb
        and job.gpus <= offered
    )


def misfit_fix(job, usable: dict[str, PartitionLimits], site: dict) -> str:
    """What makes a job that fits no partition fit: where a partition has its GPUs and memory,
    the site file's time limit of it set to SLURM's (jobs are then split to fit) or a shorter
    start; else less memory, or a partition with its GPUs."""
    model = job.name.split("/")[2] if job.name.count("/") >= 2 else "the job's model"
    roomy = {
        name: limits
        for name, limits in sorted(usable.items())
        if fits(replace(job, runtime=0), limits)
    }
    if roomy:
        settings = site.get("partitions") or {}
        for name, limits in roomy.items():
            claimed = (settings.get(name) or {}).get("max_runtime") or math.inf
            if float(claimed) > limits.max_minutes:
                return f"`partitions: {name}: max_runtime: {limits.max_minutes:g}` in the site file"
        return (
            "`snakemake pilot` with the same config files (its measured start and throughput "
            "replace the estimates), or a lower `plan.startup_min` in the config"
        )
    if all(job.mem_mb > limits.mem_mb for limits in usable.values()):
        return f"a lower `mem_mb` of {model} in the registry (config/models.yaml)"
    gpus = f"{job.gpus} x {job.gpu_type or 'GPU'}"
    return f"a partition of nodes with {gpus} under `partitions` in the site file (`max_gpu`)"


def job_limits_check(jobs: list, partitions: dict[str, PartitionLimits], site: dict) -> Finding:
    """Every planned inference job fits one of the site file's partitions as SLURM reports them
    (time limit, GPUs of its type per node, memory); the jobs that fit none are named, and what
    makes the first fit."""
    named = set(site.get("partitions") or ()) & set(partitions) or set(partitions)
    usable = [partitions[name] for name in sorted(named)]
    misfits = [job for job in jobs if not any(fits(job, p) for p in usable)]
    if not misfits:
        longest = max((job.runtime for job in jobs), default=0)
        return Finding(
            "job limits",
            True,
            f"all {len(jobs)} inference jobs fit a partition (longest {longest} min)",
        )
    names = "; ".join(
        f"{job.name} ({job.runtime} min, {job.gpus} x {job.gpu_type or 'GPU'}, {job.mem_mb} MB)"
        if job.gpus
        else f"{job.name} ({job.runtime} min, {job.mem_mb} MB)"
        for job in misfits
    )
    limits = ", ".join(f"{name} {partitions[name].max_minutes:g} min" for name in sorted(named))
    return Finding(
        "job limits",
        False,
        f"{len(misfits)} of {len(jobs)} inference jobs fit no partition ({limits}): {names}",
        fix=misfit_fix(misfits[0], {name: partitions[name] for name in named}, site),
    )


def job_step(site: dict, partition: str) -> list[str]:
    """``srun`` of a short one-task step on ``partition`` with the site's account and QoS."""
    step = ["srun", f"--partition={partition}", "--ntasks=1", "--time=2"]
    step += [f"--account={site['account']}"] if site.get("account") else []
    step += [f"--qos={site['qos']}"] if site.get("qos") else []
    return [*step, f"--immediate={GPU_WAIT_S}"]


def slurm_checks(grid: Grid) -> list[Finding]:
    """The site's partitions and GPU types as SLURM knows them."""
    if grid.partitions is None:
        if grid.sinfo_error == "sinfo not found":
            return [skipped("partitions", "no SLURM on this host (sinfo not found)")]
        return [Finding("partitions", False, f"sinfo failed: {grid.sinfo_error}", fix=SINFO_FIX)]
    needed = {site_gpu_type(grid.site, spec) for spec in grid.specs if gpus(spec)} - {""}
    return partition_checks(grid.site, grid.partitions, needed)


def job_limits_checks(grid: Grid) -> list[Finding]:
    """Every planned inference job against the partitions as ``sinfo`` reports them."""
    if not grid.planned_jobs:
        return []
    if grid.partitions is None:
        return [skipped("job limits", f"no partitions from SLURM here ({grid.sinfo_error})")]
    ok, output = run_command(["sinfo", "--noheader", "--format=%R %l %G %m"])
    if not ok:
        return [Finding("job limits", False, f"sinfo failed: {output}", fix=SINFO_FIX)]
    return [job_limits_check(list(grid.planned_jobs), partition_limits(output), grid.site)]
