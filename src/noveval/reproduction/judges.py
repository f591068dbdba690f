"""The judge study's published numbers beside the run's metrics and the release's expert counts."""

from __future__ import annotations

import fnmatch

import pandas as pd

from noveval.judges.grid.cells import LABELS, STANDARD, label_kind, labelled
from noveval.judges.prompts import calls_of
from noveval.reproduction.conditions import Conditions
from noveval.reproduction.targets import EXPERT_FILE
from noveval.reproduction.verdicts import COST_TOLERANCE, TOLERANCES, judged, not_run, unconfigured

# Published judge-study numbers that are counts in a release file, not metrics of a judge cell.
RELEASE_FACTS = ("errors", "controls")

# The metric the run's paired bootstrap against the reference tests (statistics.quality).
QUALITY = {"pairwise": "strict_accuracy", "pointwise": "macro_f1"}
SIZES = {"n_pairs": "n_instances", "n_ideas": "n_instances"}  # instances scored per setup


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


def judges_conditions(row, conditions: dict, found: pd.DataFrame | None) -> dict:
    """What one judge-study number was produced under (``conditions``: the run's or the paper's
    judge-study conditions; ``found``: the number's cells in metrics.csv, None for a count in a
    release file): the dataset (release commit, blocklist), prompts, request settings, each
    judge's wire, calls and aggregation of the cells' changes."""
    out = {"dataset": conditions["datasets"].get(row.dataset)}
    if found is None:  # a count in a release file
        return out
    found = labelled(found)
    models, changes = sorted(set(found["model"])), sorted(set(found["change_label"]))
    kinds = dict(zip(found["change_label"], found["change"]))  # display label -> change
    calls = conditions["calls"]
    out |= {
        "prompts": conditions["prompts"],
        "requests": conditions["requests"],
        "model": {model: conditions["models"].get(model) for model in models},
        "calls": {
            change: calls_of(kinds[change], calls["calls"], calls["calls_by_change"])
            for change in changes
        },
        "aggregation": conditions["aggregation"],
    }
    if "retrieval" in kinds.values():
        out["retrieval"] = conditions.get("retrieval")
    if "ai_scientist" in changes:
        out["ai_scientist"] = conditions.get("ai_scientist")
    if "novelty_checker" in changes:
        out["novelty_checker"] = conditions.get("novelty_checker")
    return out


def recorded(found: pd.DataFrame) -> dict:
    """What the run's metrics recorded of its cells: the models they substitute for and the share
    of failed calls."""
    out = {}
    if "substitutes_for" in found:
        named = sorted({str(m) for m in found["substitutes_for"] if pd.notna(m) and m})
        out["substitutes_for"] = ", ".join(named) or "none"
    if {"n_failed_calls", "n_calls"} <= set(found) and found["n_calls"].sum():
        out["failed_share"] = float(found["n_failed_calls"].sum() / found["n_calls"].sum())
    return out


def judges_row(
    row,
    grid: dict,
    metrics: dict[tuple[str, str], pd.DataFrame],
    expert: dict[str, dict[str, int]],
    conditions: Conditions,
) -> dict:
    """Our value of one published judge-study number, or why there is none."""
    run, paper = conditions.run["judges"], conditions.paper["judges"]
    if row.not_run_reason:  # the paper grid runs no such cell (published/judges.csv says why)
        return not_run(row.not_run_reason)
    if row.metric in RELEASE_FACTS:
        if row.dataset not in expert:
            return not_run(f"the run read no {EXPERT_FILE} of dataset '{row.dataset}'")
        return judged(
            row,
            expert[row.dataset][row.metric],
            TOLERANCES[row.unit],
            judges_conditions(row, run, None),
            judges_conditions(row, paper, None),
            conditions.limits,
            (row.note,),
        )
    if not all(any(selects(part, c) for c in LABELS) for part in row.change.split("|")):
        return not_run(f"'{row.change}' is another system, not a change of this pipeline")
    if row.dataset not in grid["datasets"]:
        return not_run(unconfigured("dataset", row.dataset, "judges.datasets"))
    not_runnable = grid.get("not_runnable", {})
    skipped = [m for m in not_runnable if row.model and selects(row.model, m)]
    runnable = [m for m in grid["models"] if m not in not_runnable]
    if skipped and not any(selects(row.model, m) for m in runnable):
        model = skipped[0]
        return not_run(
            f"{model}: {not_runnable[model]}; its cells are skipped "
            f"(judges.substitutions: {{{model}: <successor>}} runs another model in its place)"
        )
    if row.model and not any(selects(row.model, m) for m in grid["models"]):
        return not_run(unconfigured("model", row.model, "judges.models"))
    if not any(selects(row.change, c) for c in grid["changes"]):
        key = "judges.idea_formats" if label_kind(row.change)[1] != STANDARD else "judges.changes"
        return not_run(unconfigured("change", row.change, key))
    if row.versus:
        return not_run(
            f"the run's flip rates are against each judge's reference; this one is against "
            f"{row.versus}"
        )
    table = metrics.get((row.dataset, row.format))
    if table is None:
        return not_run(f"no {row.format} instances in dataset '{row.dataset}'")
    table = labelled(table)  # the cells' display labels: the published rows' key
    where = f"{row.dataset}/{row.format}/metrics.csv"
    found = table[
        table["setup"].map(lambda setup: selects(row.setup, setup))
        & table["change_label"].map(lambda change: selects(row.change, change))
        & table["model"].map(lambda model: not row.model or selects(row.model, model))
    ]
    if found.empty:
        return not_run(f"no row for setup '{row.setup}', change '{row.change}' in {where}")
    column = SIZES.get(row.metric, row.metric)
    if column not in found:
        return not_run(f"no column '{column}' in {where}")
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
    return judged(
        row,
        ours,
        tolerance,
        judges_conditions(row, run, found) | recorded(found),
        judges_conditions(row, paper, found) | {"substitutes_for": "none"},
        conditions.limits,
        tuple(notes),
    )
