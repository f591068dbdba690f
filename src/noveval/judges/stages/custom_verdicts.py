"""Stage judges_custom_verdicts: one custom cell's answers, read by the judge's own rule, → its
calls (every answer's choice; unparseable ones counted) and one verdict per instance."""

from __future__ import annotations

import logging

from noveval.core.files import write_table
from noveval.inference.batches import read_responses
from noveval.judges import instances
from noveval.judges.cards.judge import custom_judge
from noveval.judges.statistics.aggregation import Rules, aggregate
from noveval.judges.verdicts import calls_from_responses

log = logging.getLogger(__name__)


def verdicts(paths: dict, name: str, entry: dict, cell: str, rules: dict, out: dict) -> None:
    """``paths``: instances, responses; ``cell``: its name in the batch; ``out``: calls,
    verdicts."""
    judge = custom_judge(name, entry)
    table = instances.read_instances(paths["instances"])
    format = table["format"].iloc[0]
    calls = calls_from_responses(
        read_responses(paths["responses"], cell), format, parse=judge.verdict
    )
    aggregated = aggregate(calls, format, Rules(rules["even_split"], rules["all_failed"]))
    frame = table[["instance_id", "label"]].merge(aggregated, on="instance_id", how="left")
    log.info("%s: %d calls, %d unparseable or failed", cell, len(calls), int(calls["failed"].sum()))
    write_table(calls.drop(columns=["error"]), out["calls"])
    write_table(frame, out["verdicts"])


def run(job) -> None:
    """One job of rule judges_custom_verdicts."""
    verdicts(
        {"instances": job.input.instances, "responses": job.input.responses},
        job.wildcards.judge,
        job.params.entry,
        job.params.responses_cell,
        job.params.rules,
        {"calls": job.output.calls, "verdicts": job.output.verdicts},
    )
