"""Release files of a dataset: a local file, or a download (URL, checksum) with a declared size.

A config names each dataset either by a path (``coling2020: path/to/file.json``) or by a mapping
``{url, sha256, papers, retrieval}``; ``null`` drops a dataset that an overlay inherits.
A release is downloaded to ``{downloads}/{name}.json``; a ``path`` with its declared ``papers``
and ``retrieval`` and no URL is a file the workflow builds (the built NovBench's
``release.json``). A dataset may also name the authors'
perturbed inputs of some of its papers, ``perturbations_release: {change, del}`` (each a path or
``{url, sha256}``, downloaded to ``{downloads}/{name}.release_{kind}.json``): the dataset is then
those papers, and its ``change`` and ``del`` cells take the released inputs. Until a file is there,
the declared ``papers`` and ``retrieval`` stand in for it: the grid knows whether RAG cells exist
and the compute plan knows the dataset's size, without a network and without the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from noveval.core.downloads import fetch
from noveval.novbench.layout import download_path
from noveval.novbench.records import read_records


@dataclass(frozen=True)
class ReleaseFile:
    """Where a dataset's release-format JSON is, or comes from."""

    name: str
    path: str
    url: str | None = None
    sha256: str | None = None
    papers: int | None = None
    retrieval: bool | None = None

    @property
    def available(self) -> bool:
        return Path(self.path).is_file()

    @cached_property
    def _records(self) -> list[dict]:
        return read_records(self.path)

    def paper_count(self) -> int:
        """Records in the file, or the declared count while it is not downloaded."""
        if self.available:
            return len(self._records)
        return self._declared("papers", self.papers)

    def has_retrieval(self) -> bool:
        """Whether every record carries retrieved papers (RAG), or the declared answer."""
        if self.available:
            records = self._records
            return bool(records) and all(record.get("retrieved_title") for record in records)
        return self._declared("retrieval", self.retrieval)

    def _declared(self, key: str, value):
        if value is None:
            raise ValueError(
                f"dataset '{self.name}': {self.path} is not downloaded yet and the config "
                f"declares no '{key}'"
            )
        return value


def release_files(datasets: dict, downloads: str | Path) -> dict[str, ReleaseFile]:
    """The config's datasets section as release files; a missing file needs a URL."""
    return {
        name: _release_file(name, entry, downloads)
        for name, entry in datasets.items()
        if entry is not None  # an overlay dropped it
    }


def perturbation_releases(datasets: dict, downloads: str | Path) -> dict[str, dict]:
    """Each dataset's ``perturbations_release``: ``{dataset: {kind: ReleaseFile}}`` (the kinds
    ``change`` and ``del``)."""
    releases = {}
    for name, entry in datasets.items():
        if not isinstance(entry, dict) or not entry.get("perturbations_release"):
            continue
        given = entry["perturbations_release"]
        releases[name] = {
            kind: _release_file(f"{name}.release_{kind}", given[kind], downloads)
            for kind in ("change", "del")
            if given.get(kind)
        }
    return releases


def _release_file(name: str, entry: str | dict, downloads: str | Path) -> ReleaseFile:
    if isinstance(entry, str):
        entry = {"path": entry}
    path = entry.get("path") or download_path(downloads, name)  # a string entry is a path
    release = ReleaseFile(
        name=name,
        path=str(path),
        url=entry.get("url"),
        sha256=entry.get("sha256"),
        papers=entry.get("papers"),
        retrieval=entry.get("retrieval"),
    )
    built = release.papers is not None and release.retrieval is not None
    if not release.available and not release.url and not built:
        raise FileNotFoundError(
            f"novbench dataset '{name}': no file at {path} (a file the workflow builds declares "
            "its papers and retrieval; a download its url)"
        )
    return release


def download(release: ReleaseFile, timeout_s: float = 300) -> None:
    """Fetch a release file to its path, checking its SHA-256 when the config gives one."""
    if not release.url:
        raise ValueError(f"dataset '{release.name}': no URL to download from")
    fetch(f"dataset '{release.name}'", release.url, release.path, release.sha256, timeout_s)
