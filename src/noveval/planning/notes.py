"""The plan's notes: its assumptions and how its numbers compare with the papers', in words."""

from __future__ import annotations

import pandas as pd

from noveval.core.pricing import BATCH_SHARE
from noveval.inference.scoring_cost import plan_note
from noveval.inference.workloads import (
    BATCH_WINDOW_HOURS,
    REFERENCE_CONCURRENCY,
    PlanSettings,
    Workload,
)
from noveval.judges.statistics.calibration import Calibration

PAPER_WALL_HOURS = (5, 70)  # NovBench paper: wall hours per model, for its unperturbed cells
PAPER_JUDGES_USD = 15_000  # the judge study: about this much in API calls, all experiments


def plan_notes(
    table: pd.DataFrame,
    workloads: list[Workload],
    settings: PlanSettings,
    decoding: dict,
    authors: str = "builtin",
    calibration: Calibration | None = None,
) -> str:
    """The assumptions behind the numbers, and how they compare with the papers', in words."""
    lines = [
        f"- Input tokens: rendered prompts, {settings.chars_per_token:g} characters per token.",
        f"- Output tokens per NovBench call: {settings.answer_tokens} (answer) + "
        f"{settings.reasoning_tokens} for reasoning models, capped at "
        f"decoding.max_tokens = {decoding['max_tokens']}. `change` prompts are estimated from "
        "the unperturbed descriptions (paraphrases are a model's output).",
        f"- GPU-hours: GPUs x ({settings.startup_min:g} min model start + output tokens / the "
        "registry's throughput_tokens_per_s) per job: estimates from memory bandwidth for vLLM "
        f"with {REFERENCE_CONCURRENCY} requests in flight (see config/models.yaml). "
        "gpu_hours_unperturbed, wall_hours_unperturbed: the cells without perturbation, the "
        "ones the NovBench paper ran for every model, in GPU-hours and in hours of the jobs.",
        _measured_note(table, settings),
        "- Jobs: the inference jobs of each model, dataset and batch (its cells, or the "
        "paraphrases) as the DAG splits them for the site file's partitions (job_share), each "
        "with a server start, counted on the batch's first row; job_hours_max: the longest "
        "job's hours; gpu_hours_saved: what a start per "
        f"cell would have added ({int(table['cells'].iloc[-1])} cells, "
        f"{int(table['jobs'].iloc[-1])} jobs, {table['gpu_hours_saved'].iloc[-1]:g} GPU-hours).",
        "- API cost: list prices per million tokens (models.yaml), reasoning tokens billed as "
        "output; api_cost_usd: live calls, api_cost_batch_usd: through the provider's batch API "
        "(half price).",
        plan_note(),
        "- Not estimated here: for the judges, D₋ "
        "generation and purpose-mechanism rewrites by the pipeline (the paper grid reads both "
        "from the release) and the cells the grid leaves out (named in the log).",
    ]
    stand_ins = sorted({w.dataset for w in workloads if w.stand_in and w.track == "novbench"})
    if stand_ins:
        lines.append(
            f"- {', '.join(stand_ins)}: not downloaded yet; prompts rendered from "
            f"{settings.sample} and scaled to the declared number of papers."
        )
    lines.append(_paper_comparison(table))
    if any(w.track == "construction" for w in workloads):
        lines.append(
            "- Construction of the judge study's benchmark (track construction): the venue's "
            "size is assumed (construction.judges.expected), not yet fetched; one job per "
            "step (signals, strip, generation)."
        )
    if any(w.track == "judges" for w in workloads):
        lines.append(_judges_notes(table, workloads, settings, authors, calibration))
    return "\n".join(lines)


def time_note(table: pd.DataFrame, concurrency: int, settings: PlanSettings) -> str:
    """How the plan's wall-clock hours are counted, and the grid's: hosted calls, batch windows,
    GPU jobs per partition."""
    rows = table[table["model"] != "all"]
    total = table.iloc[-1]
    partitions = rows[rows["gpu_wall_hours"] > 0].groupby("partition")["gpu_wall_hours"].sum()
    per_partition = ", ".join(
        f"{name or 'no partition'} {hours:,.1f} h" for name, hours in partitions.items()
    )
    return (
        "- Time (wall clock): hosted_hours: a hosted model's calls one job after another, "
        f"inference.concurrency = {concurrency} in flight, each taking the pilot's measured "
        f"latency or its output tokens at {settings.api_tokens_per_s:g} tokens/s, and no faster "
        "than the registry's requests_per_minute and tokens_per_minute allow (the submit host "
        "runs local-cores jobs at once: an upper bound); batch_hours: a batch API's completion "
        f"window ({BATCH_WINDOW_HOURS:g} h), a run's batches submitted together; gpu_wall_hours: "
        "GPU-hours over the GPUs of the job's partition held at once (site file gpus_at_once, "
        "else its max_gpu), a total's the longest partition's (partitions run side by side). "
        f"This grid: {total['hosted_hours']:,.1f} h of hosted calls "
        f"({total['hosted_hours'] / 24:,.1f} days), or {total['batch_hours']:g} h through batch "
        f"APIs; {total['gpu_wall_hours']:,.1f} h of GPU jobs"
        + (f" ({per_partition})." if per_partition else ".")
    )


