"""SLURM resources and environments of inference jobs, from the model registry.

The papers' allocation (``gpus``, ``gpu_model`` in models.yaml) becomes the SLURM executor
plugin's ``gpu`` + ``gpu_model`` (sbatch ``--gpus=<type>:<n>``, the type as the site file's
``gpu_types`` names it), the model's ``constraint`` its ``constraint`` (sbatch ``-C``, through the
site file's ``constraints``) and its ``slurm_extra`` the plugin's; CPUs and host memory scale with
the GPUs unless the model overrides them; the time limit comes from the compute plan's estimate of
the job (its chunk of the batch's calls, the model's throughput, one server start; measured by
the pilot where its measured file holds the model) with a safety factor. Partition, account and
QoS are site settings: profiles/slurm/site.yaml.

Hosted-API models have a rule of their own, ``infer_api`` (the same job as ``infer``): a local
rule, run on the submitting host, which reaches the providers, unless the site file says
``api_inference: slurm`` (compute nodes with outbound network; preflight checks that they reach
each provider).
"""

from __future__ import annotations

import errno
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pyarrow.parquet as pq

from noveval.core.registry import ModelSpec, Registry, inference_env  # noqa: F401 - the rules' name
from noveval.core.site import Site
from noveval.inference.batches import chunk_path
from noveval.inference.chunks import attempt_runtime, chunk_count, chunk_names
from noveval.inference.workloads import (
    PlanSettings,
    generation_hours,
    output_tokens_per_call,
    runtime_minutes,
    startup_hours,
)
from noveval.novbench import records

CPUS_PER_GPU = 8
MEM_MB_PER_GPU = 64_000
MEM_MB_CPU_JOB = 4_000
NO_MODEL = "(?!)"  # a pattern no name matches


def gpus(spec: ModelSpec) -> int:
    """GPUs of one inference job (0: a CPU job)."""
    return spec.gpus if spec.engine != "api" else 0


def gpu_model(spec: ModelSpec) -> str:
    """The GPU type to ask for; empty: any GPU, or none."""
    return (spec.gpu_model or "") if gpus(spec) else ""


def cpus_per_gpu(spec: ModelSpec) -> int:
    """CPU cores per GPU of a GPU job (0 for CPU jobs, which ask for their threads)."""
    return (spec.cpus_per_gpu or CPUS_PER_GPU) if gpus(spec) else 0


def mem_mb(spec: ModelSpec) -> int:
    """Host memory of the job."""
    if spec.mem_mb:
        return spec.mem_mb
    return MEM_MB_PER_GPU * gpus(spec) if gpus(spec) else MEM_MB_CPU_JOB


def calls_in(requests_path: str) -> int:
    """Rows of a requests table (from the Parquet footer, without reading the table).

    A table not written yet raises FileNotFoundError naming it: Snakemake then waits for it.
    """
    if not Path(requests_path).exists():
        raise FileNotFoundError(errno.ENOENT, "requests table not written yet", str(requests_path))
    return pq.ParquetFile(requests_path).metadata.num_rows


@dataclass(frozen=True)
class PlannedJob:
    """An inference job as the DAG plans it: what it asks SLURM for."""

    name: str  # track/dataset/model/batch/chunk
    gpus: int
    gpu_type: str  # the site's GRES type; empty: any GPU, or none
    runtime: int  # minutes, first attempt
    mem_mb: int


