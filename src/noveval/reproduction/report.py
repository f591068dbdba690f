"""Set each published number (``published/*.csv``) beside ours, with a verdict and its reason.

A configured dataset is compared with a paper table when its name is the ``dataset`` of the
published rows: NovBench ``emnlp2023`` (Tables 2, 3; Tables 6–8 need splits the pipeline does not
compute), ``coling2020`` (Table 4); Table 5 with the dataset that declares
``perturbations_release`` (the authors' 100-paper perturbation subset, whatever its name); the
judge study's ``novelty-eval`` (its full release, blocklist applied).
Verdicts: ``match`` = equal when both are rounded to the paper's printed decimals; ``within`` =
inside the metric's tolerance (:data:`TOLERANCES`); ``outside``; ``not run`` with the reason.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.files import read_tables
from noveval.judges.grid import CHANGES, configured_changes
from noveval.novbench.tables import HUMAN

log = logging.getLogger(__name__)

PUBLISHED = Path(__file__).parent / "published"
RELEASE_SUBSET = "emnlp2023-release100"  # Table 5: a dataset that declares perturbations_release
COLUMNS = [
    "study",
    "table",
    "cell",
    "metric",
    "paper_value",
    "our_value",
    "difference",
    "tolerance",
    "verdict",
    "reason",
]
# Absolute tolerances of ``within``: NovBench per metric, the judge study per printed unit (a
# cost is within 10% of the paper's).
TOLERANCES = {
    "relevance": 0.05,
    "coverage": 0.01,
    "clarity": 0.01,
    "dist_acc": 0.02,
    "kc": 0.005,
    "ls": 0.005,
    "similarity": 0.02,
    "percent": 2.0,
    "fraction": 0.02,
}
COST_TOLERANCE = 0.10
PAPER_SCORERS = {
    "relevance": ("relevance_encoder", "spiced"),
    "coverage": ("coverage_encoder", "all-minilm-l6-v2"),
    "clarity": ("fluency_lm", "distilgpt2"),
}
DATASETS = {
    "emnlp2023": "the authors' Final_data.json, 1,684 papers (config/paper.yaml)",
    "coling2020": "the authors' 73 COLING-2020 papers (config/paper.yaml)",
    RELEASE_SUBSET: "no dataset in novbench.datasets declares perturbations_release (Table 5: "
    "the authors' 100-paper perturbation subset, Final_data_change/del.json)",
    "novelty-eval": "the judge study's full release with its blocklist",
}
SUBSETS = {
    "paper_type": "documented deviation: scores are not split by paper type (methodological / "
    "resource); the pipeline has no paper-type labels",
    "reviewer_confidence": "documented deviation: review similarity by reviewer confidence is "
    "not computed; the pipeline has no reviewer confidence scores",
}


def published(study: str) -> pd.DataFrame:
    """The project's reference table of one study's published numbers, with their sources."""
    return pd.read_csv(PUBLISHED / f"{study}.csv", dtype={"table": str}, keep_default_na=False)


def mapped(study: str) -> set[str]:
    """Dataset names that a study's published numbers are compared with."""
    return set(published(study)["dataset"])


def configured(config: dict) -> dict:
    """What the config runs, as plain data: the configured dataset (name and models) compared
    with each published one, and the strategies, perturbations, judges and changes."""
    section = config["novbench"]
    novbench = {}
    for name, entry in section["datasets"].items():
        if entry is None:  # an overlay dropped it
            continue
        given = entry if isinstance(entry, dict) else {}
        key = RELEASE_SUBSET if given.get("perturbations_release") else name
        if key in mapped("novbench"):
            models = given.get("models") or section["models"]
            novbench.setdefault(key, {"name": name, "models": list(models)})
    judges = config["judges"]
    return {
        "novbench": {
            "datasets": novbench,
            "strategies": list(section["strategies"]),
            "perturbations": list(section["perturbations"]),
        },
        "judges": {
            "datasets": {
                name: {"name": name}
                for name, entry in judges["datasets"].items()
                if entry is not None and name in mapped("judges")
            },
            "models": list(judges["models"]),
            "changes": configured_changes(judges),
        },
    }


