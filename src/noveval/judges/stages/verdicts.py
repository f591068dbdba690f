"""The judges' cell stages: a cell's requests, its verdicts from the responses, and a format's
metrics.

The modules that load torch, scipy or matplotlib are imported by the steps that use them: each
job is a fresh process, importing them takes seconds, and most jobs need none of them.
"""

from __future__ import annotations

import logging

import pandas as pd

from noveval.batches import read_responses
from noveval.chat_requests import REQUEST_COLUMNS
from noveval.files import read_tables, write_table
from noveval.judges import instances
from noveval.judges.aggregation import TIE, Rules, aggregate, sub_runs
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.cells import DERIVED, split_change
from noveval.judges.compute import Compute
from noveval.judges.prompts import calls_of, judge_requests
from noveval.judges.verdicts import VERDICT_COLUMNS, calls_from_responses
from noveval.registry import load_registry

log = logging.getLogger(__name__)


def requests(
    instances_path: str,
    change: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    related_path: str | None = None,
    upstream_root: str | None = None,
) -> None:
    """Every call of one judge cell (``change``: its change name, whatever the form of the ideas
    in ``instances_path``; ``related_path``: the retrieval change's related work).

    ``settings['prompts'] == 'authors'`` renders the authors' prompts from ``upstream_root``.
    """
    change = split_change(change)[0]
    spec = load_registry(registry_path).model(model)
    authors = AuthorsPrompts(upstream_root) if settings["prompts"] == "authors" else None
    related = None
    if related_path:
        table = pd.read_parquet(related_path)
        related = {
            row.instance_id: [list(block) for block in row.related] for row in table.itertuples()
        }
    rows = judge_requests(
        instances.read_instances(instances_path).to_dict("records"),
        change=change,
        spec=spec,
        decoding={**decoding, "max_tokens": settings["max_tokens"]},
        calls=calls_of(change, settings["calls"], settings["calls_by_change"]),
        structured_output=settings["structured_output"],
        reasoning_chars=settings["reasoning_chars"],
        related=related,
        authors=authors,
        prompt_caching=settings["prompt_caching"],
        reasoning_summary=settings["reasoning_summary"],
    )
    log.info("%s/%s: %d calls", model, change, len(rows))
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


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
    if split_change(cell["change"])[0] in DERIVED:
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


def metrics(
    verdicts_paths: list[str],
    format: str,
    bootstrap: dict,
    parquet_path: str,
    csv_path: str,
    compute: dict[str, dict],
    substitutes: dict[str, str] | None = None,
) -> None:
    """One metrics row per judge × setup × change of one format (``compute``: the local
    judges' devices and price, ``noveval.judges.compute.local_compute``), with the model each
    judge stands in for (``substitutes``: successor → model; empty: itself)."""
    from noveval.judges import summary

    frame = read_tables(verdicts_paths)
    table = summary.metrics_table(
        frame,
        format,
        bootstrap["resamples"],
        bootstrap["seed"],
        method=bootstrap["method"],
        compute={model: Compute(**spec) for model, spec in compute.items()},
    )
    table.insert(
        table.columns.get_loc("model") + 1,
        "substitutes_for",
        [(substitutes or {}).get(model) for model in table["model"]],
    )
    write_table(table, parquet_path)
    table.to_csv(csv_path, index=False)
