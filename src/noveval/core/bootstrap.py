"""The bootstrap of both studies' intervals: ``scipy.stats.bootstrap`` seeded with
``numpy.random.default_rng(seed)`` (scipy's ``rng``), its warnings on degenerate data silenced
(each caller reports such an interval as it must)."""

from __future__ import annotations

import warnings

import numpy as np


def bootstrap(
    samples: tuple,
    statistic,
    resamples: int,
    seed: int,
    level: float = 0.95,
    method: str = "percentile",
    paired: bool = False,
):
    """scipy's ``BootstrapResult`` of ``statistic`` (vectorised: it takes ``axis``) over
    ``samples``, a ``level`` two-sided interval by ``method`` ('percentile' or 'BCa')."""
    from scipy.stats import bootstrap as scipy_bootstrap

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scipy_bootstrap(
            samples,
            statistic,
            n_resamples=resamples,
            paired=paired,
            vectorized=True,
            confidence_level=level,
            method=method,
            rng=np.random.default_rng(seed),
        )
