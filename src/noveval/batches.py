"""Inference batches: the calls one inference job makes through one server start.

A batch is every call of one model on one dataset for one step of a track: the grid's cells,
or a preliminary step whose answers other requests are built from (NovBench paraphrases, the
judges' generated ideas, purpose-mechanism rewrites and literature-search queries, NovBench's
paper-type labels). Its responses table holds every cell's rows.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

CELLS = "cells"
PARAPHRASE = "paraphrase"
GENERATION = "generation"
REWRITE = "rewrite"
PAPER_TYPE = "paper_type"
SEARCH_CONTRIBUTIONS = "search_contributions"  # the judges' assisted search, step 1
SEARCH_QUERIES = "search_queries"  # and step 2
BATCHES = (CELLS, PARAPHRASE, GENERATION, REWRITE, PAPER_TYPE, SEARCH_CONTRIBUTIONS, SEARCH_QUERIES)


def responses_path(results: str, track: str, dataset: str, model: str, batch: str) -> str:
    """The responses table of one batch (rule infer's output)."""
    return f"{results}/{track}/{dataset}/{model}/responses/{batch}.parquet"


def read_responses(path: str | Path, cell: str) -> pd.DataFrame:
    """The responses of one cell from its batch's responses table."""
    responses = pd.read_parquet(path)
    if cell not in set(responses["cell"]):
        raise ValueError(f"{path}: no responses of cell '{cell}'")
    return responses[responses["cell"] == cell].drop(columns="cell").reset_index(drop=True)
