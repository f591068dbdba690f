"""Judge tables: the controlled-study grid, tie and flip rates, the idea-format and ideation
comparisons from the metrics alone; the dataset sizes from the instances; the expert study from
the release's annotations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from noveval.core.markdown import markdown_table
from noveval.judges.grid.cells import IDEATION, LABELS, STANDARD, VERSUS, labelled
from noveval.judges.statistics import measures as statistics

# A cell's rows name it by its form of the ideas and its change (``ideas``, ``change``); the
# tables show the two as one display label (``change_label``, "P3+purpose_mechanism").
SHOWN = {"change_label": "change"}


def _pivot(metrics: pd.DataFrame, cells: pd.Series) -> pd.DataFrame:
    frame = labelled(metrics).assign(cell=cells)
    table = frame.pivot_table(
        index=["setup", "model"], columns="change_label", values="cell", aggfunc="first"
    )
    order = [c for c in LABELS if c in table.columns]
    return table[order].fillna("–")


def grid_table(metrics: pd.DataFrame) -> pd.DataFrame:
    """Quality in % (macro-F1 pointwise, strict accuracy pairwise); * = significant vs reference."""
    marks = metrics["significant"].fillna(False).astype(bool) & (
        labelled(metrics)["change_label"] != "reference"
    )
    cells = (metrics["quality"] * 100).round(1).astype(str) + marks.map({True: "*", False: ""})
    return _pivot(metrics, cells)


def percent_table(metrics: pd.DataFrame, column: str) -> pd.DataFrame:
    """One metric in % per judge × change."""
    return _pivot(metrics, (metrics[column] * 100).round(1).astype(str))


def write(metrics: pd.DataFrame, markdown_path: str | Path) -> None:
    """The three tables of one format as one Markdown file."""
    format = metrics["format"].iloc[0] if len(metrics) else "?"
    headline = "macro-F1" if format == "pointwise" else "strict accuracy"
    sections = [
        (
            f"Controlled study: {headline} (%), * = paired bootstrap interval excludes 0",
            grid_table(metrics),
        ),
        ("Tie rate (%)", percent_table(metrics, "tie_rate")),
        ("Flip rate against the same judge's reference (%)", percent_table(metrics, "flip_rate")),
    ]
    text = "\n\n".join(f"## {title}\n\n{markdown_table(table)}" for title, table in sections)
    Path(markdown_path).write_text(f"# Judges, {format}\n\n{text}\n")


def _markdown(path: str | Path, title: str, text: str, table: pd.DataFrame) -> None:
    Path(path).write_text(f"# {title}\n\n{text}\n\n{markdown_table(table)}\n")


FLIP_COLUMNS = [
    "format",
    "setup",
    "model",
    "change_label",
    "against",
    "change",
    "ideas",
    "n_instances",
    "flipped",
    "flip_rate",
]


def _verdict_runs(cell: pd.DataFrame) -> pd.DataFrame:
    """A cell's verdicts as instances × runs (one run unless sub-runs)."""
    runs = cell if "run" in cell else cell.assign(run=0)
    return runs.pivot(index="instance_id", columns="run", values="verdict")


def flip_rates(
    verdicts: dict[str, pd.DataFrame], baselines: dict[str, list[str] | None]
) -> pd.DataFrame:
    """The share of instances whose verdict (either idea or class, or a tie) differs between a
    change and a baseline run of the same judge, setup and format (``verdicts``: by format), the
    mean over both cells' runs. ``baselines``: each baseline change and the changes compared with
    it (None: every other change)."""
    rows = []
    for format, table in verdicts.items():
        for (model, setup), cells in labelled(table).groupby(["model", "setup"], sort=False):
            runs = {
                label: _verdict_runs(cell)
                for label, cell in cells.groupby("change_label", sort=False)
            }
            kinds = dict(zip(cells["change_label"], zip(cells["change"], cells["ideas"])))
            for against, changes in baselines.items():
                if against not in runs:
                    continue
                for change in changes or runs:
                    if change == against or change not in runs:
                        continue
                    base, new = runs[against], runs[change]
                    shared = base.index.intersection(new.index)
                    rate = np.mean(
                        [
                            statistics.flip_rate(base.loc[shared, a], new.loc[shared, b])
                            for a in base
                            for b in new
                        ]
                    )
                    rows.append(
                        {
                            "format": format,
                            "setup": setup,
                            "model": model,
                            "change_label": change,
                            "against": against,
                            "change": kinds[change][0],
                            "ideas": kinds[change][1],
                            "n_instances": len(shared),
                            "flipped": round(rate * len(shared)),
                            "flip_rate": float(rate),
                        }
                    )
    return pd.DataFrame(rows, columns=FLIP_COLUMNS)


