"""Stage judges_verdicts: one cell's responses → one aggregated verdict per instance."""

from __future__ import annotations

import logging

from noveval.core.files import write_table
from noveval.inference.batches import read_responses
from noveval.judges import instances
from noveval.judges.grid.cells import DERIVED
from noveval.judges.statistics.aggregation import TIE, Rules, aggregate, sub_runs
from noveval.judges.verdicts import VERDICT_COLUMNS, calls_from_responses

log = logging.getLogger(__name__)


def verdicts(
    instances_path: str,
    responses_path: str,
    responses_cell: str,
    cell: dict,
    verdicts_path: str,
    protocol: dict,
) -> None:
    """Responses of one cell → aggregated verdict per instance (and run).

    ``no_aggregation`` reads the reference run's responses: its first call of each order, or with
    ``protocol['no_aggregation'] == 'sub_runs'`` one single-call run per call index (the mean of
    their metrics is reported); it costs no call of its own. ``protocol`` also holds the verdict
    format (``prompts``) and the tie rules (``even_split``, ``all_failed``).
    """
    table = instances.read_instances(instances_path)
    format = table["format"].iloc[0]
    responses = read_responses(responses_path, responses_cell)
    calls = calls_from_responses(responses, format, protocol["prompts"])
    if cell["change"] in DERIVED:
        runs = calls["call"].max() + 1 if protocol["no_aggregation"] == "sub_runs" else None
        calls = sub_runs(calls, runs)
    rules = Rules(protocol["even_split"], protocol["all_failed"])
    aggregated = aggregate(calls, format, rules)
    frame = table[["instance_id", "label"]].merge(aggregated, on="instance_id", how="left")
    for key, value in cell.items():
        frame[key] = value
    log.info(
        "%s: %d instances, %d calls, %d failed or unparseable, %d ties",
        cell,
        len(frame),
        frame["n_calls"].sum(),
        frame["n_failed"].sum(),
        (frame["verdict"] == TIE).sum(),
    )
    write_table(frame[VERDICT_COLUMNS], verdicts_path)


def run(job) -> None:
    """One job of rule judges_verdicts."""
    wildcards = job.wildcards
    verdicts(
        job.input.instances,
        job.input.responses,
        job.params.responses_cell,
        {
            "model": wildcards.model,
            "setup": wildcards.setup,
            "ideas": wildcards.ideas,
            "change": wildcards.change,
        },
        job.output[0],
        protocol=job.params.protocol,
    )
