"""The config schema (workflow/schemas/config.schema.yaml) with its lists of names filled in from
the package's constants, so that a name (a judge change, a system, a strategy) is declared once,
in Python.

Where the schema lists names it writes ``enum: {names: <list>}`` (``also: [...]`` adds values
that are no such name, e.g. a former name that fails with its own message); :func:`schema`
replaces each with the list's names, and :func:`schema_file` writes the result where Snakemake's
``validate`` reads it. :func:`validate_config` validates a config with it and, where the config
is invalid, says what is wrong in one line naming the key (Snakemake's own message prints the
whole schema, thousands of lines, before the error).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import tempfile
from pathlib import Path

from jsonschema import exceptions, validators
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

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


# Keys a former version took, with the key that replaced them (CHANGELOG.md says how).
FORMER_KEYS = {"max_retries": "retry_for (seconds, not a count)"}
MESSAGE_CHARS = 300  # of jsonschema's message, which may print a whole section of the config


class ConfigError(WorkflowError):
    """An invalid config, said in a line that names the key."""


def validate_config(config: dict, path: str | Path) -> None:
    """Validate ``config`` with the schema at ``path`` as Snakemake's ``validate`` does (its
    defaults filled in); raise :class:`ConfigError` naming the offending key where it fails."""
    try:
        validate(config, schema_file(path))
    except WorkflowError as error:
        message = config_error(config, schema(path))
        if message is None:
            raise
        raise ConfigError(message) from error


def config_error(config: dict, filled_schema: dict) -> str | None:
    """What is wrong with ``config`` in one line (the most relevant error, as jsonschema ranks
    them), naming the key and, for an unknown key, the nearest known ones; None if valid."""
    validator = validators.validator_for(filled_schema)(filled_schema)
    error = exceptions.best_match(validator.iter_errors(config))
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(key for key in error.instance if key not in known)
        scope = f"under '{where}'" if where else "at the top level"
        guesses = [
            f"'{key}' (now {FORMER_KEYS[key]}: see CHANGELOG.md)"
            if key in FORMER_KEYS
            else f"'{key}' (did you mean '{close[0]}'?)"
            if close
            else f"'{key}'"
            for key in unknown
            for close in [difflib.get_close_matches(key, known, n=1)]
        ]
        return (
            f"config: unknown key {', '.join(guesses)} {scope}; the keys there are "
            f"{', '.join(known)} (workflow/schemas/config.schema.yaml, config/README.md)"
        )
    message = (
        error.message
        if len(error.message) <= MESSAGE_CHARS
        else error.message[:MESSAGE_CHARS] + " ..."
    )
    return (
        f"config: {where or 'the config'}: {message} "
        "(workflow/schemas/config.schema.yaml, config/README.md)"
    )
