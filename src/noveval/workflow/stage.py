"""A rule's stage: the module its name names, run by the one script (workflow/scripts/stage.py),
and that module's code version for the rule's params (so editing a stage reruns it alone)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pyarrow.parquet as pq

from noveval.core.files import out_of_space
from noveval.core.logs import log_to
from noveval.core.provenance import code_version

TRACKS = ("novbench", "judges", "construction")  # a rule named <track>_<stage>
# A rule's hosted-API variant (`use rule infer as infer_api`: the same job on the submitting
# host, for the models whose calls go to a provider) runs the stage of the rule it derives from.
API_VARIANT = "_api"


def stage_module(rule: str) -> str:
    """The module of rule ``rule``'s stage: ``noveval.<track>.stages.<stage>`` for a track's
    rule, else ``noveval.workflow.stages.<rule>`` (``<rule>_api`` runs ``<rule>``'s)."""
    rule = rule.removesuffix(API_VARIANT)
    track, _, stage = rule.partition("_")
    if track in TRACKS and stage:
        return f"noveval.{track}.stages.{stage}"
    return f"noveval.workflow.stages.{rule}"


def stage_code(rule: str, data: tuple[str, ...] = ()) -> str:
    """The code version of rule ``rule``: its stage module, every package module it imports,
    and the package data folders ``data`` (prompt files) it reads."""
    return code_version(stage_module(rule), data=data)


class CorruptInput(RuntimeError):
    """A job's input that cannot be read: cut short or corrupt."""


class DiskFull(OSError):
    """A job that could not write for want of space."""


def run_stage(job) -> None:
    """Run the stage of the Snakemake job ``job`` (the script's ``snakemake`` object), its
    package log records and a failure's traceback (a stage that does not import included) sent to
    the job's log. A stage that fails for want of disk space, or with an unreadable Parquet
    input, fails saying so with the way out (:class:`DiskFull`, :class:`CorruptInput`)."""
    with log_to(job.log[0]):
        try:
            importlib.import_module(stage_module(job.rule)).run(job)
        except Exception as error:
            if out_of_space(error):
                folder = Path(job.output[0]).parent if job.output else Path.cwd()
                raise DiskFull(
                    f"no space left on the device of {folder} ({error}). Free space there "
                    f"(df -h {folder}) and rerun: finished outputs stay, and the journals keep "
                    "every answer (docs/recovery.md)"
                ) from error
            if corrupt := corrupt_parquet(job.input):
                raise CorruptInput(
                    "; ".join(f"{path}: {why}" for path, why in corrupt)
                    + ". Delete it and rerun: Snakemake rebuilds it from its own inputs, and the "
                    "inference jobs behind it answer from their journals (docs/recovery.md)"
                ) from error
            raise


def corrupt_parquet(paths) -> list[tuple[str, str]]:
    """The Parquet files among ``paths`` whose footer cannot be read, with pyarrow's reason."""
    corrupt = []
    for path in map(str, paths):
        if not path.endswith(".parquet") or not Path(path).is_file():
            continue
        try:
            pq.read_metadata(path)
        except (OSError, ValueError) as error:  # pyarrow: ArrowInvalid or OSError, by the damage
            corrupt.append((path, f"not a readable Parquet file, cut short or corrupt ({error})"))
    return corrupt
