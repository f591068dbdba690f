"""Set each published number (``published/*.csv``) beside ours, with a verdict and its reason.

A configured dataset is compared with a paper table when its name is the ``dataset`` of the
published rows: NovBench ``emnlp2023`` (Tables 2, 3; Tables 6–8 where the dataset declares the
authors' annotations), ``coling2020`` (Table 4); Table 5 with the dataset that declares
``perturbations_release`` (the authors' 100-paper perturbation subset, whatever its name); the
judge study's ``novelty-eval`` (its full release, blocklist applied). The human agreement
(Section 4.3) is compared from whichever compared dataset declares the annotators' sheets.
Verdicts: ``match`` = equal when both are rounded to the paper's printed decimals; ``within`` =
inside the metric's tolerance (``verdicts.TOLERANCES``); ``outside``; ``not comparable`` (our value
exists, but was produced under other conditions than the paper's, or with too many failed or empty
answers: the reason names each); ``not run`` with the reason.

Conditions (``conditions.Conditions``, ``verdicts.judged``): every compared value carries the
conditions it was produced under, read from what the run recorded (the tables' scorers, paper
counts, failed and empty answers, ``substitutes_for``; the release file's SHA-256; the appendix
tables' annotation files' SHA-256 and annotator count) and from the config the steps read (prompt
mode, decoding, each model's registry wire, calls, aggregation, where the paper-type labels come
from). The paper's conditions are the same read from ``config/paper.yaml`` over
``config/config.yaml`` with ``config/models.yaml`` (``conditions.paper_conditions``), the
project's statement of the authors' protocol; the limits of the shares of failed and empty
answers are config ``reproduction``.
Each published number says where it comes from (``source_kind``): ``printed`` in the paper,
``authors' file`` (``source_file``), or ``own regression value``; a value reconstructed from the
authors' files carries its ``reconstruction_error`` and is at best ``within``.
The judge study's rows also compare flip rates, the plan-format cells, the ideation comparison
(over several cells), dataset sizes (instances scored) and the expert study's counts (the
release's ``judge_errors.csv``).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.core.files import read_tables
from noveval.core.published import published
from noveval.reproduction.conditions import Conditions
from noveval.reproduction.extraction import extraction_row
from noveval.reproduction.judges import expert_counts, judges_row
from noveval.reproduction.novbench import cell_requests, novbench_row, release_digest
from noveval.reproduction.paper_tables import PAPER_TABLES, paper_table_row
from noveval.reproduction.render import markdown, summary

log = logging.getLogger(__name__)


COLUMNS = [
    "study",
    "table",
    "cell",
    "metric",
    "paper_value",
    "source_kind",
    "our_value",
    "difference",
    "tolerance",
    "verdict",
    "reason",
    "conditions",
]


def rows(
    grid: dict,
    tables: dict,
    metrics: dict,
    conditions: Conditions,
    expert: dict | None = None,
    digests: dict[str, str] | None = None,
    requests: dict[tuple, dict] | None = None,
    paper_tables: dict[tuple[str, str], pd.DataFrame] | None = None,
    extraction: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One report row per published number of both studies. ``conditions``: the run's and the
    paper's conditions and the share limits (:class:`Conditions`); ``expert``: the expert-study
    counts per judge dataset (:func:`expert_counts`); ``digests``: the SHA-256 of each NovBench
    dataset's release file; ``requests``: the digests of each cell's requests
    (:func:`cell_requests`); ``paper_tables``: NovBench's appendix tables
    (:func:`paper_table_row`); ``extraction``: the extraction validation's scores
    (:func:`extraction_row`)."""
    out = []
    for row in published("novbench").itertuples(index=False):
        if row.subset.partition("=")[0] in PAPER_TABLES:
            ours = paper_table_row(
                row,
                grid["novbench"],
                tables,
                paper_tables or {},
                conditions,
                digests or {},
                requests,
            )
        else:
            ours = novbench_row(row, grid["novbench"], tables, conditions, digests or {}, requests)
        out.append(_base(row) | ours)
    for row in published("extraction").itertuples(index=False):
        out.append(_base(row) | extraction_row(row, extraction, conditions.limits))
    for row in published("judges").itertuples(index=False):
        out.append(_base(row) | judges_row(row, grid["judges"], metrics, expert or {}, conditions))
    return pd.DataFrame(out, columns=COLUMNS)


def _base(row) -> dict:
    return {
        c: getattr(row, c)
        for c in ("study", "table", "cell", "metric", "paper_value", "source_kind")
    }


def write(
    paths: dict[str, list[str]],
    grid: dict,
    conditions: Conditions,
    csv_path: str,
    markdown_path: str,
    summary_path: str,
    cells: list[dict] = (),
    registry: str | None = None,
    upstream_root: str | None = None,
) -> None:
    """Read the configured outputs (``paths``: :func:`inputs`' lists; paths name their dataset
    and format; an expert-study file its dataset, as
    ``{downloads}/{dataset}/expert-annotations/judge_errors.csv``; an appendix table its dataset,
    as ``novbench/{dataset}/paper_type.csv``; the release files in the order of the grid's
    NovBench datasets; the weights' manifests: :meth:`Conditions.with_weights`) and write the
    report and its summary. ``cells``:
    :func:`cells`; ``registry`` and ``upstream_root``: the project's registry and the fetched
    authors' scripts, for the paper mode's requests of each cell."""
    from noveval.novbench import uncertainty  # scipy: here, not when the Snakefile imports this

    tables = {Path(p).parent.name: pd.read_csv(p) for p in paths["tables"]}
    metrics = {
        (Path(p).parent.parent.name, Path(p).parent.name): pd.read_csv(p) for p in paths["metrics"]
    }
    expert = {Path(p).parent.parent.name: expert_counts(p) for p in paths["expert"]}
    names = [d["name"] for d in grid["novbench"]["datasets"].values()]
    digests = {name: release_digest(p) for name, p in zip(names, paths["releases"], strict=True)}
    scores = {}
    for path in paths["scores"]:
        scores.setdefault(Path(path).parent.parent.name, []).append(path)
    requests = cell_requests(list(cells), conditions, registry, upstream_root)
    conditions = conditions.with_weights(paths.get("weights", []))
    paper_tables = {
        (Path(p).parent.name, Path(p).name): pd.read_csv(p) for p in paths["paper_tables"]
    }
    extraction = pd.read_csv(paths["extraction"][0]) if paths.get("extraction") else None
    report = rows(
        grid, tables, metrics, conditions, expert, digests, requests, paper_tables, extraction
    )
    sections = {d: uncertainty.markdown(read_tables(paths)) for d, paths in scores.items()}
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    report.to_csv(csv_path, index=False)
    Path(markdown_path).write_text(markdown(report, sections))
    Path(summary_path).write_text(f"# Reproduction summary\n\n{summary(report)}\n")
    log.info("%s", report["verdict"].value_counts().to_dict())
