"""A rule's stage: the module its name names, run by the one script (workflow/scripts/stage.py),
and that module's code version for the rule's params (so editing a stage reruns it alone)."""

from __future__ import annotations

import importlib

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


def run_stage(job) -> None:
    """Run the stage of the Snakemake job ``job`` (the script's ``snakemake`` object), its
    package log records and a failure's traceback (a stage that does not import included) sent to
    the job's log."""
    with log_to(job.log[0]):
        importlib.import_module(stage_module(job.rule)).run(job)
