"""Stage novbench_card: one custom evaluator's card (Markdown, and its sections for the
leaderboard)."""

from __future__ import annotations

import pandas as pd

from noveval.core.cards import write_markdown
from noveval.core.files import write_table
from noveval.core.published import published
from noveval.novbench import card, card_report
from noveval.novbench.custom import custom_strategy


def write_card(
    scores_paths: list[str],
    datasets: list[str],
    name: str,
    model: str,
    markdown_path: str,
    table_path: str,
) -> None:
    """``scores_paths``: every model's scores on each dataset the evaluator ran on
    (``datasets``: each file's dataset, in their order)."""
    scores = pd.concat(
        [
            pd.read_parquet(path).assign(dataset=dataset)
            for path, dataset in zip(scores_paths, datasets, strict=True)
        ],
        ignore_index=True,
    )
    rows = card.published_rows(published("novbench"))
    sections, tests = card_report.card_tables(scores, custom_strategy(name), rows)
    text = card_report.card_markdown(name, model, sections, tests, rows)
    write_markdown(markdown_path, text)
    write_table(sections.assign(evaluator=name), table_path)


def run(job) -> None:
    """One job of rule novbench_card."""
    write_card(
        list(job.input),
        list(job.params.datasets),
        job.wildcards.evaluator,
        job.params.model,
        job.output.markdown,
        job.output.table,
    )