def write_flip_rates(
    verdicts: dict[str, pd.DataFrame],
    baselines: dict[str, list[str] | None],
    csv_path: str | Path,
    markdown_path: str | Path,
) -> None:
    """The flip-rate table as CSV and Markdown (flip rate in %)."""
    table = flip_rates(verdicts, baselines)
    table.to_csv(csv_path, index=False)
    shown = table.assign(flip_rate=(table["flip_rate"] * 100).round(1))
    _markdown(
        markdown_path,
        "Flip rates",
        "The share (%) of instances whose verdict differs between a change and the same judge's "
        "baseline run (`against`; same setup and format; a change on another idea format "
        "against the baseline on the ideas as written), the mean over both runs' sub-runs.",
        shown.drop(columns=["change", "ideas"]).rename(columns=SHOWN),
    )


def ideation_table(metrics: pd.DataFrame) -> pd.DataFrame:
    """Per judge × comparison × change: the share of pairs awarded to the stronger generator
    (strict, and soft with ties as halves), ties, flips against the reference, and the strict
    accuracy's difference from the same judge's reference with its significance."""
    part = labelled(metrics)
    part = part[part["setup"].str.startswith(IDEATION)]
    names = part["setup"].str.removeprefix(IDEATION).str.split(VERSUS, n=1)
    reference = part[part["change_label"] == "reference"].set_index(["model", "setup"])
    baseline = reference["strict_accuracy"].reindex(
        pd.MultiIndex.from_frame(part[["model", "setup"]])
    )
    return pd.DataFrame(
        {
            "model": part["model"],
            "setup": part["setup"],
            "stronger": names.str[0],
            "weaker": names.str[1],
            "change_label": part["change_label"],
            "change": part["change"],
            "ideas": part["ideas"],
            "n_instances": part["n_instances"],
            "strict_accuracy": part["strict_accuracy"],
            "soft_accuracy": part["soft_accuracy"],
            "tie_rate": part["tie_rate"],
            "flip_rate": part["flip_rate"],
            "strict_accuracy_difference": part["strict_accuracy"] - baseline.to_numpy(),
            "significant": part["significant"],
        }
    ).reset_index(drop=True)


def write_ideation(metrics: pd.DataFrame, csv_path: str | Path, markdown_path: str | Path) -> None:
    """The ideation-system comparison as CSV and Markdown (rates in %)."""
    table = ideation_table(metrics)
    table.to_csv(csv_path, index=False)
    rates = ["strict_accuracy", "soft_accuracy", "tie_rate", "flip_rate"]
    shown = table.assign(
        **{c: (table[c] * 100).round(1) for c in [*rates, "strict_accuracy_difference"]}
    )
    _markdown(
        markdown_path,
        "Comparing ideation systems",
        "Each pair pits a stronger generator's idea against a weaker one's for the same primary "
        "area; the judge should award the stronger. Rates and the strict accuracy's difference "
        "from the same judge's reference run in %; flips count the pairs whose verdict a change "
        "reverses or ties against that reference.",
        shown.drop(columns=["change", "ideas"]).rename(columns=SHOWN),
    )


SIZE_COLUMNS = [
    "setup",
    "idea_format",
    "pairs",
    "ideas_in_pairs",
    "ideas",
    "novel_ideas",
    "not_novel_ideas",
]


def dataset_sizes(instances: list[pd.DataFrame], idea_formats: list[str]) -> pd.DataFrame:
    """Per setup and idea format, from the loaded instances: the pairs of the pairwise file and
    the distinct ideas in them, the ideas of the pointwise file and how many are labelled novel
    and not novel (NA where the setup has no such file)."""
    rows: dict[tuple[str, str], dict] = {}
    for table, idea_format in zip(instances, idea_formats, strict=True):
        if table.empty:
            continue
        setup = table["setup"].iloc[0]
        row = rows.setdefault((setup, idea_format), {"setup": setup, "idea_format": idea_format})
        if table["format"].iloc[0] == "pairwise":
            row |= {"pairs": len(table), "ideas_in_pairs": table["ideas"].explode().nunique()}
        else:
            row |= {
                "ideas": len(table),
                "novel_ideas": int((table["label"] == 1).sum()),
                "not_novel_ideas": int((table["label"] == 0).sum()),
            }
    table = pd.DataFrame(list(rows.values()), columns=SIZE_COLUMNS)
    counts = SIZE_COLUMNS[2:]
    return table.astype(dict.fromkeys(counts, "Int64")).sort_values(
        ["setup", "idea_format"], ignore_index=True
    )