def inputs(results: str, grid: dict, novbench, judges) -> dict[str, list[str]]:
    """The outputs the report reads: of the configured datasets compared with a paper's."""
    novbench_sets = [d["name"] for d in grid["novbench"]["datasets"].values()]
    judges_sets = [d["name"] for d in grid["judges"]["datasets"].values()]
    return {
        "tables": [f"{results}/novbench/{d}/table.csv" for d in novbench_sets],
        "scores": [p for d in novbench_sets for p in novbench.score_paths(results, d)],
        "metrics": [
            f"{results}/judges/{d}/{f}/metrics.csv" for d in judges_sets for f in judges.formats(d)
        ],
    }


def verdict(paper: float, ours: float, decimals: int, tolerance: float) -> str:
    if round(ours, decimals) == round(paper, decimals):
        return "match"
    return "within" if abs(ours - paper) <= tolerance else "outside"


def _compared(row, ours: float, tolerance: float, reason: str) -> dict:
    return {
        "our_value": ours,
        "difference": ours - row.paper_value,
        "tolerance": tolerance,
        "verdict": verdict(row.paper_value, ours, int(row.decimals), tolerance),
        "reason": reason,
    }


def _not_run(reason: str) -> dict:
    return {"verdict": "not run", "reason": reason}


def _unconfigured(kind: str, name: str, key: str) -> str:
    hint = f" ({DATASETS[name]})" if name in DATASETS else ""
    return f"{kind} '{name}' not in the config ({key}){hint}"


def novbench_row(row, grid: dict, tables: dict[str, pd.DataFrame]) -> dict:
    """Our value of one published NovBench number, or why there is none."""
    subset = row.subset.split("=")[0]
    if subset in SUBSETS:
        return _not_run(SUBSETS[subset])
    dataset = grid["datasets"].get(row.dataset)
    if dataset is None:
        if row.dataset == RELEASE_SUBSET:
            return _not_run(DATASETS[RELEASE_SUBSET])
        return _not_run(_unconfigured("dataset", row.dataset, "novbench.datasets"))
    if row.model != HUMAN:
        for kind, value, known, key in [
            ("model", row.model, dataset["models"], "models"),
            ("strategy", row.strategy, grid["strategies"], "strategies"),
            ("perturbation", row.perturbation, grid["perturbations"], "perturbations"),
        ]:
            if value not in known:
                return _not_run(_unconfigured(kind, value, f"novbench.{key}"))
    table = tables[dataset["name"]]
    found = table[
        (table["model"] == row.model)
        & (table["strategy"] == row.strategy)
        & (table["perturbation"] == row.perturbation)
    ]
    if found.empty:
        return _not_run(f"no row in {dataset['name']}/table.csv (cell left out; see the run's log)")
    if row.metric not in found:
        return _not_run(f"no column '{row.metric}' in {dataset['name']}/table.csv")
    ours = found.iloc[0]
    notes = [row.note] if row.note else []
    compared = _compared(row, float(ours[row.metric]), TOLERANCES[row.metric], "")
    if row.metric in PAPER_SCORERS:
        column, paper = PAPER_SCORERS[row.metric]
        if ours[column] != paper:
            # Our value is shown, but a metric from another scorer is no reproduction of it.
            notes.append(
                f"documented deviation: scored with {column} {ours[column]} (paper: {paper})"
            )
            compared["verdict"] = "not run"
    return {**compared, "reason": "; ".join(notes)}


