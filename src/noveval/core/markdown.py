"""Tables as Markdown: every index level a named column, never a tuple label."""

from __future__ import annotations

import pandas as pd


def markdown_table(frame: pd.DataFrame, **options) -> str:
    """``frame`` as a Markdown table (``options``: tabulate's, e.g. ``floatfmt``). A named index
    becomes the first columns, one per level (setup | model), headed by its names; an unnamed
    single index (positions, or the rows a filter kept) is left out."""
    if frame.columns.nlevels > 1:
        raise ValueError(f"columns {list(frame.columns.names)}: flatten them to show the table")
    names = list(frame.index.names)
    if any(name is not None for name in names):
        if None in names:
            raise ValueError(f"index levels {names}: name every level to show it as a column")
        frame = frame.reset_index()
    elif len(names) > 1:
        raise ValueError(f"an unnamed index of {len(names)} levels: name them to show them")
    return frame.to_markdown(index=False, **options)
