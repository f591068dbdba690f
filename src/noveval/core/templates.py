"""Prompt templates: Jinja2 files under ``noveval/prompts``, rendered strictly."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

PROMPT_DIR = Path(__file__).parents[1] / "prompts"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPT_DIR),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(name: str, **context) -> str:
    """Render the template ``name`` (e.g. ``novbench/zero.j2``) with ``context``."""
    return _environment().get_template(name).render(**context).strip()
