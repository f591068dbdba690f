"""A NovBench card's tables and Markdown, and the leaderboard of a run's cards.

A card has one section per dataset and perturbation the evaluator ran on: its four metrics with
intervals, the nearest published Table 2 row, and its tests (``noveval.novbench.card``): paired
against a paper cell this run scored on the same papers (the nearest published row's model and
strategy where this run scored it, else the nearest of the cells it scored), and, where the
nearest published model was not run here, the unpaired check of its published values.
"""

from __future__ import annotations

import pandas as pd

from noveval.core.cards import interval, number, table_header, table_row
from noveval.novbench import card
from noveval.novbench.custom import custom_strategy, evaluator_of
from noveval.novbench.tables import HUMAN, METRICS

KEYS = ["dataset", "perturbation"]
TEST_COLUMNS = [
    *KEYS,
    "metric",
    "kind",
    "against",
    "mine",
    "theirs",
    "difference",
    "statistic",
    "p_value",
    "significant",
    "inside",
    "n",
]


def paper_cells(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows of the paper's cells (a paper strategy, not the human row, no custom one)."""
    strategy = scores["strategy"].astype(str)
    custom = strategy.map(lambda s: evaluator_of(s) is not None)
    return scores[(scores["model"] != HUMAN) & ~custom]


def card_tables(
    scores: pd.DataFrame, strategy: str, published: pd.DataFrame, resamples: int = card.RESAMPLES
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(sections, tests) of one evaluator: ``scores`` has every scored cell of the datasets it
    ran on (a ``dataset`` column beside the scores' own); ``published``: Table 2's model rows
    (``card.published_rows``)."""
    scales = card.metric_scales(published)
    sections, tests = [], []
    mine_all = scores[scores["strategy"] == strategy]
    others_all = paper_cells(scores)
    for (dataset, perturbation), mine in mine_all.groupby(KEYS, sort=False):
        key = {"dataset": dataset, "perturbation": perturbation}
        stats = card.cell_statistics(mine, resamples)
        means = {m: stats[m] for m in METRICS}
        near = card.nearest(means, published, scales)
        others = others_all[
            (others_all["dataset"] == dataset) & (others_all["perturbation"] == perturbation)
        ]
        run = _run_means(others)
        ran_nearest = near is not None and (near["model"], near["strategy"]) in run
        section = key | {"model": mine["model"].iloc[0]} | stats
        section |= {
            "nearest_model": near["model"] if near else None,
            "nearest_strategy": near["strategy"] if near else None,
            "nearest_distance": near["distance"] if near else float("nan"),
            "nearest_run_here": ran_nearest,
        }
        against = (near["model"], near["strategy"]) if ran_nearest else None
        if against is None and run:
            runs = pd.DataFrame([{"model": m, "strategy": s, **v} for (m, s), v in run.items()])
            closest = card.nearest(means, runs, scales)
            against = (closest["model"], closest["strategy"]) if closest else None
        if against is not None:
            theirs = others[(others["model"] == against[0]) & (others["strategy"] == against[1])]
            for metric in METRICS:
                tests.append(
                    key
                    | {
                        "metric": metric,
                        "kind": card.PAIRED,
                        "against": f"{against[0]} {against[1]}",
                        "mine": stats[metric],
                        "theirs": run[against][metric],
                    }
                    | card.paired_test(mine, theirs, metric)
                )
        if near is not None and not ran_nearest:
            for metric in METRICS:
                tests.append(
                    key
                    | {
                        "metric": metric,
                        "kind": card.UNPAIRED,
                        "against": f"{near['model']} {near['strategy']}",
                        "mine": stats[metric],
                        "theirs": near[metric],
                        "inside": card.inside(
                            near[metric], stats[f"{metric}_low"], stats[f"{metric}_high"]
                        ),
                        "n": stats["papers"],
                    }
                )
        sections.append(section)
    return pd.DataFrame(sections), pd.DataFrame(tests, columns=TEST_COLUMNS)


def _run_means(cells: pd.DataFrame) -> dict[tuple[str, str], dict[str, float]]:
    """(model, strategy) -> the four metrics' means of the paper cells this run scored (a cell
    whose every call failed has none)."""
    means = cells.groupby(["model", "strategy"], sort=True)[METRICS].mean().dropna()
    return {key: row.to_dict() for key, row in means.iterrows()}


def card_markdown(
    name: str,
    model: str,
    sections: pd.DataFrame,
    tests: pd.DataFrame,
    published: pd.DataFrame,
) -> str:
    """The card's Markdown: the reading, each section's metrics and tests, Table 2's rows."""
    header = ["dataset", "perturbation", *(card.LABELS[m] for m in METRICS), "papers"]
    header += ["unparseable", "failed", "nearest published (distance)"]
    lines = [f"# NovBench card: {name}", "", f"Model: `{model}`; its cells' strategy "]
    lines[-1] += f"`{custom_strategy(name)}`."
    lines += ["", card.reading(name, sections, tests)]
    lines += ["", "## The four metrics (mean [95% bootstrap interval] over papers)", ""]
    lines += table_header(header)
    for _, row in sections.iterrows():
        nearest = "–"
        if isinstance(row["nearest_model"], str):
            ran = ", run here" if row["nearest_run_here"] else ", not run here"
            nearest = (
                f"{row['nearest_model']} {row['nearest_strategy']} "
                f"({row['nearest_distance']:.2f}{ran})"
            )
        cells = [row["dataset"], row["perturbation"], *(interval(row, m) for m in METRICS)]
        cells += [row["papers"], row["unparseable"], row["failed"], nearest]
        lines.append(table_row(cells))
    lines += ["", "## Tests", ""]
    lines += [
        "| dataset | perturbation | metric | kind | against | this evaluator | theirs "
        "| difference | p | published inside interval | papers |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, row in tests.iterrows():
        paired = row["kind"] == card.PAIRED
        mark = "*" if paired and row["significant"] else ""
        inside = "–" if paired else ("yes" if row["inside"] else "no")
        lines.append(
            f"| {row['dataset']} | {row['perturbation']} | {card.LABELS[row['metric']]} "
            f"| {row['kind']} | {row['against']} | {number(row['mine'])} "
            f"| {number(row['theirs'])} | {number(row['difference'])}{mark} "
            f"| {number(row['p_value'])} | {inside} | {row['n']} |"
        )
    if tests.empty:
        lines.append("| – | – | – | no model to test against | – | – | – | – | – | – | – |")
    lines += ["", _notes(), "", f"## Table {card.TABLE} (published)", ""]
    lines += [
        "| dataset | model | strategy | perturbation | " + " | ".join(card.LABELS.values()) + " |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, row in published.iterrows():
        values = " | ".join(number(row[m]) for m in METRICS)
        lines.append(
            f"| {row['dataset']} | {row['model']} | {row['strategy']} | {row['perturbation']} "
            f"| {values} |"
        )
    return "\n".join(lines) + "\n"


def _notes() -> str:
    return (
        f"Intervals: {card.CONFIDENCE:.0%} percentile bootstrap over papers "
        f"({card.RESAMPLES} resamples, seed {card.SEED}). Nearest published: the Table "
        f"{card.TABLE} row at the smallest Euclidean distance over the four metrics, each "
        f"difference divided by the metric's standard deviation across Table {card.TABLE}'s "
        f"model rows (Table {card.TABLE} is EMNLP 2023 on unperturbed inputs; every section is "
        "measured against it). Paired: the two-sided Wilcoxon signed-rank test of the per-paper "
        "differences (this evaluator − theirs) on the papers both scored, against the nearest "
        "published model where this run scored it, else the nearest paper cell this run scored "
        f"on the same dataset and perturbation (`*`: p < {card.ALPHA}). A published model this "
        "run did not score has no per-paper scores: its published value is checked against this "
        f"evaluator's interval instead ({card.UNPAIRED})."
    )


def leaderboard(sections: pd.DataFrame) -> pd.DataFrame:
    """One row per evaluator, dataset and perturbation: model, the four means, papers, the
    nearest published row and its distance."""
    columns = ["evaluator", "model", *KEYS, *METRICS, "papers", "unparseable", "failed"]
    columns += ["nearest_model", "nearest_strategy", "nearest_distance"]
    if sections.empty:
        return pd.DataFrame(columns=columns)
    return (
        sections[columns]
        .sort_values(["dataset", "perturbation", "evaluator"])
        .reset_index(drop=True)
    )
