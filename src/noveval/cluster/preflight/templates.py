"""The chat template of each downloaded vLLM model renders the role sequences of our requests."""

from __future__ import annotations

import json
from pathlib import Path

from noveval.cluster.preflight.findings import MAX_DETAIL, Finding, skipped
from noveval.cluster.preflight.grid import Grid
from noveval.core.assets import resolve
from noveval.inference.weights import WeightsError, local_weights, manifest_path

# The role sequences of our requests (NovBench and judge prompts with a system message, and
# NovBench prompts without one): a model's chat template must render both.
ROLE_SEQUENCES = {
    "system+user": [
        {"role": "system", "content": "You are an expert reviewer."},
        {"role": "user", "content": "Assess the novelty of this paper."},
    ],
    "user only": [{"role": "user", "content": "Assess the novelty of this paper."}],
}


def snapshot_template(snapshot: Path) -> tuple[str | None, dict]:
    """A snapshot's chat template (``chat_template.jinja``, else tokenizer_config.json's
    ``chat_template``, its ``default`` when there are several) and its special tokens."""
    config_file = snapshot / "tokenizer_config.json"
    config = json.loads(config_file.read_text()) if config_file.is_file() else {}
    tokens = {
        key: value.get("content") if isinstance(value, dict) else value
        for key, value in config.items()
        if key.endswith("_token") and isinstance(value, str | dict)
    }
    jinja = snapshot / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(), tokens
    template = config.get("chat_template")
    if isinstance(template, list):
        template = {entry["name"]: entry["template"] for entry in template}.get("default")
    return template, tokens


def template_check(model: str, template: str | None, source: str, options: dict) -> Finding:
    """The chat template renders every role sequence of our requests (transformers' renderer,
    as vLLM's server uses it); a template that raises on one fails, naming it."""
    from jinja2 import TemplateError
    from transformers.utils.chat_template_utils import render_jinja_template

    name = f"chat template {model}"
    fix = f"`chat_template:` of {model} in the registry (config/models.yaml) rendering both"
    if not template:
        return Finding(name, False, f"none in {source}", fix=fix)
    refused = []
    for sequence, messages in ROLE_SEQUENCES.items():
        try:
            render_jinja_template(
                conversations=[messages],
                chat_template=template,
                add_generation_prompt=True,
                **options,
            )
        except (TemplateError, TypeError, ValueError) as error:  # raise_exception, or broken
            refused.append(f"{sequence} ({type(error).__name__}: {error})")
    if refused:
        return Finding(name, False, f"{source} refuses {'; '.join(refused)}"[:MAX_DETAIL], fix=fix)
    return Finding(name, True, f"{source} renders {' and '.join(ROLE_SEQUENCES)}")


def chat_template_checks(grid: Grid) -> list[Finding]:
    """The chat template of each downloaded vLLM model (the registry's, else its snapshot's)."""
    if not grid.served:
        return [skipped("chat templates", "no vLLM model in the grid")]
    found, waiting = [], []
    for spec in grid.served:
        manifest = Path(manifest_path(grid.config["results"], spec.name))
        if not manifest.exists():
            waiting.append(spec.name)
            continue
        try:
            snapshot = local_weights(manifest).snapshot
        except WeightsError as error:  # files gone from the cache since the download
            fix = f"`rm {manifest}`, then `{grid.command('fetch_weights')}`"
            found.append(Finding(f"chat template {spec.name}", False, str(error), fix=fix))
            continue
        template, tokens = snapshot_template(snapshot)
        source = f"{spec.reference} snapshot"
        if spec.chat_template:
            template, source = Path(resolve(spec.chat_template)).read_text(), spec.chat_template
        found.append(
            template_check(spec.name, template, source, {**tokens, **spec.chat_template_kwargs})
        )
    if waiting:
        names = ", ".join(waiting)
        why = f"not downloaded yet: {names} (target fetch_weights; run preflight again after)"
        found.append(skipped("chat templates", why))
    return found
