"""Cost of NovBench metric scoring: CPU-hours and SLURM resources of a scoring job.

A scoring job (rule ``novbench_score``: one dataset x model, all its cells in one pass) embeds
each sentence once with the Relevance and Coverage encoders (the papers' descriptions and gold
items once per paper, however many cells answer it; the outputs' items) and runs the fluency LM
over every item. Its work is counted in model FLOPs, 2 x the parameters that multiply a token
(embedding tables left out, the LM head counted) per token, and divided by the batched scorer's
FLOP rate per core, measured by ``benchmarks/bench_scoring.py``. Importing this module loads no
model library.
"""

from __future__ import annotations

import errno
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from noveval.inference.chunks import time_limit_minutes

# The batched scorer's model FLOPs per CPU-second, all parts together: the "effective GFLOP per
# CPU-second" line of benchmarks/bench_scoring.py (6 COLING papers, 78 items, SmolLM2-135M +
# all-MiniLM-L6, fp32, torch 2.13 CPU, 2 threads on a 2-core AMD EPYC VM shared with other jobs;
# 14.7, 15.8 and 18.3 in three runs: the median), 2026-11-30. CPU time leaves out the time other
# processes held the cores; a dedicated core is faster (one thread reached 75 GFLOP/s in a bare
# matrix product), so the estimate errs long.
GFLOP_PER_CORE_S = 15.8
# Parameters (millions): all of them (memory) and those that multiply each token (compute).
MODEL_PARAMS_M = {
    "smollm2-135m": (134.5, 134.5),  # LM head tied to the embeddings: counted once, as the head
    "distilgpt2": (81.9, 81.1),  # 6 blocks (42.5) + LM head (38.6)
    "all-minilm-l6-v2": (22.7, 10.8),  # 6 layers of 384; word and position tables left out
    "spiced": (109.5, 85.6),  # all-mpnet-base-v2 fine-tuned: 12 layers of 768
}
# Assumptions of the compute plan, which runs before any output exists (COLING-2020 pairs:
# 7.0 descriptions and 3.0 gold items per paper, 157 characters per sentence).
ITEMS_PER_OUTPUT = 6  # evaluations a model writes per paper: twice the reviewers' gold items
GOLD_PER_PAPER = 3
PAPER_SENTENCES = 10  # descriptions + gold items
SENTENCE_CHARS = 157
CHARS_PER_TOKEN = 4.0  # as the plan's prompts
SCORING_THREADS = 8  # CPUs of a scoring job (profiles/slurm: 8 cores per job at most)
LOAD_MIN = 2.0  # loading the three models
RUNTIME_SAFETY = 1.5
MEM_MB_BASE = 2_000
MEM_MB_PER_M_PARAMS = 8  # fp32 weights plus the copy made while loading (GGUF: de-quantised)
MEM_MB_LM_BATCH = 1_000  # logits and activations of one 1,024-token batch
SCORING_MODELS = ("relevance_encoder", "coverage_encoder", "fluency_lm")


@dataclass(frozen=True)
class ScoringLoad:
    """What one scoring job reads: its papers' sentences and its outputs' items."""

    papers: int
    paper_sentences: int  # descriptions + gold items
    outputs: int
    items: int
    tokens_per_sentence: float


def params_m(model: str, column: int) -> float:
    """Millions of parameters of a metric model (column 0: all, 1: compute)."""
    if model not in MODEL_PARAMS_M:
        raise ValueError(f"no parameter count for metric model '{model}' (scoring_cost.py)")
    return MODEL_PARAMS_M[model][column]


def gflop(load: ScoringLoad, scoring: dict) -> float:
    """Model GFLOPs of a scoring job (one encoder pass when both metrics share the encoder)."""
    relevance, coverage = scoring["relevance_encoder"], scoring["coverage_encoder"]
    sentences = load.paper_sentences + load.items
    encoders = params_m(relevance, 1) * sentences
    if coverage != relevance:
        encoders += params_m(coverage, 1) * sentences
    lm = params_m(scoring["fluency_lm"], 1) * load.items
    return 2 * (encoders + lm) * load.tokens_per_sentence / 1000


def cpu_hours(load: ScoringLoad, scoring: dict) -> float:
    """Core-hours of the model passes at the measured FLOP rate."""
    return gflop(load, scoring) / GFLOP_PER_CORE_S / 3600


def job_hours(load: ScoringLoad, scoring: dict, threads: int) -> float:
    """Wall-clock hours of a scoring job on ``threads`` cores, model loading included."""
    return LOAD_MIN / 60 + cpu_hours(load, scoring) / max(1, threads)


def runtime_minutes(load: ScoringLoad, scoring: dict, threads: int) -> int:
    """SLURM time limit: the estimate with a safety factor (``time_limit_minutes``)."""
    return time_limit_minutes(job_hours(load, scoring, threads), RUNTIME_SAFETY)


