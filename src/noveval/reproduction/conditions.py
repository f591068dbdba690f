"""The conditions a number was produced under: the run's from its config, the paper's from
``config/paper.yaml``, and how they differ."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from noveval.core.registry import Registry, load_registry
from noveval.core.yaml_files import load_yaml
from noveval.judges.grid.build import system_models
from noveval.judges.systems.ai_scientist import system_settings

# The judge settings that shape each request, and those that turn calls into a decision.
JUDGE_REQUESTS = (
    "max_tokens",
    "structured_output",
    "reasoning_chars",
    "reasoning_summary",
    "prompt_caching",
)


JUDGE_AGGREGATION = ("no_aggregation", "even_split", "all_failed")


PAPER_SCORERS = {
    "relevance": ("relevance_encoder", "spiced"),
    "coverage": ("coverage_encoder", "all-minilm-l6-v2"),
    "clarity": ("fluency_lm", "distilgpt2"),
}


ANNOTATION_FILES = ("paper_types", "review_confidence")  # declared files, compared by SHA-256


def config_conditions(config: dict, registry: Registry) -> dict:
    """The conditions a (validated) config runs under, by study: what its steps read, with each
    configured model's registry wire (reference, API, request options)."""
    from noveval.novbench.generation import call_decoding

    novbench, judges, decoding = config["novbench"], config["judges"], config["decoding"]
    judge_models = [
        *judges["models"],
        *(judges.get("substitutions") or {}).values(),
        *system_models(judges),
    ]
    datasets = {
        name: entry if isinstance(entry, dict) else {}
        for name, entry in novbench["datasets"].items()
        if entry is not None
    }
    return {
        "novbench": {
            "prompts": novbench.get("prompts", "builtin"),
            "decoding": {
                "mode": decoding.get("mode", "greedy"),
                **call_decoding({"mode": "greedy", **decoding}),
            },
            "models": {name: registry.model(name).wire() for name in novbench["models"]},
            "settings": {
                "few_shot_examples": novbench.get("few_shot_examples"),
                "seed": novbench.get("seed"),
                "keep_fraction": novbench.get("keep_fraction"),
                "paraphrase_model": novbench.get("paraphrase_model"),
            },
            "scoring": {key: novbench["scoring"][key] for key, _ in PAPER_SCORERS.values()},
            "datasets": {
                name: {"sha256": entry.get("sha256"), "papers": entry.get("papers")}
                for name, entry in datasets.items()
            },
            "annotations": {name: annotations(entry) for name, entry in datasets.items()},
        },
        "judges": {
            "prompts": judges.get("prompts", "builtin"),
            "requests": {
                "temperature": as_condition(decoding.get("temperature")),
                "seed": as_condition(decoding.get("seed")),
                **{key: as_condition(judges.get(key)) for key in JUDGE_REQUESTS},
            },
            "models": {name: registry.model(name).wire() for name in judge_models},
            "datasets": {
                name: {
                    "commit": entry.get("commit") if isinstance(entry, dict) else None,
                    "blocklist": judges.get("blocklist"),
                }
                for name, entry in judges["datasets"].items()
                if entry is not None
            },
            "calls": {
                "calls": judges["calls"],
                "calls_by_change": judges.get("calls_by_change", {}),
            },
            "aggregation": {key: as_condition(judges.get(key)) for key in JUDGE_AGGREGATION},
            "retrieval": {"search": (judges.get("retrieval") or {}).get("search", "embedding")},
            "ai_scientist": {
                **system_settings((judges.get("systems") or {}).get("ai_scientist") or {}),
                "search": RUN_AI_SCIENTIST_SEARCH,
            },
            "novelty_checker": checker_conditions(judges, registry),
        },
    }


def checker_conditions(judges: dict, registry) -> dict:
    """The Idea Novelty Checker's conditions: its embedder, its reranker's wire and the order its
    RankGPT windows are applied in (ours: back to front, as built)."""
    settings = judges.get("novelty_checker") or {}
    if "novelty_checker" not in (judges.get("systems") or {}):
        return {}
    reranker = settings.get("reranker")
    return {
        "encoder": registry.encoder(settings.get("encoder", "all-minilm-l6-v2")),
        "reranker": registry.model(reranker).wire() if reranker else "the backbone",
        "windows": CHECKER_WINDOWS,
    }


def annotations(dataset: dict) -> dict:
    """The appendix tables' annotation files a dataset entry declares: each file's SHA-256 (None
    where the config pins none) and where the paper-type labels come from (the declared file, or
    a classifier model's answers)."""
    out = {}
    for key in ANNOTATION_FILES:
        given = dataset.get(key)
        if isinstance(given, dict) and "classifier" in given:
            out[key] = {"source": f"classifier {given['classifier']}", "sha256": None}
        elif given is not None:
            sha256 = given.get("sha256") if isinstance(given, dict) else None
            out[key] = {"source": "file", "sha256": sha256}
    return out


