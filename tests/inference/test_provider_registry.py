"""The providers are a registry: a new wire API is one class registered under a name (and its
token fields in registry_checks.APIS), and a registry entry naming it is served through it with
no other change (docs/extending.md, "Add a provider")."""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO, write_yaml
from loopback_api import ANSWER

from noveval.core import registry_checks
from noveval.core.registry import RegistryError, load_registry
from noveval.inference.engines.client import ClientSettings, send_requests
from noveval.inference.engines.journal import Journal, read_records
from noveval.inference.engines.providers import PROVIDERS, Endpoint, base, provider_for, register
from noveval.inference.engines.providers.openai_api import Chat
from noveval.inference.engines.servers import serve
from noveval.inference.requests import build_request


class SystemAsUser(Chat):
    """A toy API: chat completions from a server that knows no system role, so the system
    prompt leads the first user message."""

    name = "system_as_user"

    def body(self, request, messages, schema, effort):
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [dict(m) for m in messages if m["role"] != "system"]
        turns[0]["content"] = f"{system}\n\n{turns[0]['content']}"
        return super().body(request, turns, schema, effort)


def toy_registry(tmp_path, base_url: str):
    entry = {
        "engine": "api",
        "api": SystemAsUser.name,
        "reference": "toy-model",
        "base_url": base_url,
        "api_key_env": "NOVEVAL_TEST_KEY",
        "context_length": 8192,
        "price_per_million": {"input": 1.0, "output": 2.0},
    }
    return write_yaml(tmp_path / "models.yaml", {"models": {"toy": entry}})


def test_every_api_of_the_model_registry_has_its_provider():
    assert set(PROVIDERS) == set(registry_checks.APIS)
    shipped = yaml.safe_load((REPO / "config" / "models.yaml").read_text())["models"]
    for spec in shipped.values():
        assert provider_for(Endpoint("-", "-", "-", api=spec.get("api", "chat"))).name in PROVIDERS
    with pytest.raises(ValueError, match="no provider for API 'toy'"):
        provider_for(Endpoint("-", "-", "-", api="toy"))


def test_a_registered_toy_provider_serves_a_registry_entry_of_its_api(
    loopback, tmp_path, monkeypatch
):
    path = toy_registry(tmp_path, loopback.base_url("chat"))
    with pytest.raises(RegistryError, match="api: 'system_as_user' is not one of"):
        load_registry(path)  # an API no provider serves is refused with the registry

    monkeypatch.setattr(base, "PROVIDERS", dict(base.PROVIDERS))
    monkeypatch.setitem(registry_checks.APIS, SystemAsUser.name, ("max_tokens",))
    register(SystemAsUser)
    spec = load_registry(path).model("toy")
    assert spec.token_field == "max_tokens"

    monkeypatch.setenv("NOVEVAL_TEST_KEY", "sk-loopback")
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Idea?"}]
    request = build_request("toy|0", spec, messages, {"temperature": 0.0, "max_tokens": 32})
    with Journal(tmp_path / "toy", "job") as journal:
        with serve(spec, tmp_path / "serve.log") as endpoint:
            assert isinstance(provider_for(endpoint), SystemAsUser)
            failures = send_requests([request], endpoint, journal, ClientSettings(), spec.cost_usd)
    assert failures == 0 and read_records(journal.path)[0]["text"] == ANSWER
    path_sent, _, body = loopback.bodies[-1]
    assert path_sent.endswith("/chat/completions")
    assert body["messages"] == [{"role": "user", "content": "Be brief.\n\nIdea?"}]
    assert body["max_tokens"] == 32
