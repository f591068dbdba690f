"""Chunks of an inference batch: each one job, sized to fit a share of a partition's time limit;
and a job's time limit, from its estimate (``time_limit_minutes``) and on a retry.

A batch (``noveval.inference.batches``) whose estimate would outlast the site's limit is split into
``n`` chunks, named ``{k}-of-{n}`` (k from 1). Chunk k answers the k-th of n contiguous slices of
the batch's unique request ids, in the order of its requests tables: the ids are those of the
requests, so a chunk resumed, or a batch split anew, sends only the calls no journal answered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

CHUNK_NAME = re.compile(r"(\d+)-of-(\d+)")


def chunk_count(generation_min: float, startup_min: float, limit_min: float, share: float) -> int:
    """Chunks of a batch whose estimate is one server start plus ``generation_min``, so that each
    chunk's estimate (a start plus its share of the generation) stays within ``share`` of
    ``limit_min``; 1 when no limit applies, or when even a start does not fit (preflight
    reports that job)."""
    budget = share * limit_min - startup_min
    if math.isinf(limit_min) or budget <= 0 or generation_min <= 0:
        return 1
    return max(1, math.ceil(generation_min / budget))


def chunk_names(count: int) -> list[str]:
    """The chunk wildcards of a batch split into ``count`` chunks."""
    return [f"{k}-of-{count}" for k in range(1, count + 1)]


def parse_chunk(name: str) -> tuple[int, int]:
    """(k, n) of a chunk name ``{k}-of-{n}``; a malformed one is an error naming it."""
    match = CHUNK_NAME.fullmatch(name)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"chunk '{name}': expected '<k>-of-<n>' with 1 <= k <= n")
    return int(match.group(1)), int(match.group(2))


def chunk_ids(unique_ids: Sequence[str], chunk: str) -> list[str]:
    """The request ids chunk ``{k}-of-{n}`` answers: the k-th of n contiguous, near-equal slices
    of ``unique_ids``."""
    k, n = parse_chunk(chunk)
    return list(np.array_split(np.asarray(unique_ids, dtype=object), n)[k - 1])


def time_limit_minutes(hours: float, safety: float) -> int:
    """A job's SLURM time limit: its estimated ``hours`` times ``safety``, plus 10 minutes, 30
    minutes at least (an inference job's and a scoring job's alike)."""
    return max(30, math.ceil(safety * hours * 60 + 10))


def attempt_runtime(first_min: int, attempt: int, cap_min: float) -> int:
    """The time limit of a job's ``attempt`` (1, 2, ...): ``first_min`` times the attempt, but a
    retry never asks for more than ``cap_min`` (the longest partition that takes the job), nor
    for less than the first attempt did."""
    if attempt <= 1:
        return first_min
    return max(first_min, int(min(cap_min, first_min * attempt)))
