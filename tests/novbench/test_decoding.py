"""Decoding as the NovBench authors decoded (``decoding.mode: authors``): each open model is sent
what transformers' ``generate`` did with its generation_config.json, read from its downloaded
snapshot; hosted models are sent no token cap where their API takes none (checked against the
loopback server, which enforces each API's documented rules)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import REPO

from noveval.core.registry import RegistryError, load_registry
from noveval.inference.engines.client import ClientSettings, send_requests
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.providers import Endpoint, provider_for
from noveval.inference.engines.servers import serve
from noveval.inference.requests import build_request
from noveval.novbench import decoding, generation, records
from noveval.novbench.decoding import generation_config_of

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SAMPLE = REPO / "data" / "sample" / "novbench_sample.json"
AUTHORS = {"max_tokens": 4096, "mode": "authors"}  # config/paper.yaml
GREEDY = {"temperature": 0.0, "seed": 0, "max_tokens": 320, "mode": "greedy"}  # config.yaml
SETTINGS = {"few_shot_examples": 2, "seed": 7}
# generation_config.json as the hub serves them: Mistral-7B-Instruct-v0.2 (SEA's base) sets no
# do_sample; Qwen3's sets its sampling; gpt-oss's sets do_sample alone.
NO_SAMPLING = {"bos_token_id": 1, "eos_token_id": 2}
QWEN3 = {"do_sample": True, "temperature": 0.6, "top_k": 20, "top_p": 0.95}
DO_SAMPLE_ONLY = {"do_sample": True, "eos_token_id": [200002, 199999]}


def snapshot_manifest(tmp_path, model: str, generation_config: dict | None) -> str:
    """A downloaded snapshot with its manifest, as rule weights writes them."""
    snapshot = tmp_path / "snapshots" / model
    snapshot.mkdir(parents=True)
    files = {"config.json": {"model_type": "llama"}}
    if generation_config is not None:
        files[decoding.GENERATION_CONFIG] = generation_config
    for name, content in files.items():
        (snapshot / name).write_text(json.dumps(content))
    manifest = tmp_path / f"{model}.json"
    record = {
        "model": model,
        "repo_id": f"org/{model}",
        "revision": "0" * 40,
        "cache_dir": str(tmp_path),
        "snapshot": str(snapshot),
        "files": [{"path": name, "bytes": 1} for name in files],
    }
    manifest.write_text(json.dumps(record))
    return str(manifest)


@pytest.fixture(scope="module")
def papers():
    return records.load_release(SAMPLE)


def requests_of(papers, model: str, decoding_values: dict, generation_config=None) -> list[dict]:
    return generation.generation_requests(
        papers.head(1),
        papers,
        "zero",
        REGISTRY.model(model),
        decoding_values,
        SETTINGS,
        generation_config=generation_config,
    )


def test_generate_decodes_greedily_unless_the_config_samples():
    assert decoding.generate_decoding(NO_SAMPLING) == {"temperature": 0.0, "sampling": "greedy"}
    # a temperature without do_sample is ignored by generate
    assert decoding.generate_decoding({"temperature": 0.7})["sampling"] == "greedy"
    assert decoding.generate_decoding(QWEN3) == {
        "temperature": 0.6,
        "top_p": 0.95,
        "top_k": 20,
        "sampling": "sample",
    }
    # transformers' defaults for what the file leaves out (vLLM's would be top_k off)
    assert decoding.generate_decoding(DO_SAMPLE_ONLY) == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 50,
        "sampling": "sample",
    }
    with pytest.raises(decoding.DecodingError, match="num_beams 4: beam search"):
        decoding.generate_decoding({"num_beams": 4})


def test_open_models_are_sent_what_generate_did_with_their_snapshots_config(tmp_path, papers):
    greedy_manifest = snapshot_manifest(tmp_path, "sea-e", NO_SAMPLING)
    sampled_manifest = snapshot_manifest(tmp_path, "qwen3-8b", QWEN3)
    missing_manifest = snapshot_manifest(tmp_path, "sea-s", None)

    (greedy,) = requests_of(papers, "sea-e", AUTHORS, generation_config_of([greedy_manifest]))
    assert (greedy["temperature"], greedy["top_p"], greedy["top_k"]) == (0.0, None, None)
    assert (greedy["sampling"], greedy["max_tokens"], greedy["seed"]) == ("greedy", 4096, None)
    assert generation_config_of([missing_manifest]) == {}  # a repository without the file

    (sampled,) = requests_of(papers, "qwen3-8b", AUTHORS, generation_config_of([sampled_manifest]))
    assert (sampled["temperature"], sampled["top_p"], sampled["top_k"]) == (0.6, 0.95, 20)
    assert (sampled["sampling"], sampled["max_tokens"], sampled["seed"]) == ("sample", 4096, None)

    # the decision is part of the request id: the same model decoded otherwise is another call
    (otherwise,) = requests_of(papers, "qwen3-8b", AUTHORS, NO_SAMPLING)
    assert otherwise["request_id"] != sampled["request_id"]
    # what the vLLM server is sent: top_p as OpenAI's field, top_k as vLLM's extra field
    endpoint = Endpoint("http://127.0.0.1:1/v1", "-", "Qwen/Qwen3-8B")
    sent = provider_for(endpoint).arguments(sampled)
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"]) == (0.6, 0.95, 4096)
    assert sent["extra_body"] == {"top_k": 20}
    assert "seed" not in sent

    with pytest.raises(decoding.DecodingError, match="model 'qwen3-8b': decoding.mode authors"):
        requests_of(papers, "qwen3-8b", AUTHORS)


def test_greedy_mode_is_unchanged_and_needs_no_download(papers):
    (row,) = requests_of(papers, "qwen3-8b", GREEDY)
    assert (row["temperature"], row["seed"], row["max_tokens"]) == (0.0, 0, 320)
    assert (row["top_p"], row["top_k"], row["sampling"]) == (None, None, None)
    spec = REGISTRY.model("qwen3-8b")
    assert decoding.decoding_inputs(spec, GREEDY, "results") == []
    assert decoding.decoding_inputs(spec, AUTHORS, "results") == ["results/weights/qwen3-8b.json"]
    assert decoding.decoding_inputs(REGISTRY.model("gpt-5"), AUTHORS, "results") == []
    with pytest.raises(ValueError, match="decoding.mode 'sampled' is unknown"):
        decoding.call_decoding({**AUTHORS, "mode": "sampled"})


def test_the_cap_is_optional_where_the_api_makes_it_so():
    claude = REGISTRY.model("claude-opus-4-5")
    assert decoding.call_decoding(AUTHORS, claude) == {"max_tokens": 4096}  # Messages needs it
    with pytest.raises(RegistryError, match="its messages API requires an output-token cap"):
        build_request("p", claude, [{"role": "user", "content": "x"}], {})
    for name in ("gpt-5", "gemini-2.5-flash", "gpt-4o", "gpt-3.5-turbo"):
        assert decoding.call_decoding(AUTHORS, REGISTRY.model(name)) == {}


@pytest.mark.parametrize("name", ["gpt-5", "gemini-2.5-flash", "gpt-3.5-turbo"])
def test_hosted_requests_carry_no_token_cap_and_are_accepted(
    name, papers, loopback, tmp_path, monkeypatch
):
    spec = REGISTRY.model(name)
    rows = requests_of(papers, name, AUTHORS)
    assert [row["max_tokens"] for row in rows] == [None]
    monkeypatch.setenv(spec.api_key_env, "sk-loopback")
    pointed = replace(spec, base_url=loopback.base_url(spec.api))
    with Journal(tmp_path / name, "job") as journal:
        with serve(pointed, tmp_path / "serve.log") as endpoint:
            failures = send_requests(
                rows, endpoint, journal, ClientSettings(1, 30, 0), spec.cost_usd
            )
    (record,) = read_records(journal.path)
    assert failures == 0 and record["error"] is None and record["text"]
    (body,) = [body for _, rid, body in loopback.bodies if rid == rows[0]["request_id"]]
    caps = {"max_tokens", "max_completion_tokens", "max_output_tokens"}
    assert not caps & set(body) and "temperature" not in body and "seed" not in body
