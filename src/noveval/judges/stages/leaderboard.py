"""Stage judges_leaderboard: every card of the run in one table."""

from __future__ import annotations

import pandas as pd

from noveval.core.markdown import markdown_table
from noveval.judges.cards import report as card_report


def leaderboard(tables: list[str], markdown_path: str, csv_path: str) -> None:
    """The cards' measurements (one table per judge) → the leaderboard (Markdown and CSV)."""
    frames = [pd.read_parquet(path) for path in tables]
    board = card_report.leaderboard({f["judge"].iloc[0]: f for f in frames if len(f)})
    board.to_csv(csv_path, index=False)
    text = "# Leaderboard of the judges' cards\n\n" + markdown_table(board, floatfmt=".3f")
    card_report.write_card(markdown_path, text + "\n")


def run(job) -> None:
    """One job of rule judges_leaderboard."""
    leaderboard(list(job.input), job.output.markdown, job.output.csv)
