"""Stage novbench_leaderboard: every NovBench card of the run in one table."""

from __future__ import annotations

import pandas as pd

from noveval.core.cards import write_leaderboard
from noveval.novbench import card_report


def leaderboard(tables: list[str], markdown_path: str, csv_path: str) -> None:
    """The cards' sections (one table per evaluator) → the leaderboard (Markdown and CSV)."""
    frames = [pd.read_parquet(path) for path in tables]
    board = card_report.leaderboard(pd.concat(frames, ignore_index=True))
    write_leaderboard(board, "Leaderboard of the NovBench cards", markdown_path, csv_path)


def run(job) -> None:
    """One job of rule novbench_leaderboard."""
    leaderboard(list(job.input), job.output.markdown, job.output.csv)
