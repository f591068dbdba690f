"""The project's reference tables of both studies' published numbers (``*.csv`` here)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

PUBLISHED = Path(__file__).parent


def published(study: str) -> pd.DataFrame:
    """The project's reference table of one study's published numbers, with their sources."""
    return pd.read_csv(PUBLISHED / f"{study}.csv", dtype={"table": str}, keep_default_na=False)
