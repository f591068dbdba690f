"""The checks of the model registry file (config/models.yaml).

First its schema (models.schema.yaml, beside this module): every key declared, with its type, so
an unknown or misspelled key is named with its model, e.g. ``config/models.yaml: model
'smollm2-135m': unknown key 'engnie' (did you mean 'engine'?)``. Then what a schema cannot say: a
model's default effort among its effort levels, and a hub scorer's name taken by no other model.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import jsonschema

from noveval.core.yaml_files import SafeLoader, load_yaml, read_yaml

SCHEMA = Path(__file__).with_name("models.schema.yaml")  # package data, beside this module
# The wire APIs a model's ``api`` names, each with its token-limit fields (the first: the default
# of ``token_limit``): OpenAI chat completions (vLLM, llama.cpp, Gemini, older OpenAI models),
# OpenAI Responses (GPT-5.x) and Anthropic Messages (Claude). The schema's ``api`` enum and its
# ``token_limit`` rules are made from it; each has its provider class
# (noveval.inference.engines.providers).
APIS = {
    "chat": ("max_tokens", "max_completion_tokens"),
    "responses": ("max_output_tokens",),
    "messages": ("max_tokens",),
}
DEFAULT_API = "chat"  # a model that names no api
SECTIONS = {"models": "model", "encoders": "encoders", "language_models": "language_models"}


class _DatesAsText(SafeLoader):
    """YAML whose unquoted dates (``retired: 2026-11-30``) stay the text written."""


_DatesAsText.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in SafeLoader.yaml_implicit_resolvers.items()
}


def read(path: str | Path) -> object:
    """The registry file as YAML (an empty file: no sections)."""
    return read_yaml(path, _DatesAsText) or {}


def faults(raw: object, path: str | Path) -> list[str]:
    """Every fault of the registry ``raw`` read from ``path``, one line each (none: it is fine)."""
    schema = model_schema()
    errors = jsonschema.Draft202012Validator(schema).iter_errors(raw)
    found = [
        f"{path}: {_where(list(error.absolute_path))}{_message(error)}"
        for error in sorted(errors, key=lambda error: [str(p) for p in error.absolute_path])
    ]
    return found or [f"{path}: {fault}" for fault in _semantic_faults(raw)]


def model_schema() -> dict:
    """models.schema.yaml with the ``api`` enum and each API's ``token_limit`` rule from
    ``APIS``."""
    schema = load_yaml(SCHEMA.read_text())
    model = schema["$defs"]["model"]
    model["properties"]["api"] = {"enum": list(APIS)}
    for api, fields in APIS.items():
        condition = {"properties": {"api": {"const": api}}}
        if api != DEFAULT_API:  # the default's rule holds also where api is not given
            condition["required"] = ["api"]
        limit = {"enum": [*fields, None], "description": f"the {api} API's"}
        model["allOf"].append({"if": condition, "then": {"properties": {"token_limit": limit}}})
    return schema


def _where(keys: list) -> str:
    """``model 'x': gpus: `` for the keys down to a fault ("top level: " for the file's)."""
    if len(keys) >= 2 and keys[0] in SECTIONS:
        entry, keys = f"{SECTIONS[keys[0]]} '{keys[1]}': ", keys[2:]
    else:
        entry = "" if keys else "top level: "
    return entry + (f"{'.'.join(map(str, keys))}: " if keys else "")


def _message(error: jsonschema.ValidationError) -> str:
    """The fault in words: the unknown keys by name, else jsonschema's message with the
    schema's description of the key."""
    if error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        return "; ".join(_unknown(key, known) for key in sorted(set(error.instance) - set(known)))
    description = error.schema.get("description")
    return f"{error.message} ({description})" if description else error.message


def _unknown(key: str, known) -> str:
    close = difflib.get_close_matches(str(key), list(known), n=1)
    return f"unknown key '{key}'" + (f" (did you mean '{close[0]}'?)" if close else "")


def _semantic_faults(raw: dict) -> list[str]:
    """What the schema cannot check, in a registry that fits it."""
    found = []
    models = raw.get("models") or {}
    for name, entry in models.items():
        effort, levels = entry.get("reasoning_effort"), entry.get("effort_levels", [])
        if effort and effort not in levels:
            found.append(f"model '{name}': reasoning_effort '{effort}' is not in its effort_levels")
    scorers: dict[str, dict] = {}
    for section in ("encoders", "language_models"):
        for name, entry in (raw.get(section) or {}).items():
            if isinstance(entry, str):
                continue
            entry = {"revision": None, "download_gb": None, **entry}
            if scorers.setdefault(name, entry) != entry:
                found.append(f"{section} '{name}': another scorer has this name")
            if (models.get(name) or {}).get("engine") == "vllm":
                found.append(f"{section} '{name}': a vLLM model has this name")
    return found
