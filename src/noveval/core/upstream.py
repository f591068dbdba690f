"""Upstream files: the authors' code, prompts and data at pinned commits, as checked data.

``upstream.yaml`` beside this module pins each study's repository, commit and the SHA-256 of every
file paper mode reads. The workflow fetches them (from GitHub's raw file URL, or from a local
copy laid out like the repository) into ``{results}/downloads/upstream/{study}/{path}``; readers
take a folder laid out like the repository and check every file's digest before using its text.
"""

from __future__ import annotations

import hashlib
import logging
import urllib.request
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from noveval.core.files import write_bytes
from noveval.core.yaml_files import load_yaml

log = logging.getLogger(__name__)

PINS = Path(__file__).with_name("upstream.yaml")
RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
STUDIES = ("novbench", "judges")
# Everything pinned: the studies' repositories, the library the NovBench reviewer scripts call,
# the files the model cards of the reviewer models without a script point to, and the code the
# judge study's dedicated judges are vendored from.
SOURCES = (*STUDIES, "ai_researcher", "openreviewer", "reviewer2", "novelty_checker")


class UpstreamError(ValueError):
    """A file that is not an upstream file, is missing, or is not the pinned bytes."""


@dataclass(frozen=True)
class UpstreamFile:
    """One upstream file: a file of an authors' repository at its pinned commit."""

    study: str
    repo: str
    commit: str
    path: str
    sha256: str

    @property
    def url(self) -> str:
        return RAW_URL.format(repo=self.repo, commit=self.commit, path=self.path)


@cache
def pinned(study: str) -> dict[str, UpstreamFile]:
    """Every upstream file of a study, by its path in the authors' repository."""
    pins = load_yaml(PINS.read_text())
    if study not in pins:
        raise UpstreamError(f"unknown study '{study}' (pinned: {', '.join(pins)})")
    entry = pins[study]
    return {
        path: UpstreamFile(study, entry["repo"], entry["commit"], path, digest)
        for path, digest in entry["files"].items()
    }


def pin(study: str, path: str) -> UpstreamFile:
    """The pin of one upstream file, or an error naming it."""
    files = pinned(study)
    if path not in files:
        raise UpstreamError(f"{study}: '{path}' is not an upstream file")
    return files[path]


def fetched_path(results: str | Path, study: str, path: str) -> Path:
    """Where the workflow keeps a fetched upstream file."""
    return Path(results) / "downloads" / "upstream" / study / path


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check(file: UpstreamFile, data: bytes, origin: str) -> None:
    digest = _digest(data)
    if digest != file.sha256:
        raise UpstreamError(
            f"{origin}: SHA-256 {digest}, but {file.repo}@{file.commit[:7]}:{file.path} "
            f"is pinned at {file.sha256}"
        )


def fetch(file: UpstreamFile, target: str | Path, mirror: str | Path | None = None) -> None:
    """Copy ``file`` from a local copy of the repository (``mirror``) or download it; check it."""
    target = Path(target)
    if mirror:
        origin = Path(mirror) / file.path
        if not origin.is_file():
            raise UpstreamError(f"{origin}: missing (upstream copy for {file.study})")
        data = origin.read_bytes()
    else:
        origin = file.url
        log.info("downloading %s", origin)
        with urllib.request.urlopen(file.url, timeout=120) as answer:
            data = answer.read()
    _check(file, data, str(origin))
    write_bytes(data, target)
    log.info("%s: %d bytes, SHA-256 checked", target, len(data))


@dataclass(frozen=True)
class UpstreamSource:
    """A folder laid out like a study's repository at its pinned commit."""

    study: str
    root: Path

    def text(self, path: str) -> str:
        """The text of an upstream file, after checking its digest; a file that is not UTF-8 is
        read as GBK, the encoding of the NovBench authors' other non-UTF-8 files."""
        file = pin(self.study, path)
        location = Path(self.root) / path
        if not location.is_file():
            raise UpstreamError(f"{location}: missing (fetch the {self.study} upstream files)")
        data = location.read_bytes()
        _check(file, data, str(location))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("gbk")