class InferenceJobs:
    """The chunks of each inference batch and their SLURM resources, known when the DAG is built.

    A batch's calls are estimated from the config and the releases' sizes (the grids'
    ``batch_calls``); its estimate (one server start plus its output tokens at the model's
    throughput, the compute plan's) is split into chunks of at most ``job_share`` of the longest
    partition that takes the job (``noveval.inference.chunks``). A chunk's time limit is the plan's
    with its safety factor, and grows with Snakemake's ``attempt``.
    """

    def __init__(self, grids: dict, registry: Registry, config: dict, site: Site):
        self.grids, self.registry, self.config, self.site = grids, registry, config, site
        self.settings = PlanSettings.from_config(config)
        self._sizes: dict[tuple[str, str, str, str], tuple[int, int]] = {}

    def spec(self, model: str) -> ModelSpec:
        return self.registry.model(model)

    def max_tokens(self, track: str) -> int:
        """The output-token cap of the track's calls."""
        return self.config["judges" if track == "judges" else "decoding"]["max_tokens"]

    def batch_calls(self, track: str, dataset: str, model: str, batch: str) -> int:
        """The estimated calls of one batch (``noveval.novbench.grid``,
        ``noveval.judges.grid.build``)."""
        grid = self.grids[track]
        if track == "judges":
            judges = self.config["judges"]
            calls, by_change = judges["calls"], judges["calls_by_change"]
            return grid.batch_calls(dataset, model, batch, calls, by_change)
        return grid.batch_calls(dataset, model, batch, self.sentences_per_paper)

    @cached_property
    def sentences_per_paper(self) -> float:
        """Description sentences per paper of the shipped sample (the paraphrases' estimate)."""
        papers = records.load_release(self.settings.sample)
        return sum(map(len, papers["descriptions"])) / len(papers)

    def size(self, track: str, dataset: str, model: str, batch: str) -> tuple[int, int]:
        """(chunks, calls per chunk) of one batch."""
        key = (track, dataset, model, batch)
        if key not in self._sizes:
            spec = self.spec(model)
            calls = self.batch_calls(*key)
            per_call = output_tokens_per_call(spec, self.max_tokens(track), self.settings, track)
            concurrency = self.config["inference"]["concurrency"]
            generation = generation_hours(spec, calls * per_call, concurrency, self.settings)
            count = chunk_count(
                generation * 60,
                startup_hours(spec, self.settings) * 60,
                self.limit(spec),
                self.site.job_share,
            )
            self._sizes[key] = (count, math.ceil(calls / count))
        return self._sizes[key]

    def limit(self, spec: ModelSpec) -> float:
        """Minutes of the longest partition that takes the model's jobs."""
        return self.site.max_runtime(gpus(spec), self.site.gres_type(gpu_model(spec)))

    def chunks(self, track: str, dataset: str, model: str, batch: str) -> list[str]:
        """The chunk names of one batch (rule infer's ``chunk`` wildcard)."""
        return chunk_names(self.size(track, dataset, model, batch)[0])

    def batch_chunks(self) -> dict[str, int]:
        """The chunks (jobs) of every inference batch, by ``track/dataset/model/batch``: the
        compute plan's jobs (rule plan's ``chunks``)."""
        return {
            "/".join((track, *batch)): self.size(track, *batch)[0]
            for track, grid in self.grids.items()
            for batch in grid.batches()
        }

    def gpu_partitions(self) -> dict[str, list]:
        """Each GPU model of the grids: [the partition its jobs go to, the GPUs of that partition
        the run holds at once] (rule plan's ``partitions``: the GPU jobs' wall-clock hours)."""
        places = {}
        for grid in self.grids.values():
            for _, model, _ in grid.batches():
                spec = self.spec(model)
                if gpus(spec):
                    gres_type = self.site.gres_type(gpu_model(spec))
                    partition = self.site.partition(gpus(spec), gres_type)
                    places[model] = [partition, self.site.gpus_held(partition, gpus(spec))]
        return places

    def chunk_paths(self, results: str, wildcards) -> list[str]:
        """The responses tables of a batch's chunks (rule responses' inputs)."""
        batch = (wildcards.track, wildcards.dataset, wildcards.model, wildcards.batch)
        return [chunk_path(results, *batch, chunk) for chunk in self.chunks(*batch)]

    def first_runtime(self, track: str, dataset: str, model: str, batch: str) -> int:
        """The time limit of a chunk's first attempt: the plan's estimate with its safety factor;
        a hosted model's job also gets ``inference.retry_for`` (a provider's outage is retried
        that long within the job), as far as its partition allows."""
        spec = self.spec(model)
        calls = self.size(track, dataset, model, batch)[1]
        concurrency = self.config["inference"]["concurrency"]
        estimate = runtime_minutes(
            spec, calls, self.max_tokens(track), concurrency, self.settings, track
        )
        if spec.engine != "api":
            return estimate
        outage = math.ceil(self.config["inference"]["retry_for"] / 60)
        return max(estimate, min(estimate + outage, int(self.limit(spec))))

    def resources(self) -> dict[str, Callable]:
        """Resources of rule ``infer``, each a function of the job's wildcards (and attempt):
        GPUs and their type as the site names it, node constraints, extra sbatch options."""

        def spec(wildcards) -> ModelSpec:
            return self.spec(wildcards.model)

        def runtime(wildcards, attempt) -> int:
            key = (wildcards.track, wildcards.dataset, wildcards.model, wildcards.batch)
            return attempt_runtime(self.first_runtime(*key), attempt, self.limit(spec(wildcards)))

        return {
            "gpu": lambda wildcards: gpus(spec(wildcards)),
            "gpu_model": lambda wildcards: self.site.gres_type(gpu_model(spec(wildcards))),
            "cpus_per_gpu": lambda wildcards: cpus_per_gpu(spec(wildcards)),
            "mem_mb": lambda wildcards: mem_mb(spec(wildcards)),
            "runtime": runtime,
            "constraint": lambda wildcards: self.site.constraint(spec(wildcards).constraint),
            "slurm_extra": lambda wildcards: spec(wildcards).slurm_extra,
        }

    def pilot_resources(self) -> dict[str, Callable]:
        """Resources of rule ``pilot_infer``: those of ``infer``, with the time limit of the
        pilot's own calls (its requests table, read when the job is ready)."""
        return self.requests_resources(
            lambda wildcards: self.max_tokens(wildcards.track), lambda wildcards: wildcards.track
        )

    def requests_resources(self, max_tokens: Callable, track: Callable) -> dict[str, Callable]:
        """Resources of an inference job that answers its ``requests`` inputs (the pilot's, the
        judge study's construction): those of ``infer``, with the time limit of the tables'
        calls (read when the job is ready) at ``max_tokens(wildcards)`` new tokens each, the
        pilot's measurements of ``track(wildcards)`` applied."""

        def runtime(wildcards, input, attempt) -> int:
            spec = self.spec(wildcards.model)
            calls = sum(calls_in(path) for path in input.requests)
            concurrency = self.config["inference"]["concurrency"]
            first = runtime_minutes(
                spec, calls, max_tokens(wildcards), concurrency, self.settings, track(wildcards)
            )
            return attempt_runtime(first, attempt, self.limit(spec))

        return {**self.resources(), "runtime": runtime}

    def planned(self) -> list[PlannedJob]:
        """Every inference job of the grids, as the DAG plans it."""
        jobs = []
        for track, grid in self.grids.items():
            for dataset, model, batch in grid.batches():
                spec = self.spec(model)
                for chunk in self.chunks(track, dataset, model, batch):
                    jobs.append(
                        PlannedJob(
                            name=f"{track}/{dataset}/{model}/{batch}/{chunk}",
                            gpus=gpus(spec),
                            gpu_type=self.site.gres_type(gpu_model(spec)),
                            runtime=self.first_runtime(track, dataset, model, batch),
                            mem_mb=mem_mb(spec),
                        )
                    )
        return jobs


def api_models_pattern(registry: Registry) -> str:
    """The ``model`` wildcard of rule ``infer_api``: the registry's hosted-API models."""
    names = sorted(name for name, spec in registry.models.items() if spec.engine == "api")
    return "|".join(map(re.escape, names)) or NO_MODEL


def api_inference_on_host(site_file: str | Path | None = None) -> bool:
    """Whether hosted-API inference runs on the submitting host (the site file's
    ``api_inference: host``, the default) rather than as SLURM jobs (``slurm``).

    The site file is ``site_file``, else ``$NOVEVAL_SLURM_SITE``, else profiles/slurm/site.yaml.
    """
    return Site.load(site_file).api_inference == "host"
