"""A results bundle as a Workflow Run RO-Crate (profile 0.6, RO-Crate 1.3), zipped: the
Snakefile as the main entity, one ``CreateAction`` for the run and one per job (its rule as the
instrument, its wildcards, code version and normalised params as a ``PropertyValue``, its times,
its files as results), and every file with its SHA-256. Written with the ``rocrate`` library;
read back with ``zipfile`` and ``json`` alone, so that the import needs neither.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

RESULTS_PREFIX = "results/"  # where the results folder's files sit in the crate
METADATA = "ro-crate-metadata.json"
PROFILES = {
    "process": "https://w3id.org/ro/wfrun/process/0.6",
    "workflow": "https://w3id.org/ro/wfrun/workflow/0.6",
    "workflow-ro-crate": "https://w3id.org/workflowhub/workflow-ro-crate/1.1",
}
RULE_URL = "workflow/Snakefile"  # a rule's entity points at the workflow that defines it
JOB_RECORD = "noveval job"  # the PropertyValue name of a job's rule, wildcards, code and params
RUN_RECORD = "noveval run"  # the PropertyValue name of the run's provenance


class BundleError(ValueError):
    """A bundle that cannot be trusted: corrupt, truncated, or a file whose digest differs."""


@dataclass(frozen=True, eq=False)
class BundledJob:
    """One job as the bundle records it (one object per job: compared by identity)."""

    rule: str
    wildcards: dict
    code: str | None
    params_hash: str
    params: dict
    files: tuple[str, ...]  # paths relative to the results folder


@dataclass(frozen=True)
class BundledFile:
    path: str  # relative to the results folder
    sha256: str
    size: int


@dataclass(frozen=True)
class Manifest:
    files: dict[str, BundledFile]
    jobs: list[BundledJob]
    run: dict  # version, commit, dirty, models, config, targets

    def job_of(self) -> dict[str, BundledJob]:
        """The job that made each file."""
        return {path: job for job in self.jobs for path in job.files}


def write_crate(
    out: Path,
    checkout: Path,
    results: Path,
    files: dict[str, str],
    jobs: list[dict],
    run: dict,
    license: dict,
) -> None:
    """Write the zipped crate ``out``: ``files`` (results-relative path -> SHA-256), ``jobs``
    (rule, wildcards, code, params_hash, params, files, started, ended), the run's provenance
    ``run`` and the ``license`` entity of the whole."""
    from importlib.metadata import version

    from rocrate.model.contextentity import ContextEntity
    from rocrate.model.softwareapplication import SoftwareApplication
    from rocrate.rocrate import ROCrate

    snakemake_version = version("snakemake")
    crate = ROCrate()
    crate.root_dataset["name"] = "noveval results bundle"
    crate.root_dataset["description"] = (
        "Outputs of a noveval run with what made them: each file's digest and job, each job's "
        "rule, wildcards, code version and params; `noveval bundle import` rebuilds tables and "
        "figures from them without a model job."
    )
    crate.root_dataset["datePublished"] = datetime.now(UTC).isoformat(timespec="seconds")
    crate.root_dataset["conformsTo"] = [{"@id": profile} for profile in PROFILES.values()]
    for name, profile in PROFILES.items():
        crate.add(
            ContextEntity(
                crate, profile, properties={"@type": ["CreativeWork", "Profile"], "name": name}
            )
        )
    crate.root_dataset["license"] = crate.add(
        ContextEntity(crate, license["@id"], properties=license)
    )
    workflow = crate.add_workflow(
        checkout / "workflow" / "Snakefile",
        "workflow/Snakefile",
        main=True,
        lang="snakemake",
        lang_version=snakemake_version,
        properties={"name": "noveval", "version": run["commit"] or run["version"]},
    )
    entities = {
        path: crate.add_file(
            results / path,
            RESULTS_PREFIX + path,
            properties={"sha256": digest, "contentSize": str((results / path).stat().st_size)},
        )
        for path, digest in sorted(files.items())
    }
    rules = {}
    for number, job in enumerate(jobs):
        rule = job["rule"]
        if rule not in rules:
            rules[rule] = crate.add(
                SoftwareApplication(
                    crate,
                    f"#rule-{rule}",
                    properties={
                        "name": f"rule {rule}",
                        "url": f"{RULE_URL}#{rule}",
                        "version": job["code"] or run["version"],
                    },
                )
            )
        record = crate.add(
            ContextEntity(
                crate,
                f"#job-{number}-record",
                properties={
                    "@type": "PropertyValue",
                    "name": JOB_RECORD,
                    "value": json.dumps(
                        {key: job[key] for key in ("rule", "wildcards", "code", "params_hash")}
                        | {"params": job["params"]},
                        sort_keys=True,
                    ),
                },
            )
        )
        wildcards = " ".join(f"{key}={value}" for key, value in sorted(job["wildcards"].items()))
        crate.add_action(
            rules[rule],
            identifier=f"#job-{number}",
            object=[record],
            result=[entities[path] for path in job["files"] if path in entities],
            properties={"name": f"{rule} {wildcards}".strip(), **_times(job)},
        )
    provenance = crate.add(
        ContextEntity(
            crate,
            "#run-record",
            properties={
                "@type": "PropertyValue",
                "name": RUN_RECORD,
                "value": json.dumps(run, sort_keys=True),
            },
        )
    )
    action = crate.add_action(
        workflow,
        identifier="#run",
        object=[provenance],
        result=list(entities.values()),
        properties={"name": "noveval run", **_times(_span(jobs))},
    )
    crate.root_dataset["mentions"] = [action]
    crate.write_zip(out)


def _times(job: dict) -> dict:
    return {
        key: datetime.fromtimestamp(job[field], UTC).isoformat(timespec="seconds")
        for key, field in (("startTime", "started"), ("endTime", "ended"))
        if job.get(field)
    }


def _span(jobs: list[dict]) -> dict:
    started = [job["started"] for job in jobs if job.get("started")]
    ended = [job["ended"] for job in jobs if job.get("ended")]
    return {"started": min(started, default=None), "ended": max(ended, default=None)}


def read_manifest(bundle: Path) -> Manifest:
    """The bundle's manifest, every file's digest checked: a corrupt or truncated bundle, a
    missing file or one whose digest differs raises BundleError naming it."""
    try:
        with zipfile.ZipFile(bundle) as archive:
            graph = _graph(bundle, archive)
            files = _files(graph)
            for path, entry in files.items():
                _check(bundle, archive, path, entry)
    except (zipfile.BadZipFile, EOFError, OSError) as error:
        raise BundleError(f"{bundle}: not a readable bundle ({error})") from error
    return Manifest(files=files, jobs=_jobs(graph), run=_run(graph))


def _graph(bundle: Path, archive: zipfile.ZipFile) -> dict[str, dict]:
    try:
        metadata = json.loads(archive.read(METADATA))
        return {entity["@id"]: entity for entity in metadata["@graph"]}
    except (KeyError, ValueError, zipfile.BadZipFile) as error:
        raise BundleError(f"{bundle}: {METADATA} unreadable ({error})") from error


def _files(graph: dict[str, dict]) -> dict[str, BundledFile]:
    return {
        key.removeprefix(RESULTS_PREFIX): BundledFile(
            key.removeprefix(RESULTS_PREFIX), entity["sha256"], int(entity["contentSize"])
        )
        for key, entity in graph.items()
        if key.startswith(RESULTS_PREFIX) and "sha256" in entity
    }


def _check(bundle: Path, archive: zipfile.ZipFile, path: str, entry: BundledFile) -> None:
    name = RESULTS_PREFIX + path
    digest = hashlib.sha256()
    try:
        with archive.open(name) as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    except KeyError as error:
        raise BundleError(f"{bundle}: {name} is listed but missing") from error
    except (zipfile.BadZipFile, EOFError, OSError) as error:
        raise BundleError(f"{bundle}: {name} is corrupt ({error})") from error
    if digest.hexdigest() != entry.sha256:
        raise BundleError(f"{bundle}: {name} differs from its recorded SHA-256 (corrupt bundle)")


def _jobs(graph: dict[str, dict]) -> list[BundledJob]:
    jobs = []
    for entity in graph.values():
        if entity.get("@type") != "CreateAction" or entity["@id"] == "#run":
            continue
        (record,) = (graph[ref["@id"]] for ref in _listed(entity.get("object")))
        value = json.loads(record["value"])
        jobs.append(
            BundledJob(
                rule=value["rule"],
                wildcards=value["wildcards"],
                code=value["code"],
                params_hash=value["params_hash"],
                params=value["params"],
                files=tuple(
                    ref["@id"].removeprefix(RESULTS_PREFIX) for ref in _listed(entity.get("result"))
                ),
            )
        )
    return jobs


def _run(graph: dict[str, dict]) -> dict:
    return json.loads(graph["#run-record"]["value"])


def _listed(value) -> list:
    return value if isinstance(value, list) else [] if value is None else [value]
