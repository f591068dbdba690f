"""What the compute plan counts, in the terms every track's planning shares: a workload (one model's
calls of one step, with their tokens), the plan's settings and assumptions, and the hours a job
of a model takes (server start and generation at the registry's or the pilot's throughput)."""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field, fields

from noveval.core.registry import ModelSpec
from noveval.inference.chunks import time_limit_minutes
from noveval.inference.measured import Measured, read_measured

log = logging.getLogger(__name__)


# Prompts are rendered only to count their tokens: any model stands in for the cell's.
PROMPT_ONLY = ModelSpec(name="prompt-only", engine="api", reference="-", context_length=1)

# registry throughputs are given for this many requests in flight (config/paper.yaml's concurrency)
REFERENCE_CONCURRENCY = 16
# a batch API's completion window (OpenAI's completion_window "24h"; Anthropic's message batches
# likewise end within 24 hours): the longest a batch of calls takes
BATCH_WINDOW_HOURS = 24.0


@dataclass(frozen=True)
class PlanSettings:
    """The plan's assumptions (config key ``plan``)."""

    chars_per_token: float = 4.0
    answer_tokens: int = 700
    reasoning_tokens: int = 1000
    startup_min: float = 5.0
    api_tokens_per_s: float = 50.0
    runtime_safety: float = 1.5
    published_pricing: str = "batch"  # how the judge study's published runs were priced
    sample: str = "data/sample/novbench_sample.json"
    judges_sample: str = "data/sample/judges/human-only"
    web_searches_per_call: float = 5.0  # searches of one call with the hosted web search
    measured: str = ""  # the pilot's measured file (read when it exists)
    measurements: dict[str, Measured] = field(default_factory=dict, compare=False)

    @classmethod
    def from_config(cls, config: dict) -> PlanSettings:
        """The settings of config key ``plan``, with the measurements of the pilot's file
        (``plan.measured``, else ``{results}/pilot/measured.csv``) where it exists."""
        known = {f.name for f in fields(cls)} - {"measured", "measurements"}
        path = measured_path(config)
        settings = {k: v for k, v in (config.get("plan") or {}).items() if k in known}
        return cls(**settings, measured=path, measurements=read_measured(path))

    def measured_answer(self, spec: ModelSpec, track: str) -> float | None:
        """The pilot's mean output tokens per call of ``spec`` on ``track`` (None: assumed)."""
        measured = self.measurements.get(spec.name)
        return measured.answer_tokens.get(track) if measured else None

    def estimate(self, model: str, track: str) -> str:
        """Whether the plan's numbers for ``model`` on ``track`` are measured or assumed."""
        measured = self.measurements.get(model)
        return "measured" if measured and track in measured.answer_tokens else "assumed"


def measured_path(config: dict) -> str:
    """The measured file the plan reads and the pilot writes: ``plan.measured``, else the
    pilot's folder under ``results``."""
    measured = (config.get("plan") or {}).get("measured")
    return measured or f"{config['results']}/pilot/measured.csv"


def text_tokens(text: str, settings: PlanSettings) -> int:
    """Estimated tokens of a text: characters / chars_per_token, rounded up."""
    return math.ceil(len(text) / settings.chars_per_token)


def request_tokens(messages_json: str, settings: PlanSettings) -> int:
    """Estimated prompt tokens of a call: its messages plus 4 tokens of chat framing each."""
    messages = json.loads(messages_json)
    return sum(text_tokens(m["content"], settings) + 4 for m in messages)


def output_tokens_per_call(
    spec: ModelSpec, max_tokens: int, settings: PlanSettings, track: str = "novbench"
) -> int:
    """New tokens of one call of ``track`` (reasoning included), capped at max_tokens: the
    pilot's measured mean, else the assumption."""
    measured = settings.measured_answer(spec, track)
    if measured is not None:
        return min(max_tokens, math.ceil(measured))
    wanted = settings.answer_tokens + (settings.reasoning_tokens if spec.reasoning else 0)
    return min(max_tokens, wanted)


