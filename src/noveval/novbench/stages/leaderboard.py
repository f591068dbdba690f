"""Stage novbench_leaderboard: every NovBench card of the run in one table."""

from __future__ import annotations

import pandas as pd

from noveval.core.markdown import markdown_table
from noveval.novbench import card_report


def leaderboard(tables: list[str], markdown_path: str, csv_path: str) -> None:
    """The cards' sections (one table per evaluator) → the leaderboard (Markdown and CSV)."""
    frames = [pd.read_parquet(path) for path in tables]
    board = card_report.leaderboard(pd.concat(frames, ignore_index=True))
    board.to_csv(csv_path, index=False)
    text = "# Leaderboard of the NovBench cards\n\n" + markdown_table(board, floatfmt=".3f")
    card_report.write_card(markdown_path, text + "\n")


def run(job) -> None:
    """One job of rule novbench_leaderboard."""
    leaderboard(list(job.input), job.output.markdown, job.output.csv)
