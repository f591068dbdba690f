"""The model registry (config/models.yaml): what each model name means and how it is served.

Each model says which API it speaks (``api``) and what that API takes from it. A request is
adapted to the model when it is built (:meth:`ModelSpec.call_parameters`), so the request row,
and the request id hashed from it, hold exactly what reaches the model.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from noveval.core import pricing, registry_checks
from noveval.core.registry_checks import APIS, DEFAULT_API

log = logging.getLogger(__name__)

ENVIRONMENTS = {"vllm": "inference-vllm.yaml"}  # engine -> conda env file (envs/)


def inference_env(spec: ModelSpec) -> str:
    """The conda environment file (under envs/) an inference job of ``spec`` runs in (a vLLM
    model's own; every other engine's is noveval.yaml)."""
    return ENVIRONMENTS.get(spec.engine, "noveval.yaml")


# The rules whose jobs call a model: ``infer_api`` is ``infer`` for the hosted-API models.
INFERENCE_RULES = {"api": "infer_api", "llamacpp": "infer", "vllm": "infer"}
# The wire APIs and their token-limit fields: registry_checks.APIS (each a provider class of
# noveval.inference.engines.providers). The field that carries each one's reasoning effort:
EFFORT_FIELD = {
    "chat": "reasoning_effort",
    "responses": "reasoning.effort",
    "messages": "output_config.effort",
}
# APIs whose requests must carry an output-token cap (Anthropic Messages: max_tokens required).
CAP_REQUIRED = ("messages",)
# Sampling values sent only when set (an open model's generation config), and the decoding rule.
SAMPLING_EXTRAS = {"top_p": float, "top_k": int, "sampling": str}
_dropped_logged: set[tuple[str, str]] = set()
PLACEMENT = ("constraint", "slurm_extra")  # where a model's jobs run (SLURM), not what they do
# Registry fields that change no answer of a model, left out of its fingerprint.
NOT_ANSWERS = (*PLACEMENT, "retired", "requests_per_minute", "tokens_per_minute")


class RegistryError(ValueError):
    """A model name, engine or key that the registry cannot honour."""


@dataclass(frozen=True)
class ModelSpec:
    """One entry of the registry's ``models`` section."""

    name: str
    engine: str
    reference: str
    context_length: int
    gpus: int = 0
    gpu_model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    reasoning: bool = False
    think_opened_by_template: bool = False  # answers start inside the reasoning block
    # What the model's API takes (see APIS): sampling settings it does not take are not sent.
    api: str = DEFAULT_API
    token_limit: str | None = None  # default: the API's first token-limit field
    accepts_temperature: bool = True
    accepts_seed: bool = True
    structured_output: bool = True  # takes a JSON schema for its output
    effort_levels: tuple[str, ...] = ()  # reasoning efforts it honours (none: it takes no effort)
    price_per_million: dict = field(default_factory=lambda: {"input": 0.0, "output": 0.0})
    price_per_thousand_web_searches: float = 0.0  # the hosted web-search tool's calls
    throughput_tokens_per_s: float | None = None
    # The provider's rate limits for your account (its tier): calls are paced to them.
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    extra_server_args: tuple[str, ...] = ()
    # Request and server options for the models that have them (vLLM and hosted APIs).
    reasoning_effort: str | None = None
    reasoning_parser: str | None = None
    chat_template: str | None = None
    chat_template_kwargs: dict = field(default_factory=dict)
    # Job sizing overrides (SLURM resources); None: derived from gpus and engine.
    cpus_per_gpu: int | None = None
    mem_mb: int | None = None
    # Node constraint (sbatch -C; a label the site file's `constraints` maps to the site's node
    # features) and extra sbatch options of the model's jobs (the plugin's slurm_extra).
    constraint: str | None = None
    slurm_extra: str | None = None
    # Weights of vLLM models (rule weights): the hub commit to download, and its size for the plan.
    revision: str | None = None
    download_gb: float | None = None
    gated: bool = False  # the hub asks for a token with the licence accepted (preflight checks it)
    # The day its provider stopped serving it (YYYY-MM-DD): its cells are skipped, not run, unless
    # the config names a successor (judges.substitutions).
    retired: str | None = None

    @property
    def not_runnable(self) -> str | None:
        """Why the model's cells cannot run (None: they can)."""
        return f"not runnable: retired on {self.retired}" if self.retired else None

    @property
    def token_field(self) -> str:
        """The request field that carries the output-token limit."""
        return self.token_limit or APIS[self.api][0]

    def wire(self) -> dict:
        """How requests reach the model: its reference, API, token field, default effort and
        extra options (all part of every request id)."""
        return {
            "reference": self.reference,
            "api": self.api,
            "token_field": self.token_field,
            "reasoning_effort": self.reasoning_effort,
            "options": self.request_options(),
        }

    def request_options(self) -> dict:
        """Extra fields of every request of a local server: chat-template arguments."""
        if self.chat_template_kwargs and self.engine != "api":
            return {"chat_template_kwargs": dict(self.chat_template_kwargs)}
        return {}

    def call_parameters(self, decoding: dict, response_format: dict | None = None) -> dict:
        """The call parameters this model is sent for ``decoding`` (keys ``max_tokens``,
        ``temperature``, ``seed``, ``reasoning_effort``, optionally ``top_p``, ``top_k`` and
        ``sampling``; a missing or null value is not sent).

        The output-token cap is optional where the API makes it so (chat, responses); Anthropic
        Messages requires one. ``top_p``, ``top_k`` and ``sampling`` (the decoding rule the values
        follow, a record) are among the parameters only when set, so that requests without them
        keep their ids. The registry's ``reasoning_effort`` applies where ``decoding`` sets none.
        A sampling setting the model does not take is left out (logged once per model); an effort
        level it does not honour, or an output schema its API cannot take, is an error.
        """
        parameters = {
            "temperature": _optional(decoding.get("temperature"), float),
            "max_tokens": _optional(decoding.get("max_tokens"), int),
            "seed": _optional(decoding.get("seed"), int),
            "reasoning_effort": decoding.get("reasoning_effort") or self.reasoning_effort,
            "response_format": response_format,
        }
        if parameters["max_tokens"] is None and self.api in CAP_REQUIRED:
            raise RegistryError(
                f"model '{self.name}': its {self.api} API requires an output-token cap "
                "(decoding max_tokens)"
            )
        for key, kind in SAMPLING_EXTRAS.items():
            if decoding.get(key) is not None:
                parameters[key] = kind(decoding[key])
        accepts = {"temperature": self.accepts_temperature, "seed": self.accepts_seed}
        for key, accepted in accepts.items():
            if parameters[key] is not None and not accepted:
                if (self.name, key) not in _dropped_logged:
                    _dropped_logged.add((self.name, key))
                    log.info("%s: %s not sent (its %s API takes none)", self.name, key, self.api)
                parameters[key] = None
        effort = parameters["reasoning_effort"]
        if effort is not None and effort not in self.effort_levels:
            takes = ", ".join(self.effort_levels) or "none"
            raise RegistryError(
                f"model '{self.name}': reasoning effort '{effort}' is not one it takes "
                f"(effort_levels: {takes})"
            )
        if response_format and not self.structured_output:
            raise RegistryError(
                f"model '{self.name}': its {self.api} API takes no output schema "
                "(structured_output: false); turn structured output off for it"
            )
        return parameters

    def fingerprint(self) -> str:
        """A short hash of the registry entry: a changed entry reruns the model's jobs. Where
        its jobs run (``PLACEMENT``) and its retirement are left out: they change no answer."""
        entry = {k: v for k, v in dataclasses.asdict(self).items() if k not in NOT_ANSWERS}
        text = json.dumps(entry, sort_keys=True, default=list)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def cost_usd(self, usage: pricing.Usage) -> float:
        """Price of a call from its token counts (``noveval.core.pricing``)."""
        return pricing.cost_usd(self.price_per_million, usage, self.price_per_thousand_web_searches)


