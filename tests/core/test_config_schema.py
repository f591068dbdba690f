"""The config schema's defaults: Snakemake's validate fills them in, nested sections included."""

from __future__ import annotations

import copy

import pytest
import yaml
from conftest import REPO, config_schema
from snakemake.utils import validate

from noveval.core import upstream

SCHEMA = config_schema()

# Every required key, nothing else.
RETRIEVAL_DEFAULTS = {
    "top_k": 5,
    "encoder": "all-minilm-l6-v2",
    "search": "embedding",
    "model": None,
    "cutoff": None,
    "n_queries": 5,
    "max_contributions": 3,
    "max_tokens": None,
}
MINIMAL = {
    "registry": "config/models.yaml",
    "results": "results",
    "decoding": {"temperature": 0.0, "seed": 0, "max_tokens": 64},
    "inference": {
        "concurrency": 1,
        "request_timeout_s": 60,
        "server_start_timeout_s": 60,
    },
    "novbench": {
        "datasets": {},
        "models": [],
        "strategies": ["zero"],
        "perturbations": ["none"],
        "paraphrase_model": "smollm2-135m",
        "seed": 0,
        "few_shot_examples": 1,
        "keep_fraction": 0.8,
        "scoring": {
            "relevance_encoder": "all-minilm-l6-v2",
            "coverage_encoder": "all-minilm-l6-v2",
            "fluency_lm": "smollm2-135m",
            "coverage_threshold": 0.7,
        },
    },
    "judges": {
        "datasets": {},
        "models": [],
        "changes": [],
        "calls": {"pointwise": 1, "pairwise_per_order": 1},
        "max_tokens": 96,
        "structured_output": True,
        "reasoning_chars": None,
        "bootstrap": {"resamples": 100, "seed": 0},
    },
}


def validated(config: dict) -> dict:
    config = copy.deepcopy(config)
    validate(config, SCHEMA)
    return config


def test_defaults_fill_a_minimal_config():
    config = validated(MINIMAL)
    assert config["decoding"]["mode"] == "greedy"
    assert config["inference"]["failure_budget"] == 0
    assert config["novbench"]["prompts"] == "builtin"
    assert config["novbench"]["custom"] == {}
    assert config["upstream"] == dict.fromkeys(upstream.SOURCES)
    assert config["plan"] == {}
    assert config["literature"] == {
        "semantic_scholar": {
            "base_url": "https://api.semanticscholar.org/graph/v1",
            "requests_per_second": 1.0,
            "anonymous": False,
        }
    }
    judges = config["judges"]
    assert {key: judges[key] for key in judges if key not in MINIMAL["judges"]} == {
        "prompts": "builtin",
        "calls_by_change": {},
        "idea_formats": {},
        "systems": {},
        "custom": {},
        "blocklist": False,
        "no_aggregation": "first_call",
        "even_split": "tie",
        "all_failed": "tie",
        "prompt_caching": False,
        "reasoning_summary": None,
        "substitutions": {},
        "compute_usd_per_hour": {"gpu": None, "cpu": None},
        "rewrite_model": None,
        "rewrite_max_tokens": 192,
        "retrieval": {"corpus": None, **RETRIEVAL_DEFAULTS},
        "novelty_checker": {
            "reranker": None,
            "encoder": "all-minilm-l6-v2",
            "prompt": "relaxed",
            "examples": "relaxed",
            "examples_as_run": True,
            "rerank_variant": "priority",
            "papers_shown": 10,
            "papers_embedded": 100,
            "rerank_window": 20,
            "rerank_step": 10,
            "decoding": {"temperature": 0, "reasoning_effort": "high", "max_tokens": None},
            "rerank_decoding": {"temperature": 0, "reasoning_effort": "none", "max_tokens": None},
        },
        "generation": {
            "generators": [],
            "base_setup": "human-only",
            "max_tokens": 320,
            "comparisons": [],
        },
        "motivation": {"changes": ["P3", "P4"]},
    }
    assert judges["bootstrap"] == {"resamples": 100, "seed": 0, "method": "percentile"}


def test_given_values_win_and_a_partial_section_gets_the_rest():
    config = copy.deepcopy(MINIMAL)
    config["judges"] |= {"rewrite_model": "smollm2-135m", "retrieval": {"corpus": "c.yaml"}}
    config["judges"]["generation"] = {"generators": ["smollm2-135m"]}
    judges = validated(config)["judges"]
    assert judges["rewrite_max_tokens"] == 192  # a rewrite model without a budget of its own
    assert judges["retrieval"] == {"corpus": "c.yaml", **RETRIEVAL_DEFAULTS}
    assert judges["generation"]["generators"] == ["smollm2-135m"]
    assert judges["generation"]["base_setup"] == "human-only"


def test_the_default_config_keeps_its_values():
    config = validated(yaml.safe_load((REPO / "config" / "config.yaml").read_text()))
    assert config["judges"]["motivation"] == {"model": "smollm2-135m", "changes": ["P3", "P4"]}
    assert config["judges"]["retrieval"]["corpus"] == "data/sample/judges/corpus.yaml"


def test_the_novelty_checker_s_former_keys_are_errors_naming_the_new_ones():
    """judges.scideator and judges.systems.scideator were renamed novelty_checker: a config that
    still says scideator fails validation with the new key in the message, not silently."""
    for where, key in (("judges", "scideator"), ("systems", "scideator")):
        config = copy.deepcopy(MINIMAL)
        section = (
            config["judges"] if where == "judges" else config["judges"].setdefault("systems", {})
        )
        section[key] = {"models": ["smollm2-135m"]}
        with pytest.raises(Exception, match="novelty_checker") as raised:
            validated(config)
        new = "judges.novelty_checker" if where == "judges" else "judges.systems.novelty_checker"
        assert f"is now {new}" in str(raised.value)
