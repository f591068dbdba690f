"""NovBench's published numbers (Tables 2-5) beside the run's tables, with their conditions and
the digests of the requests each cell sent."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from noveval.core.registry import Registry, load_registry
from noveval.novbench.tables import HUMAN
from noveval.reproduction.conditions import PAPER_SCORERS, Conditions, as_condition
from noveval.reproduction.targets import DATASETS, RELEASE_SUBSET
from noveval.reproduction.verdicts import TOLERANCES, judged, not_run, unconfigured


def release_digest(path: str | Path) -> str:
    """The SHA-256 of a dataset's release file as the run read it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cell_settings(row, settings: dict) -> dict:
    """The settings that shape a NovBench cell's inputs and prompts: the few-shot draw, the
    deletion's kept share, the paraphrase model (none where the authors' release gives the
    perturbed inputs: Table 5's subset)."""
    chosen = {}
    if row.strategy == "few":
        chosen |= {"few_shot_examples": settings["few_shot_examples"], "seed": settings["seed"]}
    if row.dataset != RELEASE_SUBSET and row.perturbation == "del":
        chosen |= {"keep_fraction": settings["keep_fraction"], "seed": settings["seed"]}
    if row.dataset != RELEASE_SUBSET and row.perturbation == "change":
        chosen |= {"paraphrase_model": settings["paraphrase_model"]}
    return {key: as_condition(value) for key, value in chosen.items()}


def requests_digest(request_ids) -> str:
    """One digest of a cell's requests: of their ids, each a hash of everything that reaches the
    model (its wire, messages and call parameters)."""
    return hashlib.sha256("\n".join(sorted(request_ids)).encode("utf-8")).hexdigest()[:16]


def authors_requests(cell: dict, paper: dict, registry: Registry, upstream_root: str) -> str | None:
    """The digest of the requests the paper mode sends for ``cell``'s inputs: the authors'
    prompts (their pinned scripts under ``upstream_root``) with the paper's decoding, settings
    and model wire (``paper``: the paper's NovBench conditions; None: a model the project's
    registry does not hold)."""
    from noveval.novbench import generation, records

    if cell["model"] not in registry.models:
        return None
    settings = {"prompts": "authors", **paper["settings"]}
    requests = generation.generation_requests(
        inputs=records.read_papers(cell["inputs"]),
        pool=records.read_papers(cell["papers"]),
        strategy=cell["strategy"],
        spec=registry.model(cell["model"]),
        decoding=paper["decoding"],
        settings=settings,
        prompts="authors",
        upstream_root=upstream_root,
    )
    return requests_digest(request["request_id"] for request in requests)


def cell_requests(
    cells: list[dict],
    conditions: Conditions,
    registry: str | Path | None,
    upstream_root: str | None,
) -> dict[tuple, dict]:
    """Per cell (dataset, model, strategy, perturbation): the digest of the requests the run
    sent (``run``), and of those the paper mode sends for the same inputs (``paper``: computed
    when the run used the authors' prompts, whose scripts it then fetched; None otherwise)."""
    paper = conditions.paper["novbench"]
    authors = conditions.run["novbench"]["prompts"] == "authors" and registry and upstream_root
    known = load_registry(registry) if authors else None
    out = {}
    for cell in cells:
        sent = pd.read_parquet(cell["requests"], columns=["request_id"])["request_id"]
        key = (cell["dataset"], cell["model"], cell["strategy"], cell["perturbation"])
        out[key] = {
            "run": requests_digest(sent),
            "paper": authors_requests(cell, paper, known, upstream_root) if authors else None,
        }
    return out


