"""The plan's tables: per track x model x step with totals, the scoring jobs' rows, the weights."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from noveval.core.pricing import BATCH_SHARE, Usage
from noveval.core.registry import INFERENCE_RULES, ModelSpec, Registry, inference_env
from noveval.inference.scoring_cost import plan_jobs
from noveval.inference.workloads import (
    BATCH_WINDOW_HOURS,
    PlanSettings,
    Workload,
    generation_hours,
    hosted_hours,
    startup_hours,
)

# The plan's columns: a row's labels, its counts, its GPUs and its hours and costs (rounded).
LABELS = ["track", "model", "engine", "estimate", "rule", "environment", "step"]
COUNTS = ["cells", "jobs", "requests", "input_tokens", "output_tokens", "web_searches"]
GPUS = ["gpus_per_job", "gpu_model", "partition"]
AMOUNTS = [
    "gpu_hours",
    "gpu_hours_unperturbed",
    "wall_hours_unperturbed",
    "gpu_hours_saved",
    "job_hours_max",
    "api_cost_usd",
    "api_cost_batch_usd",
    "hosted_hours",
    "batch_hours",
    "gpu_wall_hours",
]
PLAN_COLUMNS = [*LABELS, *COUNTS, *GPUS, *AMOUNTS]
TIME = ("hosted_hours", "batch_hours", "gpu_wall_hours")  # wall-clock hours
# The workload columns a row of the plan sums.
SUMMED = [
    "input_tokens",
    "output_tokens",
    "web_searches",
    "gpu_hours",
    "gpu_hours_unperturbed",
    "wall_hours_unperturbed",
    "gpu_hours_saved",
    "api_cost_usd",
    "search_usd",
    "hosted_hours",
    "gpu_wall_hours",
]


# The inference rule of a track whose calls are not rule infer's.
# the rules that send a track's or a step's calls where not the engine's inference rule
RULES = {
    "construction": "construction_judges_infer",
    "ai_scientist": "judges_ai_scientist",
    "novelty_checker": "judges_novelty_checker",
    "novelty_checker rerank": "judges_novelty_checker",
}


# The rules whose jobs run in the inference environment of their model's engine (a vLLM model's
# in workflow/envs/inference-vllm.yaml); every other rule runs in workflow/envs/noveval.yaml.
ENGINE_ENVIRONMENT_RULES = {"infer", "pilot_infer", "construction_judges_infer"}


def job_environment(spec: ModelSpec, rule: str) -> str:
    """The conda environment file a job of ``rule`` for ``spec`` runs in under the site's
    ``software_deployment: conda`` (as the rules' ``conda:`` directives name it)."""
    env = inference_env(spec) if rule in ENGINE_ENVIRONMENT_RULES else "noveval.yaml"
    return f"workflow/envs/{env}"


def plan_table(
    workloads: list[Workload],
    registry: Registry,
    concurrency: int,
    settings: PlanSettings,
    chunks: dict[str, int] | None = None,
    partitions: dict[str, list] | None = None,
) -> pd.DataFrame:
    """Per track × model × step: cells, jobs, calls, tokens, GPUs, GPU-hours, API cost and
    wall-clock hours; and totals.

    The cells of one model, dataset and batch share its jobs: ``chunks`` (by
    ``track/dataset/model/batch``, the DAG's chunking, ``noveval.cluster.resources``; a batch not
    in it is one job) splits its calls into that many jobs, each with its server start, counted on
    the batch's first row (``jobs``); ``job_hours_max`` is the longest job's hours (a start and its
    share of the batch's generation), and ``gpu_hours_saved`` is what one start per cell would
    have cost on top. ``estimate``: whether the model's numbers on the track are the pilot's
    (measured) or the plan's assumptions; ``wall_hours_unperturbed``: the hours its jobs run for
    the unperturbed cells (server starts and their generation, whatever the GPUs).

    Time: ``hosted_hours``, a hosted model's calls one job after another at ``concurrency``
    (``noveval.inference.workloads.hosted_hours``), or ``batch_hours`` through a batch API (its
    completion window); ``gpu_wall_hours``, the GPU-hours over the GPUs of its partition held at
    once (``partitions``: model -> [partition, GPUs], the site file's, by
    ``noveval.cluster.resources``; a model not in it: one job at a time). A total's are the sum
    of the hosted hours, the window, and the longest partition's GPU hours (partitions run side
    by side).
    """
    rows = []
    for workload in workloads:
        spec = registry.model(workload.model)
        rule = RULES.get(workload.step, RULES.get(workload.track, INFERENCE_RULES[spec.engine]))
        partition, held = (partitions or {}).get(workload.model, ["", spec.gpus])
        rows.append(
            {
                **asdict(workload),
                "engine": spec.engine,
                "partition": partition if spec.engine != "api" else "",
                "gpus_held": max(held, 1),
                "hosted_hours": hosted_hours(spec, workload, concurrency, settings),
                "batch_hours": BATCH_WINDOW_HOURS if spec.engine == "api" else 0.0,
                "estimate": settings.estimate(spec.name, workload.track),
                "rule": rule,
                "gpus_per_job": spec.gpus,
                "gpu_model": spec.gpu_model or "",
                "environment": job_environment(spec, rule),
                "startup_hours": startup_hours(spec, settings),
                "generation_hours": generation_hours(
                    spec, workload.output_tokens, concurrency, settings
                ),
                "api_cost_usd": spec.cost_usd(
                    Usage(
                        workload.input_tokens,
                        workload.output_tokens,
                        web_searches=workload.web_searches,
                    )
                )
                if spec.engine == "api"
                else 0.0,
                "search_usd": workload.web_searches * spec.price_per_thousand_web_searches / 1e3,
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=PLAN_COLUMNS)
    frame["job_model"] = frame["job_model"].where(frame["job_model"] != "", frame["model"])
    batch = ["track", "dataset", "job_model", "batch"]
    job = frame.groupby(batch, sort=False)
    batch_chunks = frame[batch].agg("/".join, axis=1).map(chunks or {}).fillna(1).astype(int)
    frame["job_start"] = (~frame.duplicated(batch)) * batch_chunks
    frame["job_hours"] = (
        job["startup_hours"].transform("first")
        + job["generation_hours"].transform("sum") / batch_chunks
    )
    starts = frame["startup_hours"] * frame["job_start"]
    frame["gpu_hours"] = frame["gpus_per_job"] * (frame["generation_hours"] + starts)
    frame["gpu_wall_hours"] = frame["gpu_hours"] / frame["gpus_held"]
    unperturbed = frame["generation_hours"].where(frame["perturbation"] == "none", 0.0)
    frame["wall_hours_unperturbed"] = unperturbed + starts
    frame["gpu_hours_unperturbed"] = frame["gpus_per_job"] * frame["wall_hours_unperturbed"]
    saved = frame["startup_hours"].where(frame["job_start"] == 0, 0.0)
    frame["gpu_hours_saved"] = frame["gpus_per_job"] * saved
    keys = LABELS + GPUS
    table = (
        frame.groupby(keys, sort=False)
        .agg(
            cells=("calls", "size"),
            jobs=("job_start", "sum"),
            requests=("calls", "sum"),
            job_hours_max=("job_hours", "max"),
            batch_hours=("batch_hours", "max"),
            **{column: (column, "sum") for column in SUMMED},
        )
        .reset_index()
    )
    totals = [_total(table, keys, "total")]
    if table["track"].nunique() > 1:  # a subtotal per track, then the grand total
        totals = [_total(part, keys, track) for track, part in table.groupby("track", sort=False)]
        totals.append(_total(table, keys, "total"))
    table = pd.concat([table, pd.DataFrame(totals)], ignore_index=True)
    # a batch API halves the tokens' price, not the searches'
    tokens_usd = table["api_cost_usd"] - table["search_usd"]
    table["api_cost_batch_usd"] = tokens_usd * BATCH_SHARE + table["search_usd"]
    for column in [*COUNTS, "gpus_per_job"]:
        table[column] = table[column].astype(int)
    for column in AMOUNTS:  # hours of time to the second (a small grid's are minutes)
        table[column] = table[column].round(4 if column in TIME else 2)
    return table[PLAN_COLUMNS]


def _total(table: pd.DataFrame, keys: list[str], track: str) -> dict:
    """One summary row of ``table`` (model 'all')."""
    total = table.sum(numeric_only=True)
    total["job_hours_max"] = table["job_hours_max"].max()
    total["batch_hours"] = table["batch_hours"].max()
    total["gpu_wall_hours"] = table.groupby("partition")["gpu_wall_hours"].sum().max()
    total["gpus_per_job"] = table["gpus_per_job"].max()
    return {**dict.fromkeys(keys, ""), **total.to_dict(), "track": track, "model": "all"}


def weights_table(models, registry: Registry) -> pd.DataFrame:
    """The weights rule downloads of ``models`` (vLLM models; registry ``download_gb``), and
    their total: each model once, into the shared cache, whatever its number of jobs."""
    rows = [
        {
            "model": spec.name,
            "reference": spec.reference,
            "revision": spec.revision or "unpinned",
            "download_gb": spec.download_gb,
        }
        for spec in (registry.model(name) for name in dict.fromkeys(models))
        if spec.engine == "vllm"
    ]
    table = pd.DataFrame(rows, columns=["model", "reference", "revision", "download_gb"])
    if table.empty:
        return table
    total = {"model": "total", "reference": "", "revision": ""}
    return pd.concat([table, pd.DataFrame([{**total, "download_gb": table["download_gb"].sum()}])])


def scoring_table(workloads: list[Workload], scoring: dict) -> pd.DataFrame:
    """The scoring jobs of the NovBench cells (``noveval.inference.scoring_cost``), per dataset x
    model."""
    outputs: dict[tuple[str, str], tuple[int, int]] = {}
    for workload in workloads:
        if workload.track == "novbench" and workload.step == "generation":
            key = workload.dataset, workload.model
            papers, answers = outputs.get(key, (workload.papers, 0))
            outputs[key] = (papers, answers + workload.calls)
    return pd.DataFrame(plan_jobs(outputs, scoring))


def with_scoring(table: pd.DataFrame, scoring: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a ``cpu_hours`` column and, after the NovBench rows, one row per model's
    scoring jobs; the NovBench subtotal and the total count their jobs and CPU-hours."""
    table = table.assign(cpu_hours=0.0)
    if scoring.empty:
        return table
    per_model = scoring.groupby("model", sort=False).agg(
        jobs=("dataset", "size"), cpu_hours=("cpu_hours", "sum"), job_hours_max=("job_hours", "max")
    )
    blank = {c: 0 if pd.api.types.is_numeric_dtype(table[c]) else "" for c in table.columns}
    labels = {"track": "novbench", "engine": "cpu", "rule": "novbench_score", "step": "scoring"}
    rows = pd.DataFrame(
        [{**blank, **labels, "model": model, **row} for model, row in per_model.iterrows()]
    )
    totals = (table["model"] == "all") & table["track"].isin(["novbench", "total"])
    table.loc[totals, "jobs"] += len(scoring)
    table.loc[totals, "cpu_hours"] = scoring["cpu_hours"].sum()
    longest = scoring["job_hours"].max()
    table.loc[totals, "job_hours_max"] = table.loc[totals, "job_hours_max"].clip(lower=longest)
    after = table.index[(table["track"] == "novbench") & (table["model"] != "all")].max() + 1
    table = pd.concat([table.iloc[:after], rows, table.iloc[after:]], ignore_index=True)
    table["jobs"] = table["jobs"].astype(int)
    for column in ("cpu_hours", "job_hours_max"):
        table[column] = table[column].astype(float).round(2)
    return table
