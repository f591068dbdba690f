"""Set each published number (``published/*.csv``) beside ours, with a verdict and its reason.

A configured dataset is compared with a paper table when its name is the ``dataset`` of the
published rows: NovBench ``emnlp2023`` (Tables 2, 3; Tables 6–8 where the dataset declares the
authors' annotations), ``coling2020`` (Table 4); Table 5 with the dataset that declares
``perturbations_release`` (the authors' 100-paper perturbation subset, whatever its name); the
judge study's ``novelty-eval`` (its full release, blocklist applied). The human agreement
(Section 4.3) is compared from whichever compared dataset declares the annotators' sheets.
Verdicts: ``match`` = equal when both are rounded to the paper's printed decimals; ``within`` =
inside the metric's tolerance (:data:`TOLERANCES`); ``outside``; ``not run`` with the reason;
``not comparable`` where ours was made under other conditions than the paper's (the reason names
them and the verdict it would have).
The judge study's rows also compare flip rates, the plan-format cells, the ideation comparison
(over several cells), dataset sizes (instances scored) and the expert study's counts (the
release's ``judge_errors.csv``).
"""

from __future__ import annotations

import fnmatch
import logging
from pathlib import Path

import pandas as pd

from noveval.files import read_tables
from noveval.judges.grid import CHANGES, STANDARD, configured_changes, split_change
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
    "count": 0.0,
}
COST_TOLERANCE = 0.10
# Published judge-study numbers that are counts in a release file, not metrics of a judge cell.
EXPERT_FILE = "expert-annotations/judge_errors.csv"
RELEASE_FACTS = ("errors", "controls")
# The metric the run's paired bootstrap against the reference tests (statistics.quality).
QUALITY = {"pairwise": "strict_accuracy", "pointwise": "macro_f1"}
SIZES = {"n_pairs": "n_instances", "n_ideas": "n_instances"}  # instances scored per setup
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
# NovBench's appendix tables from the authors' annotations: the published subset → our output
# file (results/novbench/<dataset>/), the config key that declares its input, and tolerances.
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


