"""Inference batches: the calls one inference job makes through one server start.

A batch is every call of one model on one dataset for one step of a track: the grid's cells,
or a preliminary step whose answers other requests are built from (NovBench paraphrases, the
judges' generated ideas, purpose-mechanism rewrites and literature-search queries, NovBench's
paper-type labels). Its jobs are its chunks (``noveval.inference.chunks``), each writing its own
responses table; the batch's responses table gathers them and holds every cell's rows.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.core.files import write_table

CELLS = "cells"
PARAPHRASE = "paraphrase"
GENERATION = "generation"
REWRITE = "rewrite"
PAPER_TYPE = "paper_type"
SEARCH_CONTRIBUTIONS = "search_contributions"  # the judges' assisted search, step 1
SEARCH_QUERIES = "search_queries"  # and step 2
# NovBench construction: sentence labels, the step prompt's second call, the gold format.
SENTENCES = "sentences"
STEP = "step"
NORMALISATION = "normalisation"
BATCHES = (
    CELLS,
    PARAPHRASE,
    GENERATION,
    REWRITE,
    PAPER_TYPE,
    SEARCH_CONTRIBUTIONS,
    SEARCH_QUERIES,
    SENTENCES,
    STEP,
    NORMALISATION,
)


def responses_path(results: str, track: str, dataset: str, model: str, batch: str) -> str:
    """The responses table of one batch (rule responses' output: its chunks gathered)."""
    return f"{results}/{track}/{dataset}/{model}/responses/{batch}.parquet"


def chunk_path(results: str, track: str, dataset: str, model: str, batch: str, chunk: str):
    """The responses table of one chunk of a batch (rule infer's output)."""
    return f"{results}/{track}/{dataset}/{model}/responses/{batch}/{chunk}.parquet"


def gather_responses(chunk_paths: list[str | Path], path: str | Path):
    """The batch's responses table: its chunks' rows, in chunk order (counted in the log)."""
    frames = [pd.read_parquet(chunk) for chunk in chunk_paths]
    write_table(pd.concat(frames, ignore_index=True), path)
    counts = ", ".join(f"{Path(c).stem}: {len(f)}" for c, f in zip(chunk_paths, frames))
    logging.getLogger(__name__).info("%s: rows of %d chunks (%s)", path, len(frames), counts)


def read_responses(path: str | Path, cell: str, requests_path: str | Path | None = None):
    """The responses of one cell from its batch's responses table. A cell whose requests table
    (``requests_path``, where given) holds no request has none: an empty table, not an error."""
    responses = pd.read_parquet(path)
    if cell not in set(responses["cell"]):
        if requests_path is not None and pd.read_parquet(requests_path).empty:
            return responses.iloc[:0].drop(columns="cell")
        raise ValueError(f"{path}: no responses of cell '{cell}'")
    return responses[responses["cell"] == cell].drop(columns="cell").reset_index(drop=True)