def as_condition(value):
    """A setting's value as a condition: null (none, no cap) is a value, not an unknown."""
    return "null" if value is None else value


def paper_config(default: str | Path, paper: str | Path, schema: str | Path) -> dict:
    """``paper`` over ``default``, validated (schema defaults filled), as the workflow reads it."""
    from snakemake.utils import update_config, validate

    config = load_yaml(Path(default).read_text(encoding="utf-8"))
    update_config(config, load_yaml(Path(paper).read_text(encoding="utf-8")))
    validate(config, str(schema))
    return config


AUTHORS_RETRIEVAL_SEARCH = "Ai2 Paper Finder (relevance >= 0.8)"
# The AI-Scientist check's searches: Semantic Scholar's index and ranking when the run searches,
# and when the authors searched (their runs' search results were not released).
RUN_AI_SCIENTIST_SEARCH = "Semantic Scholar at this run"
AUTHORS_AI_SCIENTIST_SEARCH = "Semantic Scholar at the authors' run (results not released)"
AUTHORS_CHECKER_ENCODER = "allenai/specter2_base with the specter2 adapter (first token)"
AUTHORS_CHECKER_WINDOWS = "in the order their answers arrived"
CHECKER_WINDOWS = "back to front, as built"


def paper_conditions(
    default: str | Path, paper: str | Path, schema: str | Path, registry: str | Path
) -> dict:
    """The paper's conditions: :func:`config_conditions` of the paper overlay with the project's
    registry."""
    conditions = config_conditions(paper_config(default, paper, schema), load_registry(registry))
    # The retrieval change's search engine: the authors searched Ai2's Paper Finder (their
    # ablations.yaml, use_semantic_scholar: false), whose results were not released; the paper
    # overlay runs their Semantic Scholar path, so retrieval numbers are never compared as equal.
    conditions["judges"]["retrieval"]["search"] = AUTHORS_RETRIEVAL_SEARCH
    # The AI-Scientist check searches the live index: what its rounds find may differ from what
    # the authors' found, so its numbers are never compared as equal either.
    conditions["judges"]["ai_scientist"]["search"] = AUTHORS_AI_SCIENTIST_SEARCH
    # The checker's embedder: their Specter2 base with its proximity adapter, the first token's
    # vector (ranking/embedding.py); and their RankGPT windows, all sent at once, each reordering
    # the list as its answer arrived.
    if conditions["judges"]["novelty_checker"]:
        conditions["judges"]["novelty_checker"] |= {
            "encoder": AUTHORS_CHECKER_ENCODER,
            "windows": AUTHORS_CHECKER_WINDOWS,
        }
    return conditions


@dataclass(frozen=True)
class Conditions:
    """What the run's numbers were produced under (``run``), what the paper's were (``paper``),
    each by study, and the limits of the shares of failed and empty answers (``limits``: config
    ``reproduction``)."""

    run: dict
    paper: dict
    limits: dict

    @classmethod
    def read(cls, config: dict, registry: Registry, paper_files: dict) -> Conditions:
        """The run's conditions from ``config`` and the paper's from ``paper_files``
        (:func:`paper_conditions`' arguments)."""
        return cls(
            run=config_conditions(config, registry),
            paper=paper_conditions(**paper_files),
            limits=config["reproduction"],
        )

    def with_weights(self, manifests: list[str]) -> Conditions:
        """These conditions with the hub commit of each NovBench model's weights (rule weights'
        manifests) among the run's."""
        commits = {}
        for manifest in manifests:
            record = json.loads(Path(manifest).read_text())
            commits[record["model"]] = record["revision"]
        novbench = {**self.run["novbench"], "weights": commits}
        return Conditions({**self.run, "novbench": novbench}, self.paper, self.limits)


def flat(values: dict, prefix: str = "") -> dict:
    """Nested conditions as one level of dotted names (``decoding.mode``)."""
    out = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out |= flat(value, f"{name}.")
        else:
            out[name] = value
    return out


def _shown(value) -> str:
    if value is None:
        return "not set"
    return json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value)


def differences(run: dict, paper: dict) -> list[str]:
    """Each of the run's conditions that is not the paper's, as ``name value (paper: value)``;
    a condition whose paper value is None (not known) is not compared."""
    run_flat, paper_flat = flat(run), flat(paper)
    found = [
        f"{name} {_shown(run_flat.get(name))} (paper: {_shown(value)})"
        for name, value in paper_flat.items()
        if value is not None and run_flat.get(name) != value
    ]
    extra = [
        f"{name} {_shown(value)} (paper: not set)"
        for name, value in run_flat.items()
        if name not in paper_flat and paper.get(name.split(".")[0]) is not None
    ]
    return found + extra
