"""The model registry's checks: its schema names an unknown key or a wrong type with its model,
and the shipped config/models.yaml fits it."""

from __future__ import annotations

import dataclasses
import re

import pytest
import yaml
from conftest import REPO, write_yaml

from noveval.core import registry_checks
from noveval.core.registry import APIS, ModelSpec, RegistryError, load_registry

SHIPPED = REPO / "config" / "models.yaml"
LOCAL = {"engine": "llamacpp", "reference": "model.gguf", "context_length": 8192}
HOSTED = {"engine": "api", "reference": "m", "api_key_env": "KEY", "context_length": 8192}


def faults_of(tmp_path, registry: dict) -> str:
    """The error of loading ``registry``, with the file's folder left out."""
    with pytest.raises(RegistryError) as raised:
        load_registry(write_yaml(tmp_path / "models.yaml", registry))
    return str(raised.value).replace(f"{tmp_path}/", "")


def test_the_shipped_registry_fits_its_schema():
    raw = registry_checks.read(SHIPPED)
    assert registry_checks.faults(raw, SHIPPED) == []
    registry = load_registry(SHIPPED)
    assert registry.model("claude-sonnet-4-5").retired == "2026-11-30"  # an unquoted date
    assert registry.model("qwen3-32b").extra_server_args == ("--gpu-memory-utilization", "0.95")


def test_the_schema_declares_every_field_of_a_model_spec_and_the_header_describes_it():
    schema = yaml.safe_load(registry_checks.SCHEMA.read_text())
    keys = set(schema["$defs"]["model"]["properties"])
    assert keys == {f.name for f in dataclasses.fields(ModelSpec)} - {"name"}
    header = SHIPPED.read_text().split("\nmodels:")[0]
    assert [key for key in sorted(keys) if not re.search(rf"\b{key}\b", header)] == []


@pytest.mark.parametrize(
    ("registry", "error"),
    [
        (
            {"models": {"smollm2-135m": {**LOCAL, "engnie": "llamacpp"}}},
            "models.yaml: model 'smollm2-135m': unknown key 'engnie' (did you mean 'engine'?)",
        ),
        (
            {"models": {"m": {**LOCAL, "gpus": "two"}}},
            "models.yaml: model 'm': gpus: 'two' is not of type 'integer'",
        ),
        (
            {"models": {"m": {**HOSTED, "price_per_million": {"input": 1, "output": "2"}}}},
            "models.yaml: model 'm': price_per_million.output: '2' is not of type 'number' "
            "(USD per million tokens)",
        ),
        (
            {"models": {"m": {**HOSTED, "price_per_million": {"input": 1, "output": 2, "x": 3}}}},
            "models.yaml: model 'm': price_per_million: unknown key 'x'",
        ),
        (
            {"modles": {"m": LOCAL}},
            "models.yaml: top level: unknown key 'modles' (did you mean 'models'?)",
        ),
        (
            {"encoders": {"e": {"reference": "org/e", "sha": "0" * 40}}},
            "models.yaml: encoders 'e': unknown key 'sha'",
        ),
        (
            {"models": {"m": {**HOSTED, "api_key_env": None}}},
            "models.yaml: model 'm': api_key_env: None is not of type 'string' "
            "(api models need one)",
        ),
        (
            {"models": {"m": {**LOCAL, "api": "messages"}}},
            "models.yaml: model 'm': api: 'chat' was expected (a local server speaks chat)",
        ),
        (
            {"models": {"m": {**HOSTED, "retired": "soon"}}},
            "models.yaml: model 'm': retired: 'soon' does not match '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' "
            "(YYYY-MM-DD, the day its provider stopped serving it)",
        ),
        (
            {"models": {"m": {**HOSTED, "effort_levels": ["low"], "reasoning_effort": "high"}}},
            "models.yaml: model 'm': reasoning_effort 'high' is not in its effort_levels",
        ),
        (
            {"models": {"e": {**LOCAL, "engine": "vllm"}}, "encoders": {"e": {"reference": "e"}}},
            "models.yaml: encoders 'e': a vLLM model has this name",
        ),
    ],
)
def test_a_fault_is_named_with_its_key_and_model(tmp_path, registry, error):
    assert faults_of(tmp_path, registry) == error


def test_every_fault_is_named_one_line_each(tmp_path):
    registry = {"models": {"a": {**LOCAL, "gpus": -1}, "b": {"engine": "tgi", "reference": "r"}}}
    assert faults_of(tmp_path, registry).splitlines() == [
        "models.yaml: model 'a': gpus: -1 is less than the minimum of 0",
        "models.yaml: model 'b': 'context_length' is a required property",
        "models.yaml: model 'b': engine: 'tgi' is not one of ['llamacpp', 'vllm', 'api']",
    ]


@pytest.mark.parametrize("api", APIS)
def test_a_token_limit_is_one_of_its_apis_fields(tmp_path, api):
    for field in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        entry = {**HOSTED, "api": api, "token_limit": field}
        path = write_yaml(tmp_path / f"{field}.yaml", {"models": {"m": entry}})
        if field in APIS[api]:
            assert load_registry(path).model("m").token_field == field
        else:
            with pytest.raises(RegistryError, match=f"model 'm': token_limit: '{field}' is not"):
                load_registry(path)
