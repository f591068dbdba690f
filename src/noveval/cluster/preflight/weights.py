"""The weights: room in the cache, every download pinned or locked, its commit on the hub."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

from noveval.cluster.preflight.access import hub_token
from noveval.cluster.preflight.findings import Finding, skipped, warning
from noveval.cluster.preflight.grid import Grid
from noveval.core.files import free_bytes, nearest_existing
from noveval.inference.weights import cache_dir, lock_path, manifest_path, read_lock

FETCH = "snakemake --cores 1 fetch_weights"  # with the run's config files (Grid.command)


def weights_cache_check(cache: Path, missing_gb: float) -> Finding:
    """The cache is writable (or can be created) and its file system has room for the weights
    that are not downloaded yet."""
    existing = nearest_existing(cache)
    elsewhere = "`weights_cache:` in the site file"
    try:
        existing.joinpath(f".preflight-{uuid.uuid4().hex}").touch()
    except OSError as error:
        fix = f"{elsewhere}, a folder this user can write"
        return Finding("weights cache", False, f"{cache}: not writable ({error.strerror})", fix=fix)
    for probe in existing.glob(".preflight-*"):
        probe.unlink(missing_ok=True)
    free_gb = free_bytes(existing) / 1e9
    detail = f"{cache}: {free_gb:,.0f} GB free, {missing_gb:,.1f} GB of weights to download"
    fix = f"{elsewhere} on a file system with room (or free {missing_gb - free_gb:,.1f} GB there)"
    return Finding("weights cache", free_gb >= missing_gb, detail, fix=fix)


def pinned_check(
    downloads: Iterable,
    allow_unpinned: bool | str,
    locked: Mapping[str, dict] | None = None,
    fetch: str = FETCH,
) -> Finding:
    """Every download of the grid (open models, hub scorers) is pinned to a hub commit (a
    registry revision) or locked (the lock file's commit, ``noveval.inference.weights``); an
    unresolved one (neither) fails, named, unless the config locks it at its first download
    (``weights.allow_unpinned: lock``): ``true`` downloads main at each download, which two labs
    may find at different commits. ``fetch``: the command that downloads the grid's weights."""
    locked = locked or {}
    downloads = list(downloads)
    unpinned = [item for item in downloads if not item.revision]
    unresolved = [f"{item.name} ({item.reference})" for item in unpinned if item.name not in locked]
    if not unpinned:
        return Finding("revisions", True, "every open model and hub scorer of the grid is pinned")
    pinned = len(downloads) - len(unpinned)
    at = [
        f"{item.name}@{locked[item.name]['commit'][:12]}"
        for item in unpinned
        if item.name in locked
    ]
    parts = [f"{pinned} pinned"] + ([f"locked: {', '.join(at)}"] if at else [])
    if not unresolved:
        return Finding("revisions", True, "; ".join(parts) + " (the lock file's commits)")
    detail = f"no revision in config/models.yaml: {', '.join(unresolved)}"
    if at:
        detail += f" ({'; '.join(parts)})"
    if allow_unpinned == "lock":
        return Finding(
            "revisions",
            True,
            f"{detail}; locked at their first download (lock file): `{fetch}` downloads them all",
        )
    return Finding(
        "revisions",
        False,
        detail,
        fix="`weights.allow_unpinned: lock` in the config (main's commit locked at the first "
        "download), or a `revision:` for each in config/models.yaml",
    )


def weights_checks(grid: Grid) -> list[Finding]:
    """The weights cache has room for what is not downloaded yet; every download is sized and
    pinned."""
    results = grid.config["results"]
    missing_gb = sum(
        item.download_gb or 0
        for item in grid.downloads
        if not Path(manifest_path(results, item.name)).exists()
    )
    found = [weights_cache_check(cache_dir(results, grid.site_path), missing_gb)]
    unsized = [item.name for item in grid.downloads if item.download_gb is None]
    if unsized:
        fix = "`download_gb:` of each in the registry (config/models.yaml)"
        found.append(
            Finding("weights sizes", False, f"no download_gb: {', '.join(unsized)}", fix=fix)
        )
    allow_unpinned = (grid.config.get("weights") or {}).get("allow_unpinned", False)
    locked = read_lock(lock_path(grid.config))
    found.append(
        pinned_check(grid.downloads, allow_unpinned, locked, grid.command("fetch_weights"))
    )
    return found


def hub_revision_check(item, token: str | None, endpoint: str | None = None) -> Finding:
    """A pinned download's commit is on the hub (``HfApi.model_info`` at that revision)."""
    import httpx2  # huggingface_hub's HTTP client
    from huggingface_hub import HfApi
    from huggingface_hub.errors import (
        GatedRepoError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    name = f"hub {item.name}"
    if not item.revision:
        return skipped(name, f"{item.reference} has no pinned revision (see revisions)")
    where = f"{item.reference}@{item.revision}"
    registry = f"of {item.name} in the registry (config/models.yaml)"
    try:
        HfApi(endpoint=endpoint, token=token).model_info(item.reference, revision=item.revision)
    except RevisionNotFoundError:
        fix = f"another commit of {item.reference} as `revision:` {registry}"
        return Finding(name, False, f"{where}: the hub has no such revision", fix=fix)
    except GatedRepoError:
        fix = "`export HF_TOKEN=<a token with access>` (see access)"
        return warning(name, f"{where}: gated, cannot be confirmed without access", fix)
    except RepositoryNotFoundError:
        fix = f"its `reference:` {registry}, or `export HF_TOKEN=...` where it is private"
        return Finding(name, False, f"{where}: no such repository on the hub (or private)", fix=fix)
    except (httpx2.HTTPError, OSError) as error:  # an HTTP error, no network, hub off
        fix = "this host reaching the hub (`HF_ENDPOINT` where a mirror serves it)"
        return Finding(
            name, False, f"{where}: the hub did not answer ({type(error).__name__})", fix=fix
        )
    return Finding(name, True, f"{where} is on the hub")


def hub_revision_checks(grid: Grid) -> list[Finding]:
    """One line per pinned download of the grid."""
    if not grid.downloads:
        return [skipped("hub revisions", "no open model or hub scorer in the grid")]
    token = hub_token(grid.env)
    return [hub_revision_check(item, token) for item in grid.downloads]
