"""YAML reads through libyaml's C loader where PyYAML was built with it (pure Python otherwise).

The workflow's parse reads a dozen YAML files (the registry, the site file, the pinned upstream
files, the releases' manifests), and every SLURM job parses the workflow again: the C loader
reads them several times faster than ``yaml.safe_load``, with the same safe tags.
"""

from __future__ import annotations

from pathlib import Path

import yaml

SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, loader: type = SafeLoader) -> object:
    """The YAML document ``text``, read with the safe tags only."""
    return yaml.load(text, Loader=loader)


def read_yaml(path: str | Path, loader: type = SafeLoader) -> object:
    """The YAML file at ``path``, read with the safe tags only."""
    return load_yaml(Path(path).read_text(encoding="utf-8"), loader)