def mem_mb(scoring: dict) -> int:
    """Host memory of a scoring job: the metric models' weights and one LM batch."""
    models = dict.fromkeys(scoring[key] for key in SCORING_MODELS)
    weights = sum(params_m(model, 0) for model in models)
    return math.ceil(MEM_MB_BASE + MEM_MB_PER_M_PARAMS * weights + MEM_MB_LM_BATCH)


def written(path: str | Path) -> str | Path:
    """``path``, or a FileNotFoundError naming it (Snakemake then waits for the table)."""
    if not Path(path).exists():
        raise FileNotFoundError(errno.ENOENT, "table not written yet", str(path))
    return path


def row_count(path: str | Path) -> int:
    """Rows of a Parquet table, from its footer."""
    return pq.ParquetFile(written(path)).metadata.num_rows


def read_lists(path: str | Path, columns: list[str]) -> pa.Table:
    """The list ``columns`` of a Parquet table."""
    return pq.read_table(written(path), columns=columns)


def total_length(table: pa.Table, column: str) -> int:
    """Total length of a list column."""
    return int(pc.sum(pc.list_value_length(table[column])).as_py() or 0)


def measured_load(papers_path: str, parsed_paths: list[str]) -> ScoringLoad:
    """The load of a scoring job from its input tables (the gold row when no parsed tables);
    each table is read once."""
    papers = read_lists(papers_path, ["descriptions", "gold_texts"])
    gold = total_length(papers, "gold_texts")
    outputs, items = papers.num_rows, gold
    if parsed_paths:
        parsed = [read_lists(path, ["items_text"]) for path in parsed_paths]
        outputs = sum(table.num_rows for table in parsed)
        items = sum(total_length(table, "items_text") for table in parsed)
    return ScoringLoad(
        papers.num_rows,
        total_length(papers, "descriptions") + gold,
        outputs,
        items,
        SENTENCE_CHARS / CHARS_PER_TOKEN,
    )


def planned_load(papers: int, outputs: int, human: bool = False) -> ScoringLoad:
    """The assumed load of a job scoring ``outputs`` answers about ``papers`` papers (the gold
    items themselves for ``human``)."""
    items = papers * GOLD_PER_PAPER if human else outputs * ITEMS_PER_OUTPUT
    tokens = SENTENCE_CHARS / CHARS_PER_TOKEN
    return ScoringLoad(papers, papers * PAPER_SENTENCES, outputs, items, tokens)


def plan_jobs(outputs: dict[tuple[str, str], tuple[int, int]], scoring: dict) -> list[dict]:
    """One row per scoring job of the plan, from (dataset, model) -> (papers, outputs) of the
    grid; each dataset's gold row (model ``human``) is scored too."""
    jobs = dict(outputs)
    for (dataset, _), (papers, _) in outputs.items():
        jobs[dataset, "human"] = (papers, papers)
    rows = []
    for (dataset, model), (papers, answers) in jobs.items():
        load = planned_load(papers, answers, human=model == "human")
        rows.append(
            {
                "dataset": dataset,
                "model": model,
                "papers": papers,
                "outputs": answers,
                "items": load.items,
                "cpu_hours": cpu_hours(load, scoring),
                "threads": SCORING_THREADS,
                "job_hours": job_hours(load, scoring, SCORING_THREADS),
                "runtime_min": runtime_minutes(load, scoring, SCORING_THREADS),
            }
        )
    return rows


def scoring_resources(config: dict) -> dict[str, Callable]:
    """Resources of rule ``novbench_score`` from the estimate of its job (see the module)."""
    scoring = config["novbench"]["scoring"]

    def runtime(wildcards, input, threads) -> int:
        parsed = list(input.get("parsed", []))
        if all(Path(path).exists() for path in parsed):
            load = measured_load(input.papers, parsed)
        else:  # parsed in the same group job (SLURM): the papers tell the planned load
            papers = row_count(input.papers)
            load = planned_load(papers, papers * len(parsed))
        return runtime_minutes(load, scoring, threads)

    return {"runtime": runtime, "mem_mb": mem_mb(scoring)}


def plan_note() -> str:
    """The scoring estimate's assumptions, for the compute plan's notes."""
    return (
        "- Metric scoring (rule novbench_score, CPU, section below): one job per dataset and "
        f"model, plus the gold row (human) per dataset; items = outputs x {ITEMS_PER_OUTPUT} "
        f"(human: {GOLD_PER_PAPER} gold items per paper), {PAPER_SENTENCES} description and gold "
        f"sentences per paper, {SENTENCE_CHARS} characters per sentence. CPU-hours = 2 x the "
        f"metric models' parameters x tokens / {GFLOP_PER_CORE_S:g} GFLOP/s per core, the rate "
        "measured by benchmarks/bench_scoring.py (noveval/inference/scoring_cost.py). "
        "A job's SLURM time "
        f"limit is the same estimate from its actual tables on {SCORING_THREADS} threads, plus "
        f"{LOAD_MIN:g} min of model loading, x {RUNTIME_SAFETY:g}, 30 min at least."
    )