@dataclass(frozen=True)
class ScorerSpec:
    """A metric model (encoder or fluency LM) on the Hugging Face hub: rule weights downloads it
    at ``revision``, as it does the vLLM models' weights, and scoring reads it offline."""

    name: str
    reference: str
    revision: str | None = None
    download_gb: float | None = None


@dataclass(frozen=True)
class Registry:
    """Models, sentence encoders and fluency language models by name (``scorers``: the
    encoders and language models given as hub entries, by name)."""

    models: dict[str, ModelSpec]
    encoders: dict[str, str]
    language_models: dict[str, str]
    scorers: dict[str, ScorerSpec] = field(default_factory=dict)

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


# The rules whose jobs call a model: the grid's inference, the pilot's, the judge construction's,
# and the dedicated judges (AI-Scientist's check, the Idea Novelty Checker), which call their
# backbone from the job itself.
CALLING_RULES = {
    *INFERENCE_RULES.values(),
    "pilot_infer",
    "pilot_infer_api",
    "construction_judges_infer",
    "judges_ai_scientist",
    "judges_novelty_checker",
}


def models_to_call(jobs) -> set[str]:
    """The models that a run's pending jobs call (its inference, pilot and dedicated-judge jobs,
    with the Idea Novelty Checker's reranker).

    For the key check in ``onstart``: a dry run or a run that calls no API model (the compute
    plan, tables from cached scores) needs no key; a run that calls one fails before any job.
    """
    models = set()
    for job in jobs:
        if job.rule.name not in CALLING_RULES or "model" not in job.wildcards_dict:
            continue
        models.add(job.wildcards_dict["model"])
        if job.rule.name == "judges_novelty_checker" and job.params.settings.get("reranker"):
            models.add(job.params.settings["reranker"])
    return models


def _optional(value, kind):
    return None if value is None else kind(value)


def _lookup(table: dict, name: str, kind: str):
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise RegistryError(f"unknown {kind} '{name}' (registry knows: {known})")
    return table[name]


def load_registry(path: str | Path) -> Registry:
    """Read config/models.yaml, checked (:mod:`noveval.core.registry_checks`): a fault stops the run
    naming its key and model."""
    raw = registry_checks.read(path)
    faults = registry_checks.faults(raw, path)
    if faults:
        raise RegistryError("\n".join(faults))
    models = {}
    for name, entry in (raw.get("models") or {}).items():
        entry = {
            **entry,
            "effort_levels": tuple(entry.get("effort_levels", ())),
            "extra_server_args": tuple(entry.get("extra_server_args", ())),
        }
        models[name] = ModelSpec(name=name, **entry)
    scorers: dict[str, ScorerSpec] = {}
    references = {}
    for section in ("encoders", "language_models"):
        references[section] = {}
        for name, entry in (raw.get(section) or {}).items():
            if isinstance(entry, dict):
                scorers[name] = ScorerSpec(name=name, **entry)
                entry = entry["reference"]
            references[section][name] = entry
    return Registry(
        models=models,
        encoders=references["encoders"],
        language_models=references["language_models"],
        scorers=scorers,
    )
