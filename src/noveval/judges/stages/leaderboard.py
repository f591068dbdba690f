"""Stage judges_leaderboard: every card of the run in one table."""

from __future__ import annotations

import pandas as pd

from noveval.core.cards import write_leaderboard
from noveval.judges.cards import report as card_report


def leaderboard(tables: list[str], markdown_path: str, csv_path: str) -> None:
    """The cards' measurements (one table per judge) → the leaderboard (Markdown and CSV)."""
    frames = [pd.read_parquet(path) for path in tables]
    board = card_report.leaderboard({f["judge"].iloc[0]: f for f in frames if len(f)})
    write_leaderboard(board, "Leaderboard of the judges' cards", markdown_path, csv_path)


def run(job) -> None:
    """One job of rule judges_leaderboard."""
    leaderboard(list(job.input), job.output.markdown, job.output.csv)
