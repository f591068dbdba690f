"""Registry, request ids, journals, the grid and config validation (no model involved)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from conftest import (
    REPO,
    SAMPLE,
    run_snakemake,
    shared_file,
    snakemake_env,
    tiny_judges_release,
    write_yaml,
)

from noveval.core import pricing
from noveval.core.pricing import Usage
from noveval.core.provenance import canonical
from noveval.core.registry import ModelSpec, RegistryError, load_registry
from noveval.inference.engines.journal import Journal
from noveval.inference.requests import build_request, request_id
from noveval.novbench.grid import novbench_grid

DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 64}
MESSAGES = [{"role": "user", "content": "Is this idea novel?"}]


def default_config() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_request_id_is_stable_and_sensitive():
    spec = ModelSpec(name="m", engine="api", reference="ref", context_length=1)
    first = request_id(spec, MESSAGES, DECODING)
    assert first == request_id(spec, [dict(MESSAGES[0])], dict(reversed(DECODING.items())))
    assert first != request_id(spec, MESSAGES, {**DECODING, "max_tokens": 65})
    assert first != request_id(replace(spec, name="m2"), MESSAGES, DECODING)
    assert first != request_id(replace(spec, reference="ref2"), MESSAGES, DECODING)
    assert first != request_id(replace(spec, reasoning_effort="low"), MESSAGES, DECODING)
    assert first != request_id(spec, [{"role": "user", "content": "Is it novel?"}], DECODING)
    row = build_request("p1", spec, MESSAGES, DECODING)
    assert json.loads(row["messages"]) == MESSAGES and row["max_tokens"] == 64


def test_canonical_config_sorts_keys_and_model_lists_only():
    novbench = {"models": ["b", "a"], "strategies": ["zero", "few"], "decoding": {"z": 1, "a": 2}}
    generation = {"generators": ["y", "x"], "comparisons": [{"weaker": "a", "stronger": "b"}]}
    config = {"novbench": novbench, "judges": {"generation": generation, "changes": ["P4", "P3"]}}
    result = canonical(config)
    assert list(result) == ["judges", "novbench"]
    assert list(result["novbench"]) == ["decoding", "models", "strategies"]
    assert list(result["novbench"]["decoding"]) == ["a", "z"]
    assert result["novbench"]["models"] == ["a", "b"]
    assert result["judges"]["generation"]["generators"] == ["x", "y"]
    # lists whose order means something keep it; the mappings inside them are sorted too
    assert result["novbench"]["strategies"] == ["zero", "few"]
    assert result["judges"]["changes"] == ["P4", "P3"]
    assert list(result["judges"]["generation"]["comparisons"][0]) == ["stronger", "weaker"]
    assert novbench["models"] == ["b", "a"]  # the input is left as it was
    assert repr(canonical(result)) == repr(result)


def test_journal_survives_a_cut_line_and_skips_errors(tmp_path):
    with Journal(tmp_path, "job-a") as journal:
        journal.append({"request_id": "r1", "text": "one", "error": None})
        journal.append({"request_id": "r2", "text": None, "error": "APITimeoutError: slow"})
    with open(tmp_path / "job-a.jsonl", "a") as handle:
        handle.write('{"request_id": "r3", "te')  # killed mid-write
    with Journal(tmp_path, "job-a") as journal:
        journal.append({"request_id": "r4", "text": "four", "error": None})
    with Journal(tmp_path, "job-b") as other:
        other.append({"request_id": "r5", "text": "five", "error": None})
        assert set(other.finished()) == {"r1", "r4", "r5"}


def test_registry_errors_name_the_problem(tmp_path, monkeypatch):
    registry = load_registry(REPO / "config" / "models.yaml")
    with pytest.raises(RegistryError, match="unknown model 'gpt-9'.*smollm2-135m"):
        registry.model("gpt-9")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(RegistryError, match="OPENAI_API_KEY \\(model gpt-4o\\)"):
        registry.require_api_keys(["smollm2-135m", "gpt-4o"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    registry.require_api_keys(["gpt-4o"])
    bad = write_yaml(tmp_path / "m.yaml", {"models": {"x": {"engine": "tgi", "reference": "r"}}})
    with pytest.raises(RegistryError, match="model 'x': engine: 'tgi' is not one of"):
        load_registry(bad)


def test_cost_from_prices():
    spec = load_registry(REPO / "config" / "models.yaml").model("gpt-4o")
    assert spec.cost_usd(Usage(1_000_000, 100_000)) == pytest.approx(2.5 + 1.0)
    prices = {"input": 5.0, "output": 25.0}  # no cache prices: 10% to read, 125% to write
    usage = Usage(1_000_000, 100_000, cached_input_tokens=1_000_000, cache_creation_tokens=10**6)
    assert pricing.cost_usd(prices, usage) == pytest.approx(5.0 + 2.5 + 0.5 + 6.25)
    batch = Usage(1_000_000, 100_000, batch=True)
    assert pricing.cost_usd(prices, batch) == pytest.approx((5.0 + 2.5) / 2)


def test_grid_leaves_rag_out_without_retrieval(caplog):
    coling = shared_file("novbench", "coling2020_pairs.json")
    config = default_config()
    config["novbench"]["datasets"] = {"sample": str(SAMPLE), "coling2020": str(coling)}
    grid = novbench_grid(config, load_registry(REPO / "config" / "models.yaml"))
    assert len(grid.cells_of("sample")) == 9
    assert {c.strategy for c in grid.cells_of("coling2020")} == {"zero", "few"}
    assert "coling2020: RAG cells left out" in caplog.text
    assert grid.models_used() == {"smollm2-135m"}


def test_grid_rejects_unknown_names():
    registry = load_registry(REPO / "config" / "models.yaml")
    config = default_config()
    config["novbench"]["models"] = ["smollm2-135m", "no-such-model"]
    with pytest.raises(RegistryError, match="unknown model 'no-such-model'"):
        novbench_grid(config, registry)
    config = default_config()
    config["novbench"]["scoring"]["fluency_lm"] = "gpt2-xl"
    with pytest.raises(RegistryError, match="unknown language model 'gpt2-xl'"):
        novbench_grid(config, registry)


@pytest.mark.workflow
@pytest.mark.parametrize(
    "overlay, message",
    [
        ({"novbench": {"stratgies": ["zero"]}}, "stratgies"),
        ({"decoding": {"max_tokens": "many"}}, "max_tokens"),
        ({"novbench": {"strategies": ["cot"]}}, "cot"),
    ],
)
def test_invalid_config_is_an_error_naming_the_key(tmp_path, overlay, message):
    path = write_yaml(tmp_path / "bad.yaml", overlay)
    result = run_snakemake("-n", "--configfile", "config/config.yaml", str(path), check=False)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


@pytest.mark.workflow
def test_missing_api_key_fails_before_any_job(tmp_path):
    results = tmp_path / "results"
    overlay = write_yaml(
        tmp_path / "api.yaml",
        {
            "results": str(results),
            "novbench": {"models": ["gpt-4o"], "strategies": ["zero"], "perturbations": ["none"]},
        },
    )
    arguments = ["--cores", "1", "--configfile", "config/config.yaml", str(overlay)]
    env = snakemake_env(OPENAI_API_KEY="")
    planned = run_snakemake("-n", *arguments, env=env)  # planning needs no key
    assert "infer" in planned.stdout
    result = run_snakemake(*arguments, check=False, env=env)
    assert result.returncode != 0
    assert "missing API key environment variable: OPENAI_API_KEY (model gpt-4o)" in (
        result.stdout + result.stderr
    )
    assert not results.exists() or not any(results.rglob("*.parquet"))


def searching_judges_config(tmp_path, **system) -> Path:
    """The default config with the judges' sample searching Semantic Scholar: the retrieval
    change's related work and AI-Scientist's check (``system``: its settings)."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["results"] = str(tmp_path / "results")
    config["novbench"]["datasets"] = {}
    config["judges"].update(
        datasets={"tiny": tiny_judges_release(tmp_path, pairs=1, ideas=2)},
        changes=["reference", "retrieval"],
        systems={"ai_scientist": {"models": ["gpt-4o"], **system}},
    )
    config["judges"]["retrieval"].update(search="semantic_scholar", model="smollm2-135m")
    return write_yaml(tmp_path / "config.yaml", config)


