"""Rule plan: the compute plan of the configured grid, written as compute_plan.csv and .md."""

from __future__ import annotations

import logging
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from noveval.construction.judge_plan import construction_workloads
from noveval.construction.novbench_plan import construction_note, novbench_construction_workloads
from noveval.core.markdown import markdown_table
from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.inference.workloads import PlanSettings
from noveval.judges.authors import FILES as AUTHORS_FILES
from noveval.judges.authors import AuthorsPrompts
from noveval.judges.grid.cells import OWN_RULE
from noveval.judges.statistics.calibration import calibrate
from noveval.judges.systems.novelty_checker import checker as novelty_checker
from noveval.planning.judges import calibrated_judges, judges_workloads
from noveval.planning.literature import (
    ai_scientist_note,
    ai_scientist_searches,
    checker_note,
    literature_note,
    literature_searches,
    retrieval_searches,
)
from noveval.planning.notes import held_out_note, plan_notes, time_note
from noveval.planning.novbench import novbench_workloads
from noveval.planning.table import plan_table, scoring_table, weights_table, with_scoring

log = logging.getLogger(__name__)


def grid_cells(grid) -> list[dict]:
    """A grid's cells as plain dicts (rule params)."""
    return [asdict(cell) for cell in grid.cells]


def write_plan(
    table: pd.DataFrame,
    notes: str,
    csv_path: str | Path,
    markdown_path: str | Path,
    weights: pd.DataFrame | None = None,
    scoring: pd.DataFrame | None = None,
    judge_output: pd.DataFrame | None = None,
):
    """compute_plan.csv (full precision) and compute_plan.md (table, weights, scoring, the judges'
    output tokens per call and notes)."""
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    shown = table.copy()
    for column in ("input_tokens", "output_tokens"):
        shown[column] = (shown[column] / 1e6).round(2)
    shown = shown.rename(columns={"input_tokens": "input_Mtok", "output_tokens": "output_Mtok"})
    text = f"# Compute plan\n\n{markdown_table(shown)}\n\n"
    if weights is not None and not weights.empty:
        text += (
            "## Weights\n\nDownloaded once per model by rule weights into the site's weights "
            "cache (GB: models.yaml download_gb).\n\n"
            f"{markdown_table(weights)}\n\n"
        )
    if scoring is not None and not scoring.empty:
        text += (
            "## Metric scoring\n\nOne CPU job per dataset and model (rule novbench_score); "
            "runtime_min: its SLURM time limit from the same estimate.\n\n"
            f"{markdown_table(scoring.round(2))}\n\n"
        )
    if judge_output is not None and not judge_output.empty:
        text += (
            "## Judge output tokens\n\nOutput tokens per call of each judge backbone, format and "
            "change, calibrated on the judge study's published costs "
            "(noveval.judges.statistics.calibration: "
            "published = that cell's cost; as X = the same backbone's change X; median = the "
            "calibrated backbones of the same API).\n\n"
            f"{markdown_table(judge_output)}\n\n"
        )
    Path(markdown_path).write_text(f"{text}## Assumptions\n\n{notes}\n")


