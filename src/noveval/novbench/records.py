"""Loader for the NovBench release JSON (the authors' record format) and Parquet helpers."""

import ast
import json
import logging
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from noveval.core.files import write_table
from noveval.novbench.parsing import parse_evaluation

log = logging.getLogger(__name__)

CELL_COLUMNS = ["model", "strategy", "perturbation"]  # a NovBench cell's key

MIN_DESCRIPTION_CHARS = 10
_TEXT_LIST = pa.list_(pa.string())
PAPER_COLUMNS: dict[str, pa.DataType] = {
    "paper_id": pa.string(),
    "title": pa.string(),
    "abstract": pa.string(),
    "decision": pa.string(),
    "paper_type": pa.string(),
    "descriptions": _TEXT_LIST,
    "novelty_text": pa.string(),
    "gold_texts": _TEXT_LIST,
    "gold_labels": _TEXT_LIST,
    "gold_text": pa.string(),
    "retrieved_titles": _TEXT_LIST,
    "retrieved_abstracts": _TEXT_LIST,
}
_REQUIRED_TEXT_KEYS = ("title", "abstract", "decision", "output_format")
_LEADING_BULLETS = re.compile(r"^[\s•·▪●◦*\-–]+")


def load_release(path: str | Path) -> pd.DataFrame:
    """Read a release JSON file into one row per usable paper (see ``PAPER_COLUMNS``).

    Papers without a novelty description or a gold item are dropped and counted in the log; a
    file with none left is an error.
    """
    path = Path(path)
    papers = _papers(read_records(path), path)
    without_descriptions = sum(not paper["descriptions"] for paper in papers)
    without_gold = sum(bool(paper["descriptions"]) and not paper["gold_texts"] for paper in papers)
    kept = [paper for paper in papers if paper["descriptions"] and paper["gold_texts"]]
    log.info(
        "%s: kept %d of %d papers; dropped %d without novelty descriptions "
        "and %d more without gold items",
        path,
        len(kept),
        len(papers),
        without_descriptions,
        without_gold,
    )
    if not kept:
        raise ValueError(
            f"{path}: no usable papers, none of its {len(papers)} records has both a novelty "
            "description and a gold item"
        )
    return pd.DataFrame(kept, columns=list(PAPER_COLUMNS))


def load_perturbation_release(path: str | Path) -> pd.DataFrame:
    """Read the authors' perturbed inputs (``Final_data_change.json``, ``Final_data_del.json``).

    Every record is kept, and ``paper_novelty`` is taken as given: a string that is not a list
    literal (a paraphrase reply) becomes one description, and ``novelty_text`` keeps the string
    the authors inserted into their prompts.
    """
    path = Path(path)
    papers = _papers(read_records(path), path, lenient=True)
    log.info("%s: %d perturbed papers", path, len(papers))
    return pd.DataFrame(papers, columns=list(PAPER_COLUMNS))


def read_records(path: str | Path) -> list:
    """The records of a release-format JSON file. A file that is not UTF-8, not JSON (e.g.
    truncated), not a list, or an empty list is an error naming the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        bad = error.object[error.start : error.start + 1]
        raise ValueError(f"{path}: not UTF-8 text (byte {error.start} is {bad!r})") from None
    try:
        records = json.loads(text)
    except json.JSONDecodeError as error:
        at_end = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string")
        ends_early = ", the file ends early: truncated?" if at_end else ""
        raise ValueError(f"{path}: not valid JSON ({error}){ends_early}") from None
    if not isinstance(records, list):
        raise ValueError(f"{path}: expected a JSON list of records, got {type(records).__name__}")
    if not records:
        raise ValueError(f"{path}: no records (an empty dataset)")
    return records


def _papers(records: list, path: Path, lenient: bool = False) -> list[dict[str, Any]]:
    """Every record as a paper row; the file's bad records are listed in one error."""
    papers, problems = [], []
    first_index_of: dict[str, int] = {}
    for index, record in enumerate(records):
        try:
            paper = _paper_from_record(record, f"record {index}", lenient)
        except ValueError as error:
            problems.append(str(error))
            continue
        first = first_index_of.setdefault(paper["paper_id"], index)
        if first != index:
            problems.append(
                f"record {index} (id={paper['paper_id']!r}): duplicate id, first seen at record "
                f"{first}"
            )
            continue
        papers.append(paper)
    if problems:
        listed = "\n".join(f"  {problem}" for problem in problems)
        raise ValueError(f"{path}: {len(problems)} of {len(records)} records are bad:\n{listed}")
    return papers