def novbench_run_conditions(row, run: dict, table: pd.DataFrame, ours, digest) -> dict:
    """What one NovBench number of the run was produced under (``run``: the run's NovBench
    conditions; ``ours``: the number's row of table.csv): the dataset (the release file's
    SHA-256, the human row's paper count), the metric's scorer, and for a model's row the
    prompts, decoding, the model's wire, the cell's settings and the shares of empty and failed
    answers, and the hub commit of an open model's weights (``run["weights"]``)."""
    human = table[table["model"] == HUMAN]
    papers = int(human["n_papers"].iloc[0]) if len(human) and "n_papers" in human else None
    out = {"dataset": {"sha256": digest, "papers": papers}}
    if row.metric in PAPER_SCORERS:
        out["scorer"] = ours[PAPER_SCORERS[row.metric][0]]
    if row.model != HUMAN:
        out |= _model_conditions(row, run)
        if row.model in run.get("weights", {}):  # the paper states none: not compared
            out["weights"] = {"commit": run["weights"][row.model]}
        for share, column in (("empty_share", "n_empty"), ("failed_share", "n_failed")):
            if column in ours and ours.get("n_papers"):
                out[share] = float(ours[column]) / float(ours["n_papers"])
    return out


def _model_conditions(row, conditions: dict) -> dict:
    """The conditions of a model's NovBench cell that the run and the paper both state
    (``conditions``: the run's or the paper's NovBench conditions): prompts, decoding, the
    model's wire and the cell's settings."""
    return {
        "prompts": conditions["prompts"],
        "decoding": conditions["decoding"],
        "model": conditions["models"].get(row.model),
        "settings": cell_settings(row, conditions["settings"]),
    }


def novbench_paper_conditions(row, paper: dict) -> dict:
    """What one NovBench number of the paper was produced under (``paper``: the paper's NovBench
    conditions), with :func:`novbench_run_conditions`' keys."""
    out = {"dataset": paper["datasets"].get(row.dataset, {"sha256": None, "papers": None})}
    if row.metric in PAPER_SCORERS:
        out["scorer"] = paper["scoring"][PAPER_SCORERS[row.metric][0]]
    if row.model != HUMAN:
        out |= _model_conditions(row, paper)
    return out


def novbench_row(
    row,
    grid: dict,
    tables: dict[str, pd.DataFrame],
    conditions: Conditions,
    digests: dict[str, str],
    requests: dict[tuple, dict] | None = None,
) -> dict:
    """Our value of one published NovBench number, or why there is none (``requests``:
    :func:`cell_requests`)."""
    dataset = grid["datasets"].get(row.dataset)
    if dataset is None:
        if row.dataset == RELEASE_SUBSET:
            return not_run(DATASETS[RELEASE_SUBSET])
        return not_run(unconfigured("dataset", row.dataset, "novbench.datasets"))
    if row.model != HUMAN and (missing := unconfigured_cell(row, dataset, grid)):
        return not_run(missing)
    table = tables[dataset["name"]]
    found = table[
        (table["model"] == row.model)
        & (table["strategy"] == row.strategy)
        & (table["perturbation"] == row.perturbation)
    ]
    if found.empty:
        return not_run(f"no row in {dataset['name']}/table.csv (cell left out; see the run's log)")
    if row.metric not in found:
        return not_run(f"no column '{row.metric}' in {dataset['name']}/table.csv")
    ours = found.iloc[0]
    if pd.isna(ours[row.metric]):
        return not_run(f"no value of '{row.metric}' in {dataset['name']}/table.csv")
    run = novbench_run_conditions(
        row, conditions.run["novbench"], table, ours, digests.get(dataset["name"])
    )
    paper = novbench_paper_conditions(row, conditions.paper["novbench"])
    key = (dataset["name"], row.model, row.strategy, row.perturbation)
    if key in (requests or {}):
        run["requests"], paper["requests"] = requests[key]["run"], requests[key]["paper"]
    value, tolerance = float(ours[row.metric]), TOLERANCES[row.metric]
    return judged(row, value, tolerance, run, paper, conditions.limits, (row.note,))


def unconfigured_cell(row, dataset: dict, grid: dict) -> str | None:
    """Why a published NovBench cell's model, strategy or perturbation is not run (None: all
    configured)."""
    for kind, value, known, key in [
        ("model", row.model, dataset["models"], "models"),
        ("strategy", row.strategy, grid["strategies"], "strategies"),
        ("perturbation", row.perturbation, grid["perturbations"], "perturbations"),
    ]:
        if value not in known:
            return unconfigured(kind, value, f"novbench.{key}")
    return None
