"""The Markdown of the two studies' cards and leaderboards: numbers, intervals, table rows, and
the files written atomically."""

from __future__ import annotations

import pandas as pd

from noveval.core.files import write_bytes
from noveval.core.markdown import markdown_table


def number(value, digits: int = 3) -> str:
    """A value to ``digits`` decimals, or an en dash where it is missing."""
    return "–" if pd.isna(value) else f"{value:.{digits}f}"


def interval(row, name: str) -> str:
    """``name`` and its interval (``<name>_low``, ``<name>_high``): ``value [low, high]``."""
    low, high = row.get(f"{name}_low"), row.get(f"{name}_high")
    return f"{number(row[name])} [{number(low)}, {number(high)}]"


def table_header(names: list[str]) -> list[str]:
    """A Markdown table's header row and rule."""
    return [table_row(names), "|" + "---|" * len(names)]


def table_row(cells) -> str:
    """A Markdown table row of ``cells``."""
    return "| " + " | ".join(map(str, cells)) + " |"


def write_markdown(path: str, text: str) -> None:
    """Write a card's Markdown atomically."""
    write_bytes(text.encode(), path)


def write_leaderboard(board: pd.DataFrame, title: str, markdown_path: str, csv_path: str) -> None:
    """A leaderboard as CSV and as Markdown under ``# {title}`` (3 decimals)."""
    board.to_csv(csv_path, index=False)
    text = f"# {title}\n\n" + markdown_table(board, floatfmt=".3f")
    write_markdown(markdown_path, text + "\n")
