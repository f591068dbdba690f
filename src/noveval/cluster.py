"""SLURM resources and environments of inference jobs, from the model registry.

The papers' allocation (``gpus``, ``gpu_model`` in models.yaml) becomes the SLURM executor
plugin's ``gpu`` + ``gpu_model`` (sbatch ``--gpus=<model>:<n>``); CPUs and host memory scale with
the GPUs unless the model overrides them; the time limit comes from the compute plan's estimate of
the job (the number of calls of its batch, the model's throughput, one server start; measured
by the pilot where its measured file holds the model) with a safety factor. Partition, account
and QoS are site settings: profiles/slurm/site.yaml.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from noveval.plan import PlanSettings, runtime_minutes
from noveval.registry import ModelSpec, Registry

CPUS_PER_GPU = 8
MEM_MB_PER_GPU = 64_000
MEM_MB_CPU_JOB = 4_000
ENVS = {"vllm": "inference-vllm.yaml"}  # engine -> conda env file (envs/); others: noveval.yaml


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


def inference_resources(registry: Registry, config: dict) -> dict[str, Callable]:
    """Resources of rule ``infer``, each a function of the job's wildcards (and input)."""
    settings = PlanSettings.from_config(config)
    max_tokens = config["decoding"]["max_tokens"]
    concurrency = config["inference"]["concurrency"]

    def spec(wildcards) -> ModelSpec:
        return registry.model(wildcards.model)

    def runtime(wildcards, input) -> int:
        calls = sum(calls_in(path) for path in input.requests)
        return runtime_minutes(
            spec(wildcards), calls, max_tokens, concurrency, settings, wildcards.track
        )

    return {
        "gpu": lambda wildcards: gpus(spec(wildcards)),
        "gpu_model": lambda wildcards: gpu_model(spec(wildcards)),
        "cpus_per_gpu": lambda wildcards: cpus_per_gpu(spec(wildcards)),
        "mem_mb": lambda wildcards: mem_mb(spec(wildcards)),
        "runtime": runtime,
    }


def inference_env(spec: ModelSpec) -> str:
    """The conda environment file (under envs/) an inference job of ``spec`` runs in."""
    return ENVS.get(spec.engine, "noveval.yaml")