def judges_row(row, grid: dict, metrics: dict[tuple[str, str], pd.DataFrame]) -> dict:
    """Our value of one published judge-study number, or why there is none."""
    if row.change not in CHANGES:
        return _not_run(f"'{row.change}' is another system, not a change of this pipeline")
    if row.dataset not in grid["datasets"]:
        return _not_run(_unconfigured("dataset", row.dataset, "judges.datasets"))
    if row.model not in grid["models"]:
        return _not_run(_unconfigured("model", row.model, "judges.models"))
    if row.change not in grid["changes"]:
        return _not_run(_unconfigured("change", row.change, "judges.changes"))
    table = metrics.get((row.dataset, row.format))
    if table is None:
        return _not_run(f"no {row.format} instances in dataset '{row.dataset}'")
    found = table[
        (table["model"] == row.model)
        & (table["setup"] == row.setup)
        & (table["change"] == row.change)
    ]
    if found.empty:
        return _not_run(f"no row for setup '{row.setup}' in {row.dataset}/{row.format}/metrics.csv")
    if row.metric not in found:
        return _not_run(f"no column '{row.metric}' in {row.dataset}/{row.format}/metrics.csv")
    ours = float(found.iloc[0][row.metric]) * (100 if row.unit == "percent" else 1)
    tolerance = COST_TOLERANCE * row.paper_value if row.unit == "usd" else TOLERANCES[row.unit]
    return _compared(row, ours, tolerance, row.note)


def rows(grid: dict, tables: dict, metrics: dict) -> pd.DataFrame:
    """One report row per published number of both studies."""
    out = []
    for study, compare, inputs_ in [
        ("novbench", novbench_row, tables),
        ("judges", judges_row, metrics),
    ]:
        for row in published(study).itertuples(index=False):
            base = {c: getattr(row, c) for c in ("study", "table", "cell", "metric")}
            out.append(base | {"paper_value": row.paper_value} | compare(row, grid[study], inputs_))
    return pd.DataFrame(out, columns=COLUMNS)


def markdown(report: pd.DataFrame, uncertainty_sections: dict[str, str]) -> str:
    """Counts per table and verdict, the compared numbers, reasons of the rest, uncertainty."""
    counts = report.groupby(["study", "table", "verdict"], sort=False).size().unstack(fill_value=0)
    compared = report[report["verdict"] != "not run"]
    skipped = report[report["verdict"] == "not run"].groupby(["study", "reason"]).size()
    parts = [
        "# Reproduction report",
        "Every published number of NovBench (Tables 2–8) and of the judge study (figure values) "
        "beside ours (report.csv holds every row). match: equal at the paper's printed "
        "decimals; within: |ours − paper| ≤ tolerance (NovBench: Relevance 0.05, Coverage 0.01, "
        "Clarity 0.01, DistAcc 0.02, KC and LS 0.005, similarity 0.02; judge study: 2 "
        "percentage points, 0.02 for a fraction, 10% of a cost).",
        "## Verdicts per table",
        counts.reset_index().to_markdown(index=False),
        "## Compared numbers",
        compared.round(4).to_markdown(index=False) if len(compared) else "None.",
        "## Not run, by reason",
        skipped.rename("rows").reset_index().to_markdown(index=False) if len(skipped) else "None.",
    ]
    for dataset, text in uncertainty_sections.items():
        parts += [f"## NovBench uncertainty on {dataset} (beyond both papers)", text]
    return "\n\n".join(parts) + "\n"


def write(
    tables_paths: list[str],
    scores_paths: list[str],
    metrics_paths: list[str],
    grid: dict,
    csv_path: str,
    markdown_path: str,
) -> None:
    """Read the configured outputs (paths name their dataset and format) and write the report."""
    from noveval.novbench import uncertainty  # scipy: here, not when the Snakefile imports this

    tables = {Path(p).parent.name: pd.read_csv(p) for p in tables_paths}
    metrics = {
        (Path(p).parent.parent.name, Path(p).parent.name): pd.read_csv(p) for p in metrics_paths
    }
    scores = {}
    for path in scores_paths:
        scores.setdefault(Path(path).parent.parent.name, []).append(path)
    report = rows(grid, tables, metrics)
    sections = {d: uncertainty.markdown(read_tables(paths)) for d, paths in scores.items()}
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    report.to_csv(csv_path, index=False)
    Path(markdown_path).write_text(markdown(report, sections))
    log.info("%s", report["verdict"].value_counts().to_dict())
