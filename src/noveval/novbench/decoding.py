"""NovBench decoding: what a request sends under ``decoding.mode`` greedy or authors.

``greedy``: the config's temperature, seed and output-token cap, for every model.

``authors``: as the authors' scripts decoded. Hosted models were sent no temperature, seed or
token cap (the provider's defaults; a cap on a reasoning model counts its hidden reasoning), so
none is sent, except where the API requires a cap (Anthropic Messages). Open models ran through
transformers' ``generate(max_new_tokens=4096)``, which decodes greedily unless the model's
``generation_config.json`` sets ``do_sample``, and then samples with the file's temperature,
top_p and top_k (transformers' defaults where the file sets none). A vLLM server would instead
sample at the file's values, or at temperature 1.0 without them, so each open model is sent what
``generate`` did, read from its downloaded snapshot at the pinned revision: temperature 0, or the
file's sampling. ``sampling`` records the rule in the request (and its id).
"""

from __future__ import annotations

import json
from pathlib import Path

from noveval.core.registry import CAP_REQUIRED, ModelSpec
from noveval.inference.weights import local_weights, manifest_path, needs_weights

MODES = ("greedy", "authors")
GENERATION_CONFIG = "generation_config.json"
# transformers.GenerationConfig's defaults for the sampling values a file leaves out
GENERATE_DEFAULTS = {"temperature": 1.0, "top_p": 1.0, "top_k": 50}
GREEDY, SAMPLE = "greedy", "sample"


class DecodingError(ValueError):
    """A decoding setting or generation config that cannot be reproduced."""


def check_mode(decoding: dict) -> str:
    """``decoding.mode``, or an error naming the known modes."""
    mode = decoding["mode"]
    if mode not in MODES:
        raise DecodingError(f"decoding.mode '{mode}' is unknown (known: {', '.join(MODES)})")
    return mode


def needs_generation_config(spec: ModelSpec, decoding: dict, library_sampled: bool = False) -> bool:
    """Whether requests of ``spec`` follow its generation config (paper mode, open models
    whose sampling no reviewer library sets: ``library_sampled``)."""
    return check_mode(decoding) == "authors" and needs_weights(spec) and not library_sampled


def decoding_inputs(
    spec: ModelSpec, decoding: dict, results: str, library_sampled: bool = False
) -> list[str]:
    """The weights manifest a requests step of ``spec`` reads its generation config from."""
    if needs_generation_config(spec, decoding, library_sampled):
        return [manifest_path(results, spec.name)]
    return []


def read_generation_config(manifest: str | Path) -> dict:
    """The snapshot's generation_config.json ({} when the repository has none)."""
    path = local_weights(manifest).snapshot / GENERATION_CONFIG
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def generate_decoding(generation_config: dict) -> dict:
    """What ``generate`` does with a model's generation config: greedy (temperature 0) unless
    it sets ``do_sample``, else its temperature, top_p and top_k."""
    beams = generation_config.get("num_beams") or 1
    if beams != 1:
        raise DecodingError(
            f"generation_config.json sets num_beams {beams}: beam search cannot be sent to a "
            "chat server"
        )
    if not generation_config.get("do_sample"):
        return {"temperature": 0.0, "sampling": GREEDY}
    values = {
        key: default if generation_config.get(key) is None else generation_config[key]
        for key, default in GENERATE_DEFAULTS.items()
    }
    return {**values, "sampling": SAMPLE}


def call_decoding(
    decoding: dict,
    spec: ModelSpec | None = None,
    generation_config: dict | None = None,
    library_sampled: bool = False,
) -> dict:
    """The decoding values a request of ``spec`` sends (see the module's docstring).

    ``library_sampled``: the reviewer library the authors' script calls sets the sampling
    itself (its ``SamplingParams``, added by the caller), so no generation config is read."""
    mode = check_mode(decoding)
    values = {key: value for key, value in decoding.items() if key != "mode"}
    if mode == "greedy":
        return values
    values.pop("temperature", None)
    values.pop("seed", None)
    if spec is not None and spec.engine == "api" and spec.api not in CAP_REQUIRED:
        values.pop("max_tokens", None)
    if spec is not None and needs_weights(spec) and not library_sampled:
        if generation_config is None:
            raise DecodingError(
                f"model '{spec.name}': decoding.mode authors needs its generation config "
                "(the weights manifest of rule weights)"
            )
        values.update(generate_decoding(generation_config))
    return values


def generation_config_of(weights_manifests: list[str]) -> dict | None:
    """The generation config of the one downloaded snapshot named (None: no manifest)."""
    if not weights_manifests:
        return None
    (manifest,) = weights_manifests
    return read_generation_config(manifest)
