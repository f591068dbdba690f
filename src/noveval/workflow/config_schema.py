"""The config schema (workflow/schemas/config.schema.yaml) with its lists of names filled in from
the package's constants, so that a name (a judge change, a system, a strategy) is declared once,
in Python.

Where the schema lists names it writes ``enum: {names: <list>}`` (``also: [...]`` adds values
that are no such name, e.g. a former name that fails with its own message); :func:`schema`
replaces each with the list's names, and :func:`schema_file` writes the result where Snakemake's
``validate`` reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from noveval.core.yaml_files import load_yaml
from noveval.judges.cards import judge as custom_judge
from noveval.judges.grid import cells
from noveval.judges.prompts import SYSTEMS
from noveval.novbench.decoding import MODES
from noveval.novbench.generation import STRATEGIES
from noveval.novbench.perturbation import PERTURBATIONS


def names() -> dict[str, tuple]:
    """Each list of names the schema refers to, by its name there."""
    return {
        "judge changes": cells.CONTROLLED,
        "judge changes with calls": tuple(c for c in cells.CONTROLLED if c not in cells.DERIVED),
        "judge changes on other idea formats": cells.ON_OTHER_FORMATS,
        "other idea formats": tuple(f for f in cells.IDEA_FORMATS if f != cells.STANDARD),
        "judge systems": SYSTEMS,
        "custom judge changes": custom_judge.CHANGES,
        "reasoning efforts": custom_judge.EFFORTS,
        "novbench decoding modes": MODES,
        "novbench strategies": STRATEGIES,
        "novbench perturbations": PERTURBATIONS,
    }


def schema(path: str | Path) -> dict:
    """The schema at ``path`` with every ``enum: {names: ...}`` filled in."""
    return _filled(load_yaml(Path(path).read_text(encoding="utf-8")), names())


def _filled(node, lists: dict[str, tuple]):
    if isinstance(node, list):
        return [_filled(item, lists) for item in node]
    if not isinstance(node, dict):
        return node
    filled = {key: _filled(value, lists) for key, value in node.items()}
    enum = node.get("enum")
    if isinstance(enum, dict):
        if enum.get("names") not in lists:
            raise KeyError(f"config schema: enum names '{enum.get('names')}' is no list of names")
        filled["enum"] = [*lists[enum["names"]], *enum.get("also", [])]
    return filled


def schema_file(path: str | Path) -> str:
    """The filled schema of ``path`` as a JSON file (in the temporary folder, named by its
    content), for Snakemake's ``validate``, which reads a schema from a file."""
    text = json.dumps(schema(path), indent=1)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    target = Path(tempfile.gettempdir()) / f"noveval-config-schema-{digest}.json"
    if not target.exists():
        with tempfile.NamedTemporaryFile("w", dir=target.parent, delete=False) as file:
            file.write(text)
        os.replace(file.name, target)
    return str(target)
