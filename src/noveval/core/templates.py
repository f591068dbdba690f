"""Prompt templates: Jinja2 files under ``noveval/prompts``, and the templates of a user's
custom model (a judge's or an evaluator's, text or a ``.j2`` file), rendered strictly."""

from __future__ import annotations

import errno
import os
from functools import cache
from pathlib import Path

import jinja2
from jinja2 import meta

PROMPT_DIR = Path(__file__).parents[1] / "prompts"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPT_DIR),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


@cache
def _text_environment() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False)


def render(name: str, **context) -> str:
    """Render the template ``name`` (e.g. ``novbench/zero.j2``) with ``context``."""
    return _environment().get_template(name).render(**context).strip()


def template_text(value, root: str | Path) -> str:
    """A custom template's text: the value itself, or the file it names (a path ending in .j2,
    under ``root``; a ``FileNotFoundError`` when there is none)."""
    value = str(value)
    if not value.endswith(".j2") or "\n" in value:
        return value
    path = Path(root) / value
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    return path.read_text()


def template_fields(text: str) -> set[str]:
    """The variables a Jinja template reads (jinja2.meta), or a ``TemplateSyntaxError``."""
    return set(meta.find_undeclared_variables(_text_environment().parse(text)))


def check_fields(
    where: str, text: str, fields: frozenset[str], holders: str, error: type[Exception]
) -> None:
    """``error`` (its message starting with ``where``) when a custom template does not parse or
    reads a field other than ``fields``, the fields ``holders`` (e.g. "the papers") have."""
    try:
        used = template_fields(text)
    except jinja2.TemplateSyntaxError as malformed:
        raise error(
            f"{where} is malformed: {malformed.message} (line {malformed.lineno})"
        ) from None
    unknown = sorted(used - fields)
    if unknown:
        raise error(
            f"{where} uses {', '.join(unknown)}, which {holders} do not have "
            f"(they have {', '.join(sorted(fields))})"
        )


def chat_messages(template: str, system: str | None, **fields) -> list[dict]:
    """The chat messages of a custom template: the system prompt (if any, not rendered), then the
    template rendered with ``fields``."""
    user = _text_environment().from_string(template).render(**fields)
    prompt = [{"role": "system", "content": system.strip()}] if system else []
    return [*prompt, {"role": "user", "content": user.strip()}]
