"""Verdicts: ``match``, ``within`` (the metric's tolerance), ``outside``, ``not comparable``
(another condition, too many failed or empty answers) or ``not run``, with their reasons."""

from __future__ import annotations

import json

from noveval.reproduction.conditions import differences, flat
from noveval.reproduction.targets import DATASETS

VERDICTS = ["match", "within", "outside", "not comparable", "not run"]
PRINTED, AUTHORS_FILE, OWN = "printed", "authors' file", "own regression value"
# Shares of a cell's answers over which its numbers are not comparable (config key reproduction).
SHARE_LIMITS = {"empty_share": "max_empty_share", "failed_share": "max_failed_share"}


# Absolute tolerances of ``within``: NovBench per metric, the judge study per printed unit (a
# cost is within 10% of the paper's).
TOLERANCES = {
    "relevance": 0.05,
    "coverage": 0.01,
    "clarity": 0.01,
    "dist_acc": 0.02,
    "kc": 0.005,
    "ls": 0.005,
    "similarity": 0.02,
    "percent": 2.0,
    "fraction": 0.02,
    "count": 0.0,
}
COST_TOLERANCE = 0.10


def over_limits(run: dict, limits: dict) -> list[str]:
    """The run's shares of failed or empty answers over their limit (config ``reproduction``)."""
    return [
        f"{share} {run[share]:.3f} over reproduction.{key} {limits[key]:g}"
        for share, key in SHARE_LIMITS.items()
        if run.get(share) is not None and run[share] > limits[key]
    ]


def verdict(paper: float, ours: float, decimals: int, tolerance: float) -> str:
    if round(ours, decimals) == round(paper, decimals):
        return "match"
    return "within" if abs(ours - paper) <= tolerance else "outside"


def judged(
    row,
    ours: float,
    tolerance: float,
    run: dict,
    paper: dict,
    limits: dict,
    notes: tuple[str, ...] = (),
) -> dict:
    """Our value of one published number (``row``: ``paper_value``, ``decimals``, and optionally
    ``source_kind``, ``source_file``, ``source``, ``reconstruction_error``, ``statistic``) with its
    verdict: match, within or outside only when every condition it was produced under (``run``)
    equals the paper's (``paper``) and no share of failed or empty answers passes ``limits``;
    otherwise not comparable, naming each. The report's columns our_value … conditions."""
    error = float(getattr(row, "reconstruction_error", "") or 0)
    outcome = verdict(row.paper_value, ours, int(row.decimals), tolerance + error)
    if getattr(row, "statistic", "") == "at_least" and ours >= row.paper_value:
        outcome = "match"  # a bound such as 'more than two thirds'
    reasons = [note for note in notes if note]
    kind = getattr(row, "source_kind", PRINTED)
    if kind == AUTHORS_FILE:
        reasons.insert(0, f"against the authors' file {row.source_file} (not printed)")
    elif kind == OWN:
        reasons.insert(0, f"against our own regression value ({row.source}), not a published one")
    if error:
        outcome = "within" if outcome == "match" else outcome
        reasons.append(
            f"reconstructed paper value (error up to {error:g}, added to the tolerance): "
            "within at best"
        )
    differing = differences(run, paper) + over_limits(run, limits)
    if differing:
        outcome = "not comparable"
        reasons.insert(0, "not comparable: " + "; ".join(differing))
    return {
        "our_value": ours,
        "difference": ours - row.paper_value,
        "tolerance": tolerance,
        "verdict": outcome,
        "reason": "; ".join(reasons),
        "conditions": json.dumps(flat(run), sort_keys=True, default=str),
    }


def not_run(reason: str) -> dict:
    return {"verdict": "not run", "reason": reason}


def unconfigured(kind: str, name: str, key: str) -> str:
    hint = f" ({DATASETS[name]})" if name in DATASETS else ""
    return f"{kind} '{name}' not in the config ({key}){hint}"