def job_tokens_per_s(spec: ModelSpec, concurrency: int, settings: PlanSettings) -> float:
    """Generated tokens per second of one inference job of ``spec``: the pilot's measured
    throughput, else the assumption."""
    measured = settings.measurements.get(spec.name)
    if measured and measured.output_tokens_per_s:
        return measured.output_tokens_per_s
    if spec.engine == "api":
        return settings.api_tokens_per_s * concurrency
    throughput = spec.throughput_tokens_per_s or 0
    if throughput <= 0:
        raise ValueError(f"model '{spec.name}': models.yaml gives no throughput_tokens_per_s")
    if spec.engine == "llamacpp":  # one request at a time: the figure is one stream's
        return throughput
    return throughput * min(concurrency, REFERENCE_CONCURRENCY) / REFERENCE_CONCURRENCY


def job_hours(spec: ModelSpec, output_tokens: float, concurrency: int, settings) -> float:
    """Wall-clock hours of one inference job: model start plus generation."""
    return startup_hours(spec, settings) + generation_hours(
        spec, output_tokens, concurrency, settings
    )


def startup_hours(spec: ModelSpec, settings) -> float:
    """Hours to start the model's server (none for an API model): the pilot's measured start,
    else the assumption."""
    if spec.engine == "api":
        return 0.0
    measured = settings.measurements.get(spec.name)
    if measured and measured.server_start_s is not None:
        return measured.server_start_s / 3600
    return settings.startup_min / 60


def generation_hours(spec: ModelSpec, output_tokens: float, concurrency: int, settings) -> float:
    """Hours to generate ``output_tokens`` once the server is up."""
    return output_tokens / job_tokens_per_s(spec, concurrency, settings) / 3600


def call_latency_s(spec: ModelSpec, output_tokens: float, settings, track: str) -> float:
    """Seconds one hosted call of ``track`` takes from sent to answered, writing
    ``output_tokens``: the pilot's measured mean, else those tokens at ``api_tokens_per_s``."""
    measured = settings.measurements.get(spec.name)
    if measured and track in measured.latency_s:
        return measured.latency_s[track]
    return output_tokens / settings.api_tokens_per_s


def hosted_hours(spec: ModelSpec, workload: Workload, concurrency: int, settings) -> float:
    """Wall-clock hours of a hosted model's calls of ``workload`` from one job: calls ÷
    concurrency × a call's latency, or longer where the registry's rate limits
    (``requests_per_minute``, ``tokens_per_minute``) allow fewer calls."""
    if spec.engine != "api" or not workload.calls:
        return 0.0
    per_call = workload.output_tokens / workload.calls
    latency = call_latency_s(spec, per_call, settings, workload.track)
    hours = workload.calls / concurrency * latency / 3600
    if spec.requests_per_minute:
        hours = max(hours, workload.calls / spec.requests_per_minute / 60)
    if spec.tokens_per_minute:
        tokens = workload.input_tokens + workload.output_tokens
        hours = max(hours, tokens / spec.tokens_per_minute / 60)
    return hours


def runtime_minutes(
    spec: ModelSpec,
    calls: int,
    max_tokens: int,
    concurrency: int,
    settings: PlanSettings,
    track: str = "novbench",
) -> int:
    """SLURM time limit of an inference job of ``track``: the plan's estimate with a safety
    factor."""
    output = calls * output_tokens_per_call(spec, max_tokens, settings, track)
    return time_limit_minutes(
        job_hours(spec, output, concurrency, settings), settings.runtime_safety
    )


@dataclass(frozen=True)
class Workload:
    """The calls of one grid cell (or one dataset's paraphrases); the cells of a model, dataset
    and batch share one inference job and its server start (``noveval.inference.batches``)."""

    track: str
    dataset: str
    model: str
    batch: str  # cells | paraphrase
    step: str  # generation | paraphrase | the judge change
    strategy: str
    perturbation: str
    papers: int
    calls: int
    input_tokens: int
    output_tokens: int
    stand_in: bool  # token counts scaled from the shipped sample
    web_searches: int = 0  # the hosted web-search tool's calls (the agentic judge)
    job_model: str = ""  # the model whose job sends these calls, where not ``model``'s


def prompt_tokens(rows: list[dict], settings: PlanSettings) -> int:
    """Estimated prompt tokens of rendered requests."""
    return sum(request_tokens(row["messages"], settings) for row in rows)