def compute_plan(
    cells: list[dict],
    datasets: dict,
    paraphrase_model: str,
    novbench: dict,
    decoding: dict,
    inference: dict,
    plan: dict,
    registry_path: str,
    downloads: str,
    csv_path: str,
    markdown_path: str,
    judge_cells: list[dict] = (),
    judge_files: dict | None = None,
    judge_declared: dict | None = None,
    judges: dict | None = None,
    upstream_root: str = "",
    construction: dict | None = None,
    literature: dict | None = None,
    novbench_construction: dict | None = None,
    novbench_upstream: str = "",
    not_runnable: dict | None = None,
    chunks: dict[str, int] | None = None,
    partitions: dict[str, list] | None = None,
) -> None:
    """Rule plan: the compute plan of the configured grid (NovBench, then the judges, with the
    retrieval change's literature search when ``judges.retrieval.search`` is Semantic Scholar:
    ``literature`` holds its settings; then the construction of the judge study's benchmark,
    ``construction``: config construction.judges; then NovBench's, ``novbench_construction``:
    config construction.novbench, its prompts read under ``novbench_upstream``).
    ``not_runnable``: the judges whose cells the grid skips, with why and how many cells (none of
    them is planned). ``chunks``: the jobs of each inference batch as the DAG splits it
    (``noveval.cluster.resources.InferenceJobs.batch_chunks``); ``partitions``: each GPU model's
    partition and the GPUs of it held at once (``InferenceJobs.gpu_partitions``)."""
    settings = PlanSettings.from_config({"plan": plan})
    registry = load_registry(registry_path)
    workloads = novbench_workloads(
        cells, datasets, paraphrase_model, novbench, decoding, registry, downloads, settings
    )
    prompts, authors = (judges or {}).get("prompts", "builtin"), None
    if prompts == "authors":
        found = all((Path(upstream_root) / name).is_file() for name in AUTHORS_FILES)
        authors = AuthorsPrompts(Path(upstream_root)) if found else None
        prompts = "authors" if found else "stand-in"
    calibration, output_tokens, searched, looped = None, pd.DataFrame(), None, None
    checker_searches = None
    if judge_cells:
        judge_workloads = judges_workloads(
            judge_cells, judge_files, judge_declared, judges, decoding, registry, authors, settings
        )
        calibration = calibrate(
            judge_workloads, published("judges"), registry, settings.published_pricing
        )
        judge_workloads, output_tokens = calibrated_judges(
            judge_workloads, calibration, registry, judges["max_tokens"], settings
        )
        workloads += judge_workloads
        log.info("judge output tokens per call:\n%s", output_tokens.to_string(index=False))
        log.info("plan: %s", held_out_note(calibration))
        searched = retrieval_searches(
            judge_workloads, judges, literature, registry, upstream_root, settings
        )
        if searched:
            workloads += searched[0]
        looped = ai_scientist_searches(judge_workloads, judges, literature)
        checked = sum(w.papers for w in judge_workloads if w.step in OWN_RULE)
        if checked:
            rate = ((literature or {}).get("semantic_scholar") or {}).get("requests_per_second", 1)
            checker_searches = literature_searches(checked, novelty_checker.PLANNED_SEARCHES, rate)
    if construction:
        workloads += construction_workloads(
            construction, decoding, registry, upstream_root, settings
        )
    if novbench_construction:
        workloads += novbench_construction_workloads(
            novbench_construction, registry, novbench_upstream, settings
        )
    table = plan_table(workloads, registry, inference["concurrency"], settings, chunks, partitions)
    notes = plan_notes(table, workloads, settings, decoding, prompts, calibration)
    notes += "\n" + time_note(table, inference["concurrency"], settings)
    if searched:
        notes += "\n- " + literature_note(searched[1])
    if judge_cells and looped:
        notes += "\n- " + ai_scientist_note(looped)
    if novbench_construction:
        notes += "\n" + construction_note(novbench_construction)
    if checker_searches:
        notes += "\n- " + checker_note(checker_searches)
    for model, (reason, count) in sorted((not_runnable or {}).items()):
        notes += (
            f"\n- {model}: {reason}; its {count} judge cells are skipped, neither run nor "
            f"priced here (judges.substitutions: {{{model}: <successor>}} runs another model in "
            "its place)"
        )
    scoring = scoring_table(workloads, novbench["scoring"])
    table = with_scoring(table, scoring)
    weights = weights_table([w.model for w in workloads], registry)
    write_plan(table, notes, csv_path, markdown_path, weights, scoring, output_tokens)
    if not weights.empty:
        log.info("plan: %.1f GB of weights to download", weights.iloc[-1]["download_gb"])
    total = table.iloc[-1]
    log.info(
        "plan: %d jobs, %d calls, %.1f GPU-hours, %.2f USD of API calls; %.1f h of hosted calls "
        "(%g h through batch APIs), %.1f h of GPU jobs",
        total["jobs"],
        total["requests"],
        total["gpu_hours"],
        total["api_cost_usd"],
        total["hosted_hours"],
        total["batch_hours"],
        total["gpu_wall_hours"],
    )