def inputs(results: str, grid: dict, novbench, judges, paper_tables) -> dict[str, list[str]]:
    """The outputs the report reads: of the configured datasets compared with a paper's (and the
    judge datasets' expert-study file where their release declares one, and the NovBench
    datasets' appendix tables where the config declares their annotations)."""
    novbench_sets = [d["name"] for d in grid["novbench"]["datasets"].values()]
    judges_sets = [d["name"] for d in grid["judges"]["datasets"].values()]
    return {
        "tables": [f"{results}/novbench/{d}/table.csv" for d in novbench_sets],
        "scores": [p for d in novbench_sets for p in novbench.score_paths(results, d)],
        "metrics": [
            f"{results}/judges/{d}/{f}/metrics.csv" for d in judges_sets for f in judges.formats(d)
        ],
        "expert": [
            file.local
            for d in judges_sets
            for file in judges.releases.get(d, [])
            if file.path == EXPERT_FILE
        ],
        "paper_tables": [
            path
            for path in paper_tables.outputs(results, novbench)
            if Path(path).parent.name in novbench_sets
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


def paper_table_row(row, grid: dict, paper_tables: dict[tuple[str, str], pd.DataFrame]) -> dict:
    """Our value of one published number of Tables 6–8 or of the human agreement, from the
    appendix tables (``paper_tables``: (dataset, file name) → table), or why there is none."""
    subset, _, part = row.subset.partition("=")
    file, key = PAPER_TABLES[subset]
    if subset == "human_agreement":  # computed from the annotators' sheets alone
        return _human_agreement(row, paper_tables, file)
    dataset = grid["datasets"].get(row.dataset)
    if dataset is None:
        return _not_run(_unconfigured("dataset", row.dataset, "novbench.datasets"))
    for kind, value, known, config_key in [
        ("model", row.model, dataset["models"], "models"),
        ("strategy", row.strategy, grid["strategies"], "strategies"),
        ("perturbation", row.perturbation, grid["perturbations"], "perturbations"),
    ]:
        if value not in known:
            return _not_run(_unconfigured(kind, value, f"novbench.{config_key}"))
    table = paper_tables.get((dataset["name"], file))
    if table is None:
        return _not_run(f"novbench.datasets.{dataset['name']}.{key} is not declared")
    where = f"{dataset['name']}/{file}"
    tolerance = PAPER_TABLE_TOLERANCES.get(row.metric) or TOLERANCES[row.metric]
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
        return _not_run(f"no row in {where} (cell left out; see the run's log)")
    ours = found.iloc[0]
    compared = _compared(row, float(ours[column]), tolerance, row.note)
    if subset == "paper_type" and row.metric in PAPER_SCORERS:
        scorer, paper = PAPER_SCORERS[row.metric]
        if ours[scorer] != paper:
            compared["verdict"] = "not run"
            compared["reason"] = (
                f"documented deviation: scored with {scorer} {ours[scorer]} (paper: {paper})"
            )
    if subset == "reviewer_confidence" and ours["n_missing"]:
        compared["verdict"] = "not comparable"
        compared["reason"] = (
            f"{ours['n_missing']} of the {ours['n_papers']} papers of the confidence file have "
            f"no output of this cell (counted with the empty text, as the authors did)"
        )
    return compared


def _human_agreement(row, paper_tables: dict[tuple[str, str], pd.DataFrame], file: str) -> dict:
    """A human-agreement number from the dataset that declares the annotators' sheets (they
    alone make the table): never like-for-like with fewer annotators than the paper's four."""
    declared = sorted(dataset for dataset, name in paper_tables if name == file)
    if not declared:
        return _not_run("no compared dataset declares human_eval (novbench.datasets.<name>)")
    where = f"{declared[0]}/{file}"
    table = paper_tables[(declared[0], file)]
    metric = "-" if row.metric == "fleiss_kappa" else HUMAN_AGREEMENT_METRIC
    found = table[(table["statistic"] == row.metric) & (table["metric"] == metric)]
    if found.empty:
        return _not_run(f"no {row.metric} of metric '{metric}' in {where}")
    ours = found.iloc[0]
    compared = _compared(row, float(ours["value"]), PAPER_TABLE_TOLERANCES[row.metric], where)
    annotators = int(ours["n_annotators"])
    if annotators == PUBLISHED_ANNOTATORS:
        return compared
    reasons = [where, f"{annotators} annotators' sheets, the paper's {PUBLISHED_ANNOTATORS}"]
    if row.metric != "fleiss_kappa":
        reasons.append(
            f"majority of {annotators} ({ours['n_ties']} ties dropped); the metric preference "
            f"is the mean of the four metrics (Relevance as (Rel - 1) / 4), the paper's "
            f"combination is not in the released code"
        )
    reasons.append(f"would be: {compared['verdict']}")
    return {**compared, "verdict": "not comparable", "reason": "; ".join(reasons)}


def selects(pattern: str, name: str) -> bool:
    """Whether a published row's setup, change or model (``*`` and ``|`` alternatives, as in
    ``P3|P4|P5``) names ``name``."""
    return any(fnmatch.fnmatchcase(name, part) for part in pattern.split("|"))


def expert_counts(path: str) -> dict[str, int]:
    """The expert study's judge errors (the judge's verdict differs from the gold) and controls
    (it agrees) in the release's ``judge_errors.csv``."""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    wrong = table["predicted"] != table["gold"]
    return {"errors": int(wrong.sum()), "controls": int((~wrong).sum())}


def _aggregate(row, values: pd.Series) -> tuple[float, str]:
    """One value from the run's cells a published row names, and the note saying how."""
    if row.statistic in ("", "at_least"):
        if len(values) > 1:
            raise ValueError(f"published/judges.csv: '{row.cell}' names {len(values)} cells")
        return float(values.iloc[0]), ""
    pick = {"min": values.min, "max": values.max, "max_abs": values.abs().max}[row.statistic]
    return float(pick()), f"{row.statistic} over {len(values)} cells"


def judges_row(
    row,
    grid: dict,
    metrics: dict[tuple[str, str], pd.DataFrame],
    expert: dict[str, dict[str, int]],
) -> dict:
    """Our value of one published judge-study number, or why there is none."""
    if row.not_run_reason:  # the paper grid runs no such cell (published/judges.csv says why)
        return _not_run(row.not_run_reason)
    if row.metric in RELEASE_FACTS:
        if row.dataset not in expert:
            return _not_run(f"the run read no {EXPERT_FILE} of dataset '{row.dataset}'")
        return _compared(row, expert[row.dataset][row.metric], TOLERANCES[row.unit], row.note)
    if not all(any(selects(part, c) for c in CHANGES) for part in row.change.split("|")):
        return _not_run(f"'{row.change}' is another system, not a change of this pipeline")
    if row.dataset not in grid["datasets"]:
        return _not_run(_unconfigured("dataset", row.dataset, "judges.datasets"))
    if row.model and not any(selects(row.model, m) for m in grid["models"]):
        return _not_run(_unconfigured("model", row.model, "judges.models"))
    if not any(selects(row.change, c) for c in grid["changes"]):
        key = "judges.idea_formats" if split_change(row.change)[1] != STANDARD else "judges.changes"
        return _not_run(_unconfigured("change", row.change, key))
    if row.versus:
        return _not_run(
            f"the run's flip rates are against each judge's reference; this one is against "
            f"{row.versus}"
        )
    table = metrics.get((row.dataset, row.format))
    if table is None:
        return _not_run(f"no {row.format} instances in dataset '{row.dataset}'")
    where = f"{row.dataset}/{row.format}/metrics.csv"
    found = table[
        table["setup"].map(lambda setup: selects(row.setup, setup))
        & table["change"].map(lambda change: selects(row.change, change))
        & table["model"].map(lambda model: not row.model or selects(row.model, model))
    ]
    if found.empty:
        return _not_run(f"no row for setup '{row.setup}', change '{row.change}' in {where}")
    column = SIZES.get(row.metric, row.metric)
    if column not in found:
        return _not_run(f"no column '{column}' in {where}")
    scale = 100 if row.unit == "percent" else 1
    if row.metric in SIZES:  # every judge of a setup scores the same instances
        counts = sorted(found[column].astype(int).unique())
        ours, how = float(counts[-1]), "" if len(counts) == 1 else f"judges scored {counts}"
    else:
        ours, how = _aggregate(row, found[column].astype(float) * scale)
    tolerance = COST_TOLERANCE * row.paper_value if row.unit == "usd" else TOLERANCES[row.unit]
    notes = [row.note, how]
    if row.significant and row.metric != QUALITY[row.format]:
        notes.append(
            f"significant: paper {row.significant}; the run's bootstrap tests "
            f"{QUALITY[row.format]}, not {row.metric}"
        )
    elif row.significant and "significant" in found:
        ours_mark = {True: "yes", False: "no"}[bool(found["significant"].iloc[0])]
        agree = "agrees" if ours_mark == row.significant else "differs"
        notes.append(f"significant: paper {row.significant}, ours {ours_mark} ({agree})")
    compared = _compared(row, ours, tolerance, "; ".join(n for n in notes if n))
    if row.statistic == "at_least" and ours >= row.paper_value:
        compared["verdict"] = "match"
    return compared


def rows(
    grid: dict,
    tables: dict,
    metrics: dict,
    expert: dict | None = None,
    paper_tables: dict | None = None,
) -> pd.DataFrame:
    """One report row per published number of both studies (``expert``: the expert-study counts
    per judge dataset, :func:`expert_counts`; ``paper_tables``: NovBench's appendix tables,
    :func:`paper_table_row`)."""
    out = []
    for row in published("novbench").itertuples(index=False):
        if row.subset.partition("=")[0] in PAPER_TABLES:
            ours = paper_table_row(row, grid["novbench"], paper_tables or {})
        else:
            ours = novbench_row(row, grid["novbench"], tables)
        out.append(_base(row) | ours)
    for row in published("judges").itertuples(index=False):
        out.append(_base(row) | judges_row(row, grid["judges"], metrics, expert or {}))
    return pd.DataFrame(out, columns=COLUMNS)


def _base(row) -> dict:
    return {c: getattr(row, c) for c in ("study", "table", "cell", "metric", "paper_value")}


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
        "percentage points, 0.02 for a fraction, 10% of a cost, a count exactly; a bound such "
        "as 'more than two thirds' matches when ours is at least the bound). A judge row over "
        "several cells (every judge, P3|P4|P5) compares the min, max or largest |value| of the "
        "run's cells; a published significance mark is set beside ours in the reason.",
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
    expert_paths: list[str] = (),
    paper_table_paths: list[str] = (),
) -> None:
    """Read the configured outputs (paths name their dataset and format; an expert-study file its
    dataset, as ``{downloads}/{dataset}/expert-annotations/judge_errors.csv``; an appendix table
    its dataset, as ``novbench/{dataset}/paper_type.csv``) and write the report."""
    from noveval.novbench import uncertainty  # scipy: here, not when the Snakefile imports this

    tables = {Path(p).parent.name: pd.read_csv(p) for p in tables_paths}
    metrics = {
        (Path(p).parent.parent.name, Path(p).parent.name): pd.read_csv(p) for p in metrics_paths
    }
    expert = {Path(p).parent.parent.name: expert_counts(p) for p in expert_paths}
    scores = {}
    for path in scores_paths:
        scores.setdefault(Path(path).parent.parent.name, []).append(path)
    paper_tables = {(Path(p).parent.name, Path(p).name): pd.read_csv(p) for p in paper_table_paths}
    report = rows(grid, tables, metrics, expert, paper_tables)
    sections = {d: uncertainty.markdown(read_tables(paths)) for d, paths in scores.items()}
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    report.to_csv(csv_path, index=False)
    Path(markdown_path).write_text(markdown(report, sections))
    log.info("%s", report["verdict"].value_counts().to_dict())
