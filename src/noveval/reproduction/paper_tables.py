"""NovBench's appendix numbers (Tables 6-8, the human agreement of Section 4.3) beside the run's
tables from the authors' annotations."""

from __future__ import annotations

import pandas as pd

from noveval.novbench.paper_tables import ANNOTATIONS_DIGEST
from noveval.reproduction.conditions import Conditions
from noveval.reproduction.novbench import (
    novbench_paper_conditions,
    novbench_run_conditions,
    unconfigured_cell,
)
from noveval.reproduction.verdicts import TOLERANCES, judged, not_run, unconfigured

# NovBench's appendix tables from the authors' annotations: the published subset → our output
# file (results/novbench/<dataset>/) and the config key that declares its input.
PAPER_TABLES = {
    "paper_type": ("paper_type.csv", "paper_types"),
    "reviewer_confidence": ("reviewer_confidence.csv", "review_confidence"),
    "human_agreement": ("human_agreement.csv", "human_eval"),
}


PAPER_TABLE_TOLERANCES = {
    "similarity_diff": 0.005,
    "fleiss_kappa": 0.05,
    "agreement": 0.02,
    "spearman": 0.05,
}
PUBLISHED_ANNOTATORS = 4  # Section 4.3; two annotators' sheets were released
HUMAN_AGREEMENT_METRIC = "overall"  # the metric preference compared with the published numbers


def paper_table_row(
    row,
    grid: dict,
    tables: dict[str, pd.DataFrame],
    paper_tables: dict[tuple[str, str], pd.DataFrame],
    conditions: Conditions,
    digests: dict[str, str],
    requests: dict[tuple, dict] | None = None,
) -> dict:
    """Our value of one published number of Tables 6–8 or of the human agreement, from the
    appendix tables (``paper_tables``: (dataset, file name) → table), or why there is none. Its
    conditions are the cell's (:func:`novbench_run_conditions`) with the annotation file's SHA-256
    and where the paper-type labels come from; Table 8's papers without an output of the cell
    count as its empty answers."""
    subset, _, part = row.subset.partition("=")
    file, key = PAPER_TABLES[subset]
    if subset == "human_agreement":  # computed from the annotators' sheets alone
        return _human_agreement(row, paper_tables, file, conditions.limits)
    dataset = grid["datasets"].get(row.dataset)
    if dataset is None:
        return not_run(unconfigured("dataset", row.dataset, "novbench.datasets"))
    if missing := unconfigured_cell(row, dataset, grid):
        return not_run(missing)
    name = dataset["name"]
    table = paper_tables.get((name, file))
    if table is None:
        return not_run(f"novbench.datasets.{name}.{key} is not declared")
    found = table[
        (table["model"] == row.model)
        & (table["strategy"] == row.strategy)
        & (table["perturbation"] == row.perturbation)
    ]
    if subset == "paper_type":
        found, column = found[found["paper_type"] == part], row.metric
    else:
        column = part
    if found.empty:
        return not_run(f"no row in {name}/{file} (cell left out; see the run's log)")
    ours = found.iloc[0]
    run_novbench, paper_novbench = conditions.run["novbench"], conditions.paper["novbench"]
    cell_table = tables.get(name, pd.DataFrame(columns=["model"]))
    run = novbench_run_conditions(row, run_novbench, cell_table, ours, digests.get(name))
    paper = novbench_paper_conditions(row, paper_novbench)
    cell = (name, row.model, row.strategy, row.perturbation)
    if cell in (requests or {}):
        run["requests"], paper["requests"] = requests[cell]["run"], requests[cell]["paper"]
    unknown = {"source": None, "sha256": None}
    declared = run_novbench.get("annotations", {}).get(name, {}).get(key, unknown)
    run[key] = {"source": declared["source"], "sha256": ours.get(ANNOTATIONS_DIGEST)}
    paper[key] = paper_novbench.get("annotations", {}).get(row.dataset, {}).get(key, unknown)
    notes = [row.note]
    if subset == "reviewer_confidence":
        run["scorer"] = ours["encoder"]  # the authors embed with their Coverage encoder
        paper["scorer"] = paper_novbench["scoring"]["coverage_encoder"]
        run["empty_share"] = float(ours["n_missing"]) / float(ours["n_papers"])
        if ours["n_missing"]:
            notes.append(
                f"{ours['n_missing']} of the {ours['n_papers']} papers of the confidence file "
                f"have no output of this cell (counted with the empty text, as the authors did)"
            )
    tolerance = PAPER_TABLE_TOLERANCES.get(row.metric) or TOLERANCES[row.metric]
    return judged(row, float(ours[column]), tolerance, run, paper, conditions.limits, tuple(notes))


def _human_agreement(
    row, paper_tables: dict[tuple[str, str], pd.DataFrame], file: str, limits: dict
) -> dict:
    """A human-agreement number from the dataset that declares the annotators' sheets (they
    alone make the table): not comparable with fewer annotators than the paper's four."""
    declared = sorted(dataset for dataset, name in paper_tables if name == file)
    if not declared:
        return not_run("no compared dataset declares human_eval (novbench.datasets.<name>)")
    where = f"{declared[0]}/{file}"
    table = paper_tables[(declared[0], file)]
    metric = "-" if row.metric == "fleiss_kappa" else HUMAN_AGREEMENT_METRIC
    found = table[(table["statistic"] == row.metric) & (table["metric"] == metric)]
    if found.empty:
        return not_run(f"no {row.metric} of metric '{metric}' in {where}")
    ours = found.iloc[0]
    annotators = int(ours["n_annotators"])
    notes = [where]
    if row.metric != "fleiss_kappa":
        notes.append(
            f"majority of {annotators} ({ours['n_ties']} ties dropped); the metric preference "
            f"is the mean of the four metrics (Relevance as (Rel - 1) / 4), the paper's "
            f"combination is not in the released code"
        )
    return judged(
        row,
        float(ours["value"]),
        PAPER_TABLE_TOLERANCES[row.metric],
        {"annotators": annotators},
        {"annotators": PUBLISHED_ANNOTATORS},
        limits,
        tuple(notes),
    )
