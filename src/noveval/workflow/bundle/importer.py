"""Import: a bundle's files placed in this checkout's results folder, and Snakemake told that
exactly those whose job has this checkout's code version and params are up to date.

Snakemake reruns a job whose input is newer than its output, whatever its rerun triggers, and
checks code and params only against its own records (``.snakemake/metadata``), which copied
files do not have. So the import compares each job's code version and normalised params with
the bundle's itself, places every file older than anything in the checkout, and runs
``snakemake --touch --no-hooks`` on the jobs that match (and whose upstream jobs all match):
Snakemake marks their outputs newer in DAG order and records this checkout's params for them.
The rest stay older than their inputs and rebuild at the next run. It never overwrites or
deletes a file that is there.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from noveval.workflow.bundle.crate import RESULTS_PREFIX, BundleError, Manifest, read_manifest
from noveval.workflow.bundle.fingerprint import Places, file_sha256, fingerprint
from noveval.workflow.dag import PlannedJob, workflow_dag

log = logging.getLogger(__name__)

# The time imported files get until Snakemake touches the matching ones: older than any file of
# a checkout, so that an output left to rebuild is older than its inputs (zip's first date).
PLACED_TIME = 315_619_200.0  # 1980-01-02T00:00:00Z


@dataclass
class Decision:
    """Which jobs of the checkout's DAG the bundle brings up to date, and why the others
    rebuild: rule -> reason -> number of files."""

    up_to_date: list[int] = field(default_factory=list)
    rebuild: dict[str, Counter] = field(default_factory=dict)

    def add(self, rule: str, reason: str, files: int) -> None:
        self.rebuild.setdefault(rule, Counter())[reason] += files


def decide(jobs: list[PlannedJob], places: Places, manifest: Manifest) -> Decision:
    """Compare each job's code version and params hash with the bundle's, in DAG order: a job is
    up to date when every output is in the bundle, made by the same rule with the same code
    and params, and every job it reads from is up to date."""
    made_by = manifest.job_of()
    decision = Decision()
    matched: set[int] = set()
    for position, job in enumerate(jobs):
        outputs = [path for path in map(places.inside, job.outputs) if path]
        if not outputs:
            continue
        bundled = {_made(made_by, path) for path in outputs}
        reason = None
        if None in bundled:
            reason = "not in the bundle"
        else:
            (theirs,) = bundled if len(bundled) == 1 else (None,)
            ours = fingerprint(job.params, places)
            if theirs is None or theirs.rule != job.rule:
                reason = "made by another job"
            elif theirs.code != ours.code:
                reason = "code differs"
            elif theirs.params_hash != ours.params_hash:
                reason = "params differ"
            elif any(dependency not in matched for dependency in job.depends_on):
                reason = "upstream rebuilds"
        if reason is None:
            matched.add(position)
            decision.up_to_date.append(position)
        else:
            decision.add(job.rule, reason, len(outputs))
    return decision


def _made(made_by: dict, path: str):
    """The bundle's job of an output: a file's, or that of the files in a folder output (the
    explorers'); None when the bundle has none."""
    if path in made_by:
        return made_by[path]
    inside = {job for file, job in made_by.items() if file.startswith(path + "/")}
    return inside.pop() if len(inside) == 1 else None


def import_bundle(
    bundle: Path, configfiles: list[Path], checkout: Path | None = None
) -> tuple[Decision, list[PlannedJob], int]:
    """Check, place and mark up to date the bundle's files for the run of ``configfiles`` in
    ``checkout``; the decision, the DAG's jobs and the number of files written."""
    checkout = (checkout or Path.cwd()).resolve()
    manifest = read_manifest(bundle)
    log.info("%s: %d files, every digest checked", bundle, len(manifest.files))
    dag = workflow_dag(checkout, configfiles, manifest.run["targets"])
    jobs = dag.jobs
    places = Places.of(checkout, dag.config)
    conflicts = [
        path
        for path, entry in manifest.files.items()
        if (places.results / path).exists() and file_sha256(places.results / path) != entry.sha256
    ]
    if conflicts:
        listed = "\n  ".join(conflicts[:20])
        raise BundleError(
            f"{len(conflicts)} files in {places.results} differ from the bundle's; nothing was "
            f"written (move them away to import):\n  {listed}"
        )
    written = _place(bundle, manifest, places.results)
    decision = decide(jobs, places, manifest)
    if decision.up_to_date:
        _touch(checkout, configfiles, jobs, decision, places)
    return decision, jobs, written


def _place(bundle: Path, manifest: Manifest, results: Path) -> int:
    """Write the bundle's files that are not there yet, dated PLACED_TIME."""
    written = 0
    with zipfile.ZipFile(bundle) as archive:
        for path in manifest.files:
            target = results / path
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".importing")
            with archive.open(RESULTS_PREFIX + path) as source, open(partial, "wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
            os.utime(partial, (PLACED_TIME, PLACED_TIME))
            os.replace(partial, target)
            written += 1
    return written


def _touch(
    checkout: Path,
    configfiles: list[Path],
    jobs: list[PlannedJob],
    decision: Decision,
    places: Places,
) -> None:
    """``snakemake --touch --no-hooks --forceall`` on the outputs of the up-to-date jobs that no
    other up-to-date job reads: it touches exactly those jobs and the ones they read from."""
    matched = set(decision.up_to_date)
    read = {dependency for position in matched for dependency in jobs[position].depends_on}
    targets = [output for position in sorted(matched - read) for output in jobs[position].outputs]
    command = [sys.executable, "-m", "snakemake", "--touch", "--no-hooks", "--forceall"]
    command += ["--cores", "1"]
    if configfiles:
        command += ["--configfile", *map(str, configfiles)]
    log_path = places.results / "logs" / "bundle" / "import.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as handle:
        done = subprocess.run(
            [*command, "--", *targets], cwd=checkout, stdout=handle, stderr=subprocess.STDOUT
        )
    if done.returncode:
        raise BundleError(
            f"snakemake --touch failed ({done.returncode}); see {log_path}. The files are in "
            "place; they rebuild at the next run."
        )


def report(decision: Decision, jobs: list[PlannedJob], written: int) -> str:
    """What the import did and what the next run rebuilds, rule by rule."""
    kept = Counter(jobs[position].rule for position in decision.up_to_date)
    lines = [
        f"placed {written} files; {len(decision.up_to_date)} jobs up to date "
        f"({', '.join(f'{rule} {count}' for rule, count in sorted(kept.items())) or 'none'})"
    ]
    if not decision.rebuild:
        lines.append("nothing to rebuild: every job's code and params match this checkout")
        return "\n".join(lines)
    lines.append("to rebuild at the next run (their files stay, older than their inputs):")
    for rule, reasons in sorted(decision.rebuild.items()):
        said = ", ".join(f"{count} files: {reason}" for reason, count in sorted(reasons.items()))
        lines.append(f"  {rule}: {said}")
    return "\n".join(lines)
