"""The workflow's wildcard constraints, from the package's own names (rules/common.smk)."""

from __future__ import annotations

import re

from noveval.construction.grid import TRACK as NOVBENCH_CONSTRUCTION
from noveval.core.upstream import SOURCES, STUDIES
from noveval.inference.batches import BATCHES
from noveval.judges.cards.judge import CHANGES as CUSTOM_CHANGES
from noveval.judges.grid.cells import CHANGES, IDEA_FORMATS
from noveval.judges.instances import FORMATS
from noveval.novbench.custom import CUSTOM_PREFIX
from noveval.novbench.generation import STRATEGIES
from noveval.novbench.perturbation import PERTURBATIONS

NAME = r"[A-Za-z0-9_.+-]+"  # a dataset, setup or file stem: one path component
CUSTOM_STRATEGY = re.escape(CUSTOM_PREFIX) + r"[A-Za-z0-9_-]+"  # custom-<name>
CARD_NAME = r"(?!leaderboard\.)[A-Za-z0-9_-]+"  # a custom evaluator's card, not the leaderboard
PAPER_STRATEGIES = "|".join(map(re.escape, STRATEGIES))


def one_of(names) -> str:
    return "|".join(map(re.escape, names))


def constraints() -> dict[str, str]:
    """Wildcard name → regex, for every wildcard of the workflow's rules."""
    return {
        "track": one_of((*STUDIES, NOVBENCH_CONSTRUCTION)),
        "study": one_of(SOURCES),
        "path": r".+",  # a file of a release or of the authors' repository, with folders
        "dataset": NAME,
        "model": r"[^/]+",
        "generator": r"[^/]+",
        "stronger": r"[^/]+",
        "weaker": r"[^/]+",
        "batch": one_of(BATCHES),
        "chunk": r"\d+-of-\d+",  # noveval.inference.chunks
        # a paper strategy, or a custom evaluator's cells (config novbench.custom)
        "strategy": f"{PAPER_STRATEGIES}|{CUSTOM_STRATEGY}",
        "perturbation": one_of(PERTURBATIONS),
        "format": one_of(FORMATS),
        "setup": NAME,
        "ideas": one_of(IDEA_FORMATS),  # the form of the ideas a judge cell judges
        # a judge cell's change (or dedicated system) alone, or a custom judge cell's
        "change": one_of(dict.fromkeys((*CHANGES, *CUSTOM_CHANGES))),
        "judge": r"[A-Za-z0-9_-]+",  # a custom judge (config judges.custom)
        "wording": NAME,  # a custom judge's wording: reference or a variant
        "evaluator": r"[A-Za-z0-9_-]+",  # a custom NovBench evaluator (config novbench.custom)
    }
