"""What made a job's outputs, in a form that travels: its code version and a hash of its params
with every path put relative to the results folder (or the checkout) and the model registry
replaced by a digest of its contents, so that another ``results:`` folder, checkout path or
registry path with the same models is no change."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

RESULTS_MARK = "<results>"
CODE_PARAM = "code"  # the stage's code version (noveval.workflow.stage.stage_code)


@dataclass(frozen=True)
class Places:
    """The absolute folders and registry file that params' paths are read against."""

    results: Path
    checkout: Path
    registry: Path

    @classmethod
    def of(cls, checkout: Path, config: dict) -> Places:
        checkout = checkout.resolve()
        return cls(
            results=(checkout / config["results"]).resolve(),
            checkout=checkout,
            registry=(checkout / config["registry"]).resolve(),
        )

    @property
    def registry_digest(self) -> str:
        return f"registry:sha256:{file_sha256(self.registry)}"

    def inside(self, path: str | Path) -> str | None:
        """``path`` (absolute or relative to the checkout) relative to the results folder, or
        None outside it."""
        absolute = (self.checkout / path).resolve()
        if not absolute.is_relative_to(self.results):
            return None
        return absolute.relative_to(self.results).as_posix()


@dataclass(frozen=True)
class Fingerprint:
    """A job's code version (None for a rule that carries none) and its params' hash and
    normalised form."""

    code: str | None
    params_hash: str
    params: dict


def fingerprint(params: dict, places: Places) -> Fingerprint:
    """The fingerprint of a job's named ``params``."""
    rest = {name: value for name, value in params.items() if name != CODE_PARAM}
    normal = normalised(rest, places)
    text = json.dumps(normal, sort_keys=True, separators=(",", ":"))
    return Fingerprint(
        code=params.get(CODE_PARAM),
        params_hash=hashlib.sha256(text.encode()).hexdigest()[:16],
        params=normal,
    )


def normalised(value, places: Places):
    """``value`` with its paths made relative and the registry replaced by its digest, mappings
    keyed by strings and sorted, data classes as mappings: JSON that reads the same anywhere."""
    if isinstance(value, Mapping):
        return {str(key): normalised(value[key], places) for key in sorted(value, key=str)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return normalised(
            {field.name: getattr(value, field.name) for field in dataclasses.fields(value)},
            places,
        )
    if isinstance(value, list | tuple | set | frozenset):
        items = [normalised(item, places) for item in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if isinstance(value, Path):
        return _path_form(str(value), places)
    if isinstance(value, str):
        return _path_form(value, places)
    if value is None or isinstance(value, bool | int | float):
        return value
    raise TypeError(f"a param of type {type(value).__name__} has no portable form: {value!r}")


def _path_form(text: str, places: Places) -> str:
    """A string that names a file or folder under the results folder, the checkout or the
    registry, in its portable form; any other string as it is."""
    if not text or "\n" in text or len(text) > 1024:
        return text
    path = Path(text)
    absolute = path if path.is_absolute() else places.checkout / path
    try:
        absolute = absolute.resolve()
    except (OSError, RuntimeError):
        return text
    if absolute == places.registry:
        return places.registry_digest
    if absolute.is_relative_to(places.results):
        rest = absolute.relative_to(places.results).as_posix()
        return RESULTS_MARK if rest == "." else f"{RESULTS_MARK}/{rest}"
    if path.is_absolute() and absolute.is_relative_to(places.checkout):
        return absolute.relative_to(places.checkout).as_posix()
    return text


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file's contents, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
