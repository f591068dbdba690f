"""The workflow's jobs for a config and targets, read without running Snakemake: its own DAG,
built through its API with no lock taken and no job started, so that it is safe beside a
running ``snakemake`` (the bundle's export and import and ``noveval status`` read it).

Snakemake's API builds a DAG only to run or print it; the two calls that build it alone
(``_prepare_dag``, ``_build_dag``) are private, the ones its own ``--summary`` and
``--list-untracked`` use. Nothing else gives every job with its rule, wildcards, params and
dependencies. Likewise the incomplete marks and the cluster's job ids recorded with them are read
through the persistence's private reads (``_get_key``, ``_filter_incomplete_keys``,
``_get_external_jobids``), which its public ``incomplete`` reaches only from a running job.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SNAKEFILE = Path("workflow") / "Snakefile"


@dataclass(frozen=True)
class PlannedJob:
    """One job of the DAG: its rule, wildcards, output files, named params, the jobs it reads
    from (indices into the list) and the times Snakemake recorded for its outputs, if any; its
    named inputs and log files; whether an output is marked incomplete (a job started and not
    finished: running, or killed) and the cluster's job ids recorded with that mark."""

    rule: str
    wildcards: dict[str, str]
    outputs: tuple[str, ...]
    params: dict
    depends_on: tuple[int, ...]
    started: float | None
    ended: float | None
    inputs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    logs: tuple[str, ...] = ()
    incomplete: bool = False
    external_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkflowDag:
    """The workflow's config as the Snakefile read it (schema defaults filled in), its jobs, the
    Snakefile's estimate of each inference batch's calls (``JOBS``, an
    ``noveval.cluster.resources.InferenceJobs``), and whether a lock of the working directory
    covers the jobs' files (a running Snakemake's, or one a killed run left)."""

    config: dict
    jobs: list[PlannedJob]
    inference_jobs: Any = None
    locked: bool = False


def workflow_dag(
    checkout: Path, configfiles: list[Path], targets: list[str], config: dict | None = None
) -> WorkflowDag:
    """Every job the ``targets`` need under ``configfiles`` (and ``config`` over them), in an
    order where each job comes after the jobs it reads from; jobs with no output (the target
    rules) left out."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
        StorageSettings,
    )

    with contextlib.redirect_stdout(io.StringIO()):
        with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
            workflow_api = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(
                    configfiles=[Path(path).resolve() for path in configfiles],
                    config=config or {},
                ),
                storage_settings=StorageSettings(),
                snakefile=checkout / SNAKEFILE,
                workdir=checkout,
            )
            workflow_api.dag(DAGSettings(targets=set(targets), forceall=True))
            workflow = workflow_api._workflow
            workflow._prepare_dag(
                forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True
            )
            workflow._build_dag()
            return WorkflowDag(
                config=dict(workflow.config),
                jobs=_records(workflow),
                inference_jobs=workflow.globals.get("JOBS"),
                locked=workflow.persistence.locked,
            )


def _records(workflow) -> list[PlannedJob]:
    dag = workflow.dag
    ordered = [job for level in dag.toposorted() for job in level if job.output]
    index = {job: position for position, job in enumerate(ordered)}
    persistence = workflow.persistence
    records = []
    for job in ordered:
        times = [persistence.metadata(path) for path in job.output]
        recorded = [record for record in times if record is not None]
        keys = [persistence._get_key(path) for path in job.output]
        records.append(
            PlannedJob(
                rule=job.rule.name,
                wildcards={key: str(value) for key, value in job.wildcards_dict.items()},
                outputs=tuple(str(path) for path in job.output),
                params=dict(job.params.items()),
                depends_on=tuple(
                    sorted(index[dep] for dep in dag.dependencies[job] if dep in index)
                ),
                started=min((r.starttime for r in recorded if r.starttime), default=None),
                ended=max((r.endtime for r in recorded if r.endtime), default=None),
                inputs={
                    name: (value,) if isinstance(value, str) else tuple(map(str, value))
                    for name, value in job.input.items()
                },
                logs=tuple(str(path) for path in job.log),
                incomplete=bool(persistence._filter_incomplete_keys(keys)),
                external_ids=tuple(sorted(persistence._get_external_jobids(keys))),
            )
        )
    return records