@pytest.mark.workflow
def test_a_run_that_searches_without_the_key_stops_before_any_job(tmp_path):
    config = searching_judges_config(tmp_path)
    arguments = ["--cores", "1", "--configfile", str(config)]
    env = snakemake_env(S2_API_KEY="", OPENAI_API_KEY="sk-set")
    assert "judges_related" in run_snakemake("-n", *arguments, env=env).stdout
    result = run_snakemake(*arguments, check=False, env=env)
    assert result.returncode != 0
    assert (
        "missing API key environment variable: S2_API_KEY (Semantic Scholar, searched by "
        "judges_ai_scientist, judges_related)" in result.stdout + result.stderr
    )
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.parquet"))
    anonymous = yaml.safe_load(config.read_text())
    anonymous["literature"] = {"semantic_scholar": {"anonymous": True}}
    overlay = write_yaml(tmp_path / "anonymous.yaml", anonymous)
    allowed = run_snakemake("-n", "--cores", "1", "--configfile", str(overlay), env=env)
    assert "judges_related" in allowed.stdout


@pytest.mark.workflow
def test_a_dedicated_judge_without_its_models_key_stops_before_any_job(tmp_path):
    config = searching_judges_config(tmp_path)
    env = snakemake_env(S2_API_KEY="s2-set", OPENAI_API_KEY="")
    result = run_snakemake("--cores", "1", "--configfile", str(config), check=False, env=env)
    assert result.returncode != 0
    assert "missing API key environment variable: OPENAI_API_KEY (model gpt-4o)" in (
        result.stdout + result.stderr
    )