def _judges_notes(
    table: pd.DataFrame,
    workloads: list[Workload],
    settings: PlanSettings,
    authors: str,
    calibration: Calibration | None,
) -> str:
    """The judge track's assumptions, its total against the paper's, and the calibration's
    error on the held-out published costs."""
    usd = table[(table["track"] == "judges") & (table["model"] != "all")]["api_cost_usd"].sum()
    batch = usd * BATCH_SHARE
    prompts = {
        "authors": "the authors' templates",
        "builtin": "our templates",
        "stand-in": "our templates, standing in for the authors' (not downloaded yet)",
    }[authors]
    text = (
        f"- Judges: one row per backbone and change (step); calls = instances x calls per "
        f"instance (pointwise: calls.pointwise; pairwise: 2 orders x pairwise_per_order, "
        f"calls_by_change applied); no_aggregation reuses the reference's answers (no calls). "
        f"Prompts rendered from {prompts}; output tokens per call calibrated on the published "
        "costs (section Judge output tokens), capped at judges.max_tokens. "
        f"Total {usd:,.0f} USD against the paper's about {PAPER_JUDGES_USD:,} USD for all its "
        f"experiments ({batch:,.0f} USD through batch APIs); this grid counts one run of each "
        "cell."
    )
    searches = sum(w.web_searches for w in workloads if w.track == "judges")
    if searches:
        text += (
            f" The agentic judge's calls search the web {settings.web_searches_per_call:g} times "
            f"each (plan.web_searches_per_call, an assumption: {searches:,} searches), priced "
            "per thousand searches (models.yaml price_per_thousand_web_searches); its calls go "
            "live; the batch column halves only their tokens' price."
        )
    if not any(w.track == "judges" and w.step == "retrieval" for w in workloads):
        text += (
            " Retrieval is not in it (the paper's related work came from an LLM-assisted search "
            "whose results are not released; its cells are left out)."
        )
    if calibration is not None:
        text += " " + held_out_note(calibration)
    stand_ins = sorted({w.dataset for w in workloads if w.track == "judges" and w.stand_in})
    if stand_ins:
        text += (
            f" {', '.join(stand_ins)}: not downloaded yet; prompts rendered from "
            f"{settings.judges_sample} and scaled to the declared pairs and ideas."
        )
    return text


def held_out_note(calibration: Calibration) -> str:
    """The plan's error on the published costs kept out of its calibration, in words."""
    held = calibration.held_out
    if held is None or held.empty:
        return (
            "No published cost is held out of the calibration: none of its cells is in this grid."
        )
    cells = "; ".join(
        f"{row.model} {row.setup} {row.format} {row.change}: {row.plan_usd:.2f} USD planned, "
        f"{row.published_usd:g} USD published ({row.error:+.0%})"
        for row in held.itertuples()
    )
    return (
        f"Held out of the calibration, the plan's cost of the authors' runs (their instances, "
        f"{calibration.pricing} prices) against the published: {cells}; mean absolute error "
        f"{held['error'].abs().mean():.0%}."
    )


def _span(values: pd.Series, digits: int) -> str:
    low, high = f"{values.min():.{digits}f}", f"{values.max():.{digits}f}"
    return low if low == high else f"{low}-{high}"


def _measured_note(table: pd.DataFrame, settings: PlanSettings) -> str:
    """Which models' numbers are the pilot's and which are assumed, in words."""
    rows = table[table["model"] != "all"].drop_duplicates(["track", "model"])
    measured = rows[rows["estimate"] == "measured"]
    assumed = rows[rows["estimate"] == "assumed"]

    def named(part: pd.DataFrame) -> str:
        return "; ".join(
            f"{track}: {', '.join(models)}" for track, models in part.groupby("track")["model"]
        )

    if measured.empty:
        return (
            f"- Measured: none ({settings.measured or 'no measured file'} not found); every "
            "model's numbers are assumed. `snakemake pilot` measures them."
        )
    text = (
        f"- Measured by the pilot ({settings.measured}): output tokens per call, throughput "
        f"and server start of {named(measured)} (estimate = measured); the paraphrases keep "
        "their assumption."
    )
    if not assumed.empty:
        text += f" Assumed: {named(assumed)}."
    return text


def _paper_comparison(table: pd.DataFrame) -> str:
    """Which GPU models' unperturbed cells fall outside the NovBench paper's 5-70 wall hours per
    model, and why."""
    low, high = PAPER_WALL_HOURS
    gpu = table[
        (table["track"] == "novbench") & (table["gpus_per_job"] > 0) & (table["model"] != "all")
    ]
    per_model = gpu.groupby("model", sort=False)[["wall_hours_unperturbed", "gpu_hours"]].sum()
    if per_model.empty:
        return "- No model of this grid runs on GPUs."
    hours = per_model["wall_hours_unperturbed"]
    inside = hours.between(low, high)
    text = (
        f"- The NovBench paper reports {low}-{high} wall hours per model for its unperturbed "
        "cells. Like for like (each model's unperturbed cells here, in hours of its jobs: "
        f"server starts and generation), {int(inside.sum())} of the {len(per_model)} GPU "
        "models of this grid fall within."
    )
    below = hours[hours < low]
    if not below.empty:
        text += (
            f" Below: {', '.join(below.index)} ({_span(below, 1)} h): small models with short "
            f"answers, and vLLM serves {REFERENCE_CONCURRENCY} requests at once where the "
            "authors' scripts called `generate` one paper at a time."
        )
    above = hours[hours > high]
    if not above.empty:
        text += f" Above: {', '.join(above.index)} ({_span(above, 0)} h)."
    text += (
        f" With the `change` and `del` perturbations (which the paper ran with GPT-4o only, on "
        f"100 papers) the GPU models take {_span(per_model['gpu_hours'], 0)} GPU-hours each."
    )
    return text
