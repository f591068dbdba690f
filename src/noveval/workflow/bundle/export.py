"""Export: every output of the configured targets' jobs, with what made it, into
``results/bundle.zip`` (never weights, server caches or logs; the call journals on request)."""

from __future__ import annotations

import logging
import os
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from noveval.core.provenance import canonical
from noveval.core.registry import load_registry
from noveval.inference.weights import lock_path, read_lock
from noveval.workflow.bundle.crate import write_crate
from noveval.workflow.bundle.fingerprint import Places, file_sha256, fingerprint, normalised
from noveval.workflow.dag import PlannedJob, workflow_dag

log = logging.getLogger(__name__)

LEFT_OUT = ("logs", "cache")  # results' folders no job output lives in (journals: on request)
JOURNALS = ("cache/*/*.jsonl", "cache/ledger/**/*.json", "pilot/cache/*/*.jsonl")


# The licence entity when the config names none.
SOURCES_TERMS = {
    "@id": "#terms-of-the-sources",
    "@type": "CreativeWork",
    "name": "Terms of the sources",
    "description": "No single licence: each file keeps the terms of the data it derives from "
    "(the papers' datasets and reviews) and of the models that wrote it; see the project's "
    "docs/bundles.md before publishing.",
}


def export_bundle(
    out: Path,
    config: dict,
    targets: list[str],
    journals: bool,
    license: str | None = None,
    checkout: Path | None = None,
) -> None:
    """Write the bundle ``out`` of the ``targets`` of ``config``'s run."""
    checkout = (checkout or Path.cwd()).resolve()
    places = Places.of(checkout, config)
    jobs = workflow_dag(checkout, [], targets, config=config).jobs
    log.info("%d jobs in the DAG of %s", len(jobs), ", ".join(targets))
    records, paths = [], {}
    for job in jobs:
        files = [path for path in _outputs(job, places) if (places.results / path).is_file()]
        if not files:
            continue
        code, params_hash, params = _fingerprint(job, places)
        records.append(
            {
                "rule": job.rule,
                "wildcards": job.wildcards,
                "code": code,
                "params_hash": params_hash,
                "params": params,
                "files": files,
                "started": job.started,
                "ended": job.ended,
            }
        )
        paths.update(dict.fromkeys(files))
    extra = _journals(places.results) if journals else []
    lock = places.inside(lock_path(config))
    if lock and (places.results / lock).is_file():
        extra.append(lock)
    paths.update(dict.fromkeys(extra))
    log.info("%d files, %d of them journals or the lock file", len(paths), len(extra))
    digests = {path: file_sha256(places.results / path) for path in paths}
    run = _provenance(checkout, config, targets, jobs, places)
    partial = out.with_name(out.name + ".partial")
    terms = {"@id": license, "@type": "CreativeWork", "name": license} if license else SOURCES_TERMS
    write_crate(partial, checkout, places.results, digests, records, run, terms)
    os.replace(partial, out)
    log.info("wrote %s (%.1f MB)", out, out.stat().st_size / 1e6)


def _outputs(job: PlannedJob, places: Places) -> list[str]:
    """The job's output files under the results folder, relative to it (none under logs/); a
    folder output (an explorer) as the files in it."""
    inside = [places.inside(output) for output in job.outputs]
    found = []
    for path in inside:
        if not path or path.split("/")[0] in LEFT_OUT:
            continue
        folder = places.results / path
        if folder.is_dir():
            found += sorted(
                f.relative_to(places.results).as_posix() for f in folder.rglob("*") if f.is_file()
            )
        else:
            found.append(path)
    return found


def _fingerprint(job: PlannedJob, places: Places) -> tuple[str | None, str, dict]:
    found = fingerprint(job.params, places)
    return found.code, found.params_hash, found.params


def _journals(results: Path) -> list[str]:
    """Every call journal and spending ledger under the results folder (the inference jobs'
    and the pilot's)."""
    found = {path for pattern in JOURNALS for path in results.glob(pattern) if path.is_file()}
    return sorted(path.relative_to(results).as_posix() for path in found)


def _provenance(
    checkout: Path, config: dict, targets: list[str], jobs: list[PlannedJob], places: Places
) -> dict:
    """What made the run: the package version, the git commit (and whether the tree differed
    from it), the configured models' hub commits from the registry and the lock, the config."""
    registry = load_registry(places.registry)
    named = sorted({job.wildcards["model"] for job in jobs if "model" in job.wildcards})
    locked = read_lock(checkout / lock_path(config))
    models = {}
    for name in named:
        try:
            spec = registry.model(name)
        except (KeyError, ValueError):
            continue
        models[name] = {
            "reference": spec.reference,
            "revision": spec.revision or (locked.get(name) or {}).get("commit"),
        }
    return {
        "version": _package_version(),
        "commit": _git(checkout, "rev-parse", "HEAD"),
        "dirty": bool(_git(checkout, "status", "--porcelain", "--untracked-files=no")),
        "models": models,
        "targets": targets,
        "config": normalised(canonical(config), places),
    }


def _package_version() -> str:
    try:
        return version("noveval")
    except PackageNotFoundError:
        return "unknown"


def _git(checkout: Path, *args: str) -> str | None:
    """A git command's output in the checkout (None outside a git checkout)."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=checkout, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip()