def write_papers(papers: pd.DataFrame, path: str | Path) -> None:
    """Write papers to Parquet atomically, typing the known columns (list columns as lists of
    strings)."""
    columns = {
        column: pa.array(papers[column].tolist(), type=PAPER_COLUMNS.get(column))
        for column in papers.columns
    }
    write_table(pa.table(columns), path)


def read_papers(path: str | Path) -> pd.DataFrame:
    """Read papers written by ``write_papers``; list columns come back as Python lists."""
    table = pq.read_table(path)
    return pd.DataFrame(table.to_pydict(), columns=table.column_names)


def _paper_from_record(record: Any, where: str, lenient: bool = False) -> dict[str, Any]:
    """Validate one release record and convert it to a paper row (``lenient``: see
    ``_descriptions``)."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected an object, got {type(record).__name__}")
    paper_id = record.get("id")
    if isinstance(paper_id, bool) or not isinstance(paper_id, str | int):
        raise ValueError(f"{where}: 'id' must be a string or an integer, got {paper_id!r}")
    where = f"{where} (id={str(paper_id)!r})"
    for key in (*_REQUIRED_TEXT_KEYS, "paper_novelty"):
        if key not in record:
            raise ValueError(f"{where}: missing key {key!r}")
    for key in _REQUIRED_TEXT_KEYS:
        if not isinstance(record[key], str):
            raise ValueError(f"{where}: {key!r} must be a string, got {_kind(record[key])}")
    if not record["output_format"].strip():
        raise ValueError(f"{where}: 'output_format' (the gold evaluation) is empty")
    paper_type = record.get("paper_type")
    if paper_type is not None and not isinstance(paper_type, str):
        raise ValueError(f"{where}: 'paper_type' must be a string, got {type(paper_type).__name__}")
    retrieved_titles, retrieved_abstracts = _retrieved(record, where)
    gold = parse_evaluation(record["output_format"])
    return {
        "paper_id": str(paper_id),
        "title": record["title"],
        "abstract": record["abstract"],
        "decision": record["decision"],
        "paper_type": paper_type,
        "descriptions": _descriptions(record["paper_novelty"], where, lenient),
        "novelty_text": str(record["paper_novelty"]),
        "gold_texts": gold.texts,
        "gold_labels": gold.labels,
        "gold_text": record["output_format"],
        "retrieved_titles": retrieved_titles,
        "retrieved_abstracts": retrieved_abstracts,
    }


def _descriptions(value: Any, where: str, lenient: bool = False) -> list[str]:
    """Clean the novelty sentences; the authors' files sometimes store the list as its repr.

    ``lenient``: a string that is not a list literal is one description instead of an error.
    """
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            if not lenient:
                raise ValueError(
                    f"{where}: 'paper_novelty' is a string but not a list literal"
                ) from None
            value = [value]
    sentences = _string_list(value, "paper_novelty", where)
    empty = [str(index) for index, sentence in enumerate(sentences) if not sentence.strip()]
    if empty and not lenient:
        raise ValueError(f"{where}: 'paper_novelty' item {', '.join(empty)} is empty")
    cleaned = (_LEADING_BULLETS.sub("", sentence).strip() for sentence in sentences)
    return [sentence for sentence in cleaned if len(sentence) >= MIN_DESCRIPTION_CHARS]


def _retrieved(record: dict[str, Any], where: str) -> tuple[list[str], list[str]]:
    """Return the retrieved titles and abstracts (empty when absent), checking they pair up."""
    has_titles, has_abstracts = "retrieved_title" in record, "retrieved_abstract" in record
    if not has_titles and not has_abstracts:
        return [], []
    if has_titles != has_abstracts:
        present, absent = (
            ("retrieved_title", "retrieved_abstract")
            if has_titles
            else ("retrieved_abstract", "retrieved_title")
        )
        raise ValueError(f"{where}: length mismatch, {present!r} is present but {absent!r} is not")
    titles = _string_list(record["retrieved_title"], "retrieved_title", where)
    abstracts = _string_list(record["retrieved_abstract"], "retrieved_abstract", where)
    if len(titles) != len(abstracts):
        raise ValueError(
            f"{where}: length mismatch, {len(titles)} retrieved_title entries "
            f"but {len(abstracts)} retrieved_abstract entries"
        )
    return titles, abstracts


def _string_list(value: Any, key: str, where: str) -> list[str]:
    """Check that a field holds a list of strings, naming the first item that is not one."""
    if not isinstance(value, list):
        raise ValueError(f"{where}: {key!r} must be a list of strings, got {_kind(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ValueError(
                f"{where}: {key!r} must be a list of strings, item {index} is {_kind(item)}"
            )
    return value


def _kind(value: Any) -> str:
    """A value's JSON kind for error messages (``null`` for None)."""
    return "null" if value is None else type(value).__name__
