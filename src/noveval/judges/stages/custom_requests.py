"""Stage judges_custom_requests: every call of one custom judge's cell."""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.registry import load_registry
from noveval.inference.requests import write_requests
from noveval.judges import instances
from noveval.judges.cards.judge import custom_judge
from noveval.judges.cards.requests import custom_requests

log = logging.getLogger(__name__)


def requests(job_inputs: dict, name: str, entry: dict, cell: dict, job_params: dict, out: str):
    """One custom cell's requests (``cell``: its wording and change; ``entry``: the judge's
    config)."""
    registry = load_registry(job_params["registry"])
    judge = custom_judge(name, entry, registry)
    related = None
    if job_inputs.get("related"):
        table = pd.read_parquet(job_inputs["related"])
        related = {r.instance_id: [list(b) for b in r.related] for r in table.itertuples()}
    rows = custom_requests(
        judge,
        instances.read_instances(job_inputs["instances"]).to_dict("records"),
        registry.model(judge.model),
        {**job_params["decoding"], "max_tokens": job_params["max_tokens"]},
        wording=cell["wording"],
        change=cell["change"],
        related=related,
    )
    write_requests(rows, out, log, f"{name} {cell['wording']}/{cell['change']}", "calls")


def run(job) -> None:
    """One job of rule judges_custom_requests."""
    wildcards = job.wildcards
    requests(
        {"instances": job.input.instances, "related": job.input.get("related")},
        wildcards.judge,
        job.params.entry,
        {"wording": wildcards.wording, "change": wildcards.change},
        {
            "registry": job.params.registry,
            "decoding": job.params.decoding,
            "max_tokens": job.params.max_tokens,
        },
        job.output[0],
    )
