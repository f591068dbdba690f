"""The model registry (config/models.yaml): what each model name means and how it is served."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ENGINES = ("llamacpp", "vllm", "api")


class RegistryError(ValueError):
    """A model name, engine or key that the registry cannot honour."""


@dataclass(frozen=True)
class ModelSpec:
    """One entry of the registry's ``models`` section."""

    name: str
    engine: str
    reference: str
    context_length: int
    size_class: str = "unknown"
    gpus: int = 0
    gpu_model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    reasoning: bool = False
    served_name: str | None = None
    price_per_million: dict = field(default_factory=lambda: {"input": 0.0, "output": 0.0})
    throughput_tokens_per_s: float | None = None
    extra_server_args: tuple[str, ...] = ()
    # Request and server options for the models that have them (vLLM and hosted APIs).
    reasoning_effort: str | None = None
    reasoning_parser: str | None = None
    chat_template: str | None = None
    chat_template_kwargs: dict = field(default_factory=dict)
    # Job sizing overrides (SLURM resources); None: derived from gpus and engine.
    cpus_per_gpu: int | None = None
    mem_mb: int | None = None

    def request_options(self) -> dict:
        """Extra fields of every chat request: reasoning effort, chat-template arguments."""
        options = {}
        if self.reasoning_effort:
            options["reasoning_effort"] = self.reasoning_effort
        if self.chat_template_kwargs and self.engine != "api":
            options["chat_template_kwargs"] = dict(self.chat_template_kwargs)
        return options

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        """Price of a call from its token counts."""
        prices = self.price_per_million
        return (input_tokens * prices["input"] + output_tokens * prices["output"]) / 1e6


@dataclass(frozen=True)
class Registry:
    """Models, sentence encoders and fluency language models by name."""

    models: dict[str, ModelSpec]
    encoders: dict[str, str]
    language_models: dict[str, str]

    def model(self, name: str) -> ModelSpec:
        """The spec of a generator/judge model, or an error listing the known names."""
        return _lookup(self.models, name, "model")

    def encoder(self, name: str) -> str:
        """The reference of a sentence encoder."""
        return _lookup(self.encoders, name, "encoder")

    def language_model(self, name: str) -> str:
        """The reference of a causal LM used for perplexity."""
        return _lookup(self.language_models, name, "language model")

    def require_api_keys(self, names) -> None:
        """Fail before any job starts when an API model's key variable is unset."""
        missing = sorted(
            {
                f"{spec.api_key_env} (model {spec.name})"
                for spec in (self.model(name) for name in names)
                if spec.engine == "api" and not os.environ.get(spec.api_key_env or "")
            }
        )
        if missing:
            raise RegistryError(f"missing API key environment variable: {', '.join(missing)}")


def models_to_call(jobs) -> set[str]:
    """The models that a run's pending jobs call (its ``infer`` jobs).

    For the key check in ``onstart``: a dry run or a run that calls no API model (the compute
    plan, tables from cached scores) needs no key; a run that calls one fails before any job.
    """
    return {
        job.wildcards_dict["model"]
        for job in jobs
        if job.rule.name == "infer" and "model" in job.wildcards_dict
    }


def _lookup(table: dict, name: str, kind: str):
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise RegistryError(f"unknown {kind} '{name}' (registry knows: {known})")
    return table[name]


def load_registry(path: str | Path) -> Registry:
    """Read and check config/models.yaml."""
    raw = yaml.safe_load(Path(path).read_text()) or {}
    models = {}
    for name, entry in (raw.get("models") or {}).items():
        entry = dict(entry)
        if entry.get("engine") not in ENGINES:
            raise RegistryError(
                f"model '{name}': engine must be one of {', '.join(ENGINES)}, "
                f"got {entry.get('engine')!r}"
            )
        if entry["engine"] == "api" and not entry.get("api_key_env"):
            raise RegistryError(f"model '{name}': api models need api_key_env")
        for key in ("reference", "context_length"):
            if key not in entry:
                raise RegistryError(f"model '{name}': missing '{key}'")
        entry["extra_server_args"] = tuple(entry.get("extra_server_args", ()))
        try:
            models[name] = ModelSpec(name=name, **entry)
        except TypeError as error:
            raise RegistryError(f"model '{name}': {error}") from None
    return Registry(
        models=models,
        encoders=dict(raw.get("encoders") or {}),
        language_models=dict(raw.get("language_models") or {}),
    )
