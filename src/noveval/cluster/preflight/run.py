"""Rule preflight: every check in the order of the report, printed, failing when any failed."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from noveval.cluster.preflight.access import access_checks
from noveval.cluster.preflight.conda import conda_checks
from noveval.cluster.preflight.findings import Finding, run_command
from noveval.cluster.preflight.grid import Grid, site_file_path
from noveval.cluster.preflight.nodes import driver_checks, glibc_checks
from noveval.cluster.preflight.slurm import (
    job_limits_checks,
    site_file_check,
    slurm_checks,
    slurm_partitions,
)
from noveval.cluster.preflight.templates import chat_template_checks
from noveval.cluster.preflight.weights import hub_revision_checks, weights_checks
from noveval.core.registry import Registry


class PreflightError(RuntimeError):
    """At least one pre-flight finding is a failure."""


# Every check, in the order of the report: each takes the grid and gives its lines.
CHECKS = [
    slurm_checks,
    weights_checks,
    hub_revision_checks,
    chat_template_checks,
    access_checks,
    glibc_checks,
    conda_checks,
    driver_checks,
    job_limits_checks,
]


def checks(
    config: dict,
    registry: Registry,
    models: Iterable[str],
    env: Mapping[str, str],
    conda_prefix: str | Path | None = None,
    planned_jobs: Iterable = (),
    not_runnable: Mapping | None = None,
    configfiles: Iterable[str] = (),
) -> list[Finding]:
    """Every check of the grid's ``models`` (the registry's names) under ``config``;
    ``conda_prefix``: where Snakemake builds conda environments (None: no conda deployment);
    ``planned_jobs``: every inference job's resources (``noveval.cluster.resources.PlannedJob``);
    ``not_runnable``: the judges whose cells the grid skips (``JudgesGrid.not_runnable``);
    ``configfiles``: the run's config files, in the commands the findings name."""
    site_path = site_file_path(env)
    site_line, site = site_file_check(site_path)
    ok, output = run_command(["sinfo", "--noheader", "--format=%R %G"])
    grid = Grid(
        config=config,
        registry=registry,
        models=sorted(models),
        env=env,
        site_path=site_path,
        site=site,
        partitions=slurm_partitions(output) if ok else None,
        sinfo_error="" if ok else output,
        conda_prefix=Path(conda_prefix) if conda_prefix else None,
        planned_jobs=tuple(planned_jobs),
        not_runnable=dict(not_runnable or {}),
        configfiles=tuple(str(path) for path in configfiles),
    )
    return [site_line, *(line for check in CHECKS for line in check(grid))]


def preflight(
    config: dict,
    registry: Registry,
    models: Iterable[str],
    log_path: str | Path | None = None,
    conda_prefix: str | Path | None = None,
    planned_jobs: Iterable = (),
    not_runnable: Mapping | None = None,
    configfiles: Iterable[str] = (),
) -> None:
    """Rule preflight: print every finding (and write them to ``log_path``), then fail when any
    failed. ``conda_prefix``: where Snakemake builds conda environments (None: no conda
    deployment); ``planned_jobs``: every inference job's resources; ``configfiles``: the run's."""
    found = checks(
        config, registry, models, os.environ, conda_prefix, planned_jobs, not_runnable, configfiles
    )
    lines = [finding.line() for finding in found]
    print("\n".join(lines), flush=True)
    failed = [finding.name for finding in found if finding.ok is False]
    verdict = (
        f"pre-flight: {len(failed)} failed ({', '.join(failed)})"
        if failed
        else f"pre-flight: all {len(found)} findings passed"
    )
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        Path(log_path).write_text("\n".join([*lines, verdict]) + "\n", encoding="utf-8")
    if failed:
        print(verdict, file=sys.stderr)
        raise PreflightError(f"{len(failed)} pre-flight findings failed: {', '.join(failed)}")
    print(verdict, flush=True)