def write_dataset_sizes(
    instances: list[pd.DataFrame],
    idea_formats: list[str],
    csv_path: str | Path,
    markdown_path: str | Path,
) -> None:
    table = dataset_sizes(instances, idea_formats)
    table.to_csv(csv_path, index=False)
    _markdown(
        markdown_path,
        "Dataset sizes",
        "Instances per setup and idea format as judged (after the blocklist, if any): the pairs "
        "of the pairwise file and the distinct ideas in them, the ideas of the pointwise file "
        "and their labels.",
        table.astype(object).where(table.notna(), "–"),
    )


EXPERT_COLUMNS = [
    "source_file",
    "generation_model",
    "judge_model",
    "gold",
    "predicted",
    "annotation",
]
EXPERT_GROUPS = ["source_file", "generation_model", "judge_model"]
ALL = "all"


def expert_study(annotations: pd.DataFrame, source: str = "judge_errors.csv") -> pd.DataFrame:
    """The expert re-judgement of judge verdicts: per benchmark file × D₋ generator × judge and
    in all, the items, the judge's errors (verdict other than the label; ties among them) and
    the controls it got right, and how often the blind expert sided with the label and with the
    judge (overall and on the errors)."""
    missing = [c for c in EXPERT_COLUMNS if c not in annotations]
    if missing:
        raise ValueError(f"{source}: no column(s) {missing} (expected {EXPERT_COLUMNS})")
    frame = annotations.assign(
        error=annotations["predicted"] != annotations["gold"],
        tie=annotations["predicted"] == "tie",
        expert_with_label=annotations["annotation"] == annotations["gold"],
        expert_with_judge=annotations["annotation"] == annotations["predicted"],
    )
    frame = frame.assign(
        errors_expert_with_label=frame["error"] & frame["expert_with_label"],
        errors_expert_with_judge=frame["error"] & frame["expert_with_judge"],
    )
    everything = frame.assign(**dict.fromkeys(EXPERT_GROUPS, ALL))
    counts = (
        pd.concat([frame, everything])
        .groupby(EXPERT_GROUPS, sort=False)
        .agg(
            items=("error", "size"),
            errors=("error", "sum"),
            controls=("error", lambda errors: int((~errors).sum())),
            tied_errors=("tie", "sum"),
            expert_with_label=("expert_with_label", "sum"),
            expert_with_judge=("expert_with_judge", "sum"),
            errors_expert_with_label=("errors_expert_with_label", "sum"),
            errors_expert_with_judge=("errors_expert_with_judge", "sum"),
        )
        .reset_index()
    )
    return counts.astype({c: int for c in counts.columns if c not in EXPERT_GROUPS})


def write_expert_study(csv_in: str | Path, csv_path: str | Path, markdown_path: str | Path) -> None:
    table = expert_study(pd.read_csv(csv_in, dtype=str), str(csv_in))
    table.to_csv(csv_path, index=False)
    _markdown(
        markdown_path,
        "Expert study",
        "Pairwise verdicts re-judged blind by a domain expert (the release's judge_errors.csv): "
        "errors are verdicts other than the benchmark label (ties included), controls the "
        "verdicts that match it; the expert's choice against the label and the judge.",
        table,
    )


PLAN_KEYS = ["format", "setup", "model", "change"]
PLAN_METRICS = ["strict_accuracy", "soft_accuracy", "macro_f1", "tie_rate", "flip_rate"]
PLAN_COMPARED = ["strict_accuracy", "macro_f1", "difference", "significant"]


def plan_format_table(metrics: pd.DataFrame) -> pd.DataFrame:
    """Each change on another idea format beside the same change on the ideas as written: its
    metrics, the difference of its quality (macro-F1 pointwise, strict accuracy pairwise) from the
    reference on the ideas as written and its significance, and the same for the change on the
    ideas as written (``*_standard``)."""
    frame = labelled(metrics)
    frame = frame.reindex(columns=[*frame.columns.union(PLAN_METRICS)])
    other = frame[frame["ideas"] != STANDARD].reset_index(drop=True)
    standard = frame[frame["ideas"] == STANDARD].set_index(PLAN_KEYS)
    beside = standard[PLAN_COMPARED].reindex(pd.MultiIndex.from_frame(other[PLAN_KEYS]))
    columns = [*PLAN_KEYS, "ideas", "change_label", "n_instances", *PLAN_METRICS]
    return pd.concat(
        [
            other[[*columns, "difference", "significant"]],
            beside.add_suffix("_standard").reset_index(drop=True),
        ],
        axis=1,
    )


def write_plan_format(metrics: pd.DataFrame, csv_path: str | Path) -> None:
    plan_format_table(metrics).to_csv(csv_path, index=False)
