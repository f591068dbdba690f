"""Model weights as data: one download per open model into a shared cache, read offline by jobs.

Rule ``weights`` (a local rule: it runs on the host that reaches the Hugging Face hub) downloads
a vLLM model's files, or a hub scorer's (an encoder or fluency LM of the registry given as
``{reference, revision}``), at the registry's pinned ``revision`` with ``huggingface_hub`` into
the cache named by the site file (``weights_cache`` in profiles/slurm/site.yaml;
``{results}/weights/hub`` when unset), in the hub's own layout
(``models--org--name/snapshots/<commit>/``), and writes a manifest (model, repository, revision,
files, bytes). An inference job takes the manifest as input and serves the snapshot folder with
the hub switched off (``HF_HUB_OFFLINE``), so compute nodes never reach the hub and every job of
a model reads the same files; a scoring job loads its hub scorers from their snapshots the same
way.

A model without a registry revision is refused unless the config's ``weights.allow_unpinned``
allows it: ``lock`` resolves it to main's commit at its first download and records that commit,
with the files and their digests, in the lock file (``weights.lock``, default
``{results}/weights/lock.yaml``); every later download of the model reads the lock and fetches
that commit, however main has moved (``true``: main at each download, recorded in the manifest
alone). A registry revision always wins over the lock.

``huggingface_hub`` is imported by the download alone: parsing the workflow and serving need none.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from noveval.core.files import free_bytes, write_bytes
from noveval.core.registry import ModelSpec, Registry, ScorerSpec
from noveval.core.site import Site
from noveval.core.yaml_files import load_yaml

log = logging.getLogger(__name__)

COMMIT = re.compile(r"[0-9a-f]{40}")
SAFETENSORS_INDEX = "model.safetensors.index.json"
# Weight formats vLLM reads only when a repository has no safetensors (then they are kept).
OTHER_WEIGHT_FORMATS = (
    ".bin",
    ".pt",
    ".pth",
    ".ckpt",
    ".gguf",
    ".onnx",
    ".h5",
    ".msgpack",
    ".ot",
    ".tflite",
)
# sentence-transformers keeps its modules' settings in numbered folders (1_Pooling, 2_Normalize)
MODULE_FOLDER = re.compile(r"\d+_[A-Za-z]+/[^/]+")
# The hub stays off in a serving job: files are read from the snapshot, nothing is fetched.
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


class WeightsError(RuntimeError):
    """Weights that cannot be downloaded or are not where the manifest says."""


def needs_weights(spec: ModelSpec) -> bool:
    """Whether jobs of ``spec`` serve downloaded weights (vLLM models)."""
    return spec.engine == "vllm"


def downloadable(registry: Registry, name: str) -> ModelSpec | ScorerSpec:
    """The registry entry whose files rule weights downloads: a vLLM model or a hub scorer."""
    if name in registry.scorers:
        return registry.scorers[name]
    spec = registry.model(name)
    if not needs_weights(spec):
        raise WeightsError(f"model '{name}': {spec.engine} models have no weights to download")
    return spec


def scorer_weights_inputs(registry: Registry, names, results: str) -> list[str]:
    """The manifests a scoring job with the scorers ``names`` needs (its hub scorers')."""
    hub = dict.fromkeys(name for name in names if name in registry.scorers)
    return [manifest_path(results, name) for name in hub]


def manifest_path(results: str, model: str) -> str:
    """The manifest that rule ``weights`` writes for ``model``."""
    return f"{results}/weights/{model}.json"


def weights_inputs(spec: ModelSpec, results: str) -> list[str]:
    """The inputs an inference job of ``spec`` needs from rule ``weights`` ([] for none)."""
    return [manifest_path(results, spec.name)] if needs_weights(spec) else []


def cache_dir(results: str, site_file: str | Path | None = None) -> Path:
    """The weights cache: the site file's ``weights_cache``, else ``{results}/weights/hub``.

    The site file is ``site_file``, else ``$NOVEVAL_SLURM_SITE``, else profiles/slurm/site.yaml
    (the file the SLURM profile reads), relative to the working directory.
    """
    cache = Site.load(site_file).weights_cache or f"{results}/weights/hub"
    return Path(cache).expanduser().resolve()


def select_files(sizes: dict[str, int], indexed: set[str] | None = None) -> list[str]:
    """The files of a repository that vLLM or sentence-transformers reads: top-level files and
    sentence-transformers' module folders (no ``original/``, ``metal/`` or ``onnx/`` checkpoints),
    the safetensors shards named by the index when there is one, and no other weight format when
    there are safetensors."""
    top = [path for path in sizes if "/" not in path or MODULE_FOLDER.fullmatch(path)]
    if not any(path.endswith(".safetensors") for path in top):
        return sorted(top)
    return sorted(
        path
        for path in top
        if not path.endswith(OTHER_WEIGHT_FORMATS)
        and (indexed is None or not path.endswith(".safetensors") or path in indexed)
    )


def snapshot_folder(cache: Path, repo_id: str, commit: str) -> Path:
    """Where the hub's cache layout keeps ``repo_id`` at ``commit``."""
    return cache / f"models--{repo_id.replace('/', '--')}" / "snapshots" / commit


def access_steps(repo_id: str) -> str:
    """What a user does to reach a gated model."""
    return (
        f"1) sign in at https://huggingface.co/{repo_id} and accept the model's licence (some "
        "authors approve requests by hand); 2) create a read token at "
        "https://huggingface.co/settings/tokens; 3) export HF_TOKEN=<token> (or run "
        "`hf auth login`) where the weights rule runs, then rerun. See docs/cluster.md, "
        "'Model weights'."
    )


class _Hub:
    """Calls to the hub for one model, with its errors turned into ``WeightsError``."""

    def __init__(self, model: str, repo_id: str):
        from huggingface_hub import HfApi

        self.model, self.repo_id, self.api = model, repo_id, HfApi()

    def __call__(self, call, *args, **kwargs):
        from huggingface_hub.errors import HfHubHTTPError, RevisionNotFoundError

        try:
            return call(*args, **kwargs)
        except RevisionNotFoundError as error:
            raise WeightsError(
                f"model '{self.model}': {self.repo_id} has no revision "
                f"{kwargs.get('revision')!r} on the hub (deleted or never there); pin another "
                "commit in config/models.yaml"
            ) from error
        except HfHubHTTPError as error:  # gated and missing repositories included
            status = error.response.status_code if error.response is not None else None
            if status not in (401, 403):
                raise
            raise WeightsError(
                f"model '{self.model}': the Hugging Face hub refused {self.repo_id} ({status}): "
                f"the model is gated or private and this host has no token with access. "
                f"{access_steps(self.repo_id)}"
            ) from error

    def commit(self, revision: str | None, allow_unpinned: bool | str) -> str:
        """The commit to download: the pinned one, or main's when unpinned models are allowed."""
        if revision:
            return revision
        if not allow_unpinned:
            raise WeightsError(
                f"model '{self.model}': no revision pinned for {self.repo_id} in "
                "config/models.yaml; pin a commit (revision: <40 hex digits>), or set "
                "weights.allow_unpinned: true in the config to download main and record its "
                "commit in the manifest (lock: and in the lock file, for every later download)"
            )
        commit = self(self.api.model_info, self.repo_id, revision="main").sha
        log.warning("%s: no pinned revision; main resolves to %s", self.model, commit)
        return commit

    def files(self, commit: str) -> dict:
        """Every file of the repository at ``commit`` (``huggingface_hub``'s ``RepoFile``)."""
        from huggingface_hub.hf_api import RepoFile

        def listing(repo_id: str, revision: str) -> list:  # the pages are fetched as it is read
            return list(self.api.list_repo_tree(repo_id, revision=revision, recursive=True))

        tree = self(listing, self.repo_id, revision=commit)
        return {entry.path: entry for entry in tree if isinstance(entry, RepoFile)}

    def indexed(self, commit: str, sizes: dict[str, int], cache: Path) -> set[str] | None:
        """The shards the safetensors index names (None without an index)."""
        if SAFETENSORS_INDEX not in sizes:
            return None
        from huggingface_hub import hf_hub_download

        index = self(
            hf_hub_download, self.repo_id, SAFETENSORS_INDEX, revision=commit, cache_dir=cache
        )
        return set(json.loads(Path(index).read_text())["weight_map"].values())


def download(
    model: str,
    repo_id: str,
    revision: str | None,
    cache: str | Path,
    manifest_path: str | Path,
    allow_unpinned: bool | str = False,
    lock: str | Path | None = None,
) -> dict:
    """Rule weights: download ``repo_id`` at ``revision`` into ``cache``, write the manifest.

    Without a ``revision``, the commit the ``lock`` file holds for ``model``; with none there
    either and ``allow_unpinned: lock``, main's commit, then recorded in the lock. Files already
    in the cache are not fetched again (the hub's cache layout is shared by every model, user and
    results folder that names the same cache).
    """
    from huggingface_hub import snapshot_download

    cache = Path(cache)
    hub = _Hub(model, repo_id)
    locked = None if revision or lock is None else read_lock(lock).get(model)
    if locked and locked["repository"] != repo_id:
        raise WeightsError(
            f"model '{model}': the lock file {lock} holds {locked['repository']}, the registry "
            f"names {repo_id}; delete its entry to lock the new repository"
        )
    commit = hub.commit(revision or (locked or {}).get("commit"), allow_unpinned)
    listed = hub.files(commit)
    sizes = {path: entry.size for path, entry in listed.items()}
    snapshot = snapshot_folder(cache, repo_id, commit)
    cached = {path for path in sizes if (snapshot / path).is_file()}
    files = select_files(sizes, hub.indexed(commit, sizes, cache))
    added = sum(sizes[path] for path in files if path not in cached)
    log.info(
        "%s: %s@%s, %d files, %.2f GB (%.2f GB not in the cache's snapshot yet) into %s",
        model,
        repo_id,
        commit,
        len(files),
        sum(sizes[path] for path in files) / 1e9,
        added / 1e9,
        cache,
    )
    require_room(model, cache, added)
    folder = hub(snapshot_download, repo_id, revision=commit, cache_dir=cache, allow_patterns=files)
    locking = not revision and not locked and allow_unpinned == "lock" and lock is not None
    record = {
        "model": model,
        "repo_id": repo_id,
        "revision": commit,
        "pinned": bool(revision),
        "cache_dir": str(cache),
        "snapshot": folder,
        "files": [{"path": path, "bytes": sizes[path]} for path in files],
        "bytes": sum(sizes[path] for path in files),
        "added_bytes": added,  # 0: every file was in the cache already
        "locked": bool(locked) or locking,  # the commit is the lock file's
    }
    if locking:
        digests = {path: digest(listed[path]) for path in files}
        write_lock_entry(lock, model, repo_id, commit, digests)
        log.info("%s: locked at %s in %s", model, commit, lock)
    write_bytes((json.dumps(record, indent=2) + "\n").encode("utf-8"), manifest_path)
    return record


def require_room(model: str, cache: Path, needed_bytes: int) -> None:
    """Raise :class:`WeightsError` before a download whose files would not fit on the cache's
    file system (the hub's own check comes only after the download started)."""
    free = free_bytes(cache)
    if needed_bytes > free:
        raise WeightsError(
            f"model '{model}': {needed_bytes / 1e9:,.1f} GB to download into {cache}, "
            f"{free / 1e9:,.1f} GB free there: free space, or point the site file's "
            "weights_cache at a larger file system (docs/recovery.md)"
        )


def digest(entry) -> str:
    """A hub file's digest: its LFS object's SHA-256, else its git blob id."""
    return f"sha256:{entry.lfs.sha256}" if entry.lfs else f"git-sha1:{entry.blob_id}"


def lock_path(config: dict) -> str:
    """The lock file of the config: ``weights.lock``, else ``{results}/weights/lock.yaml``."""
    return (config.get("weights") or {}).get("lock") or f"{config['results']}/weights/lock.yaml"


def read_lock(path: str | Path) -> dict[str, dict]:
    """The lock file's entries by model ({} where it does not exist yet)."""
    path = Path(path)
    return (load_yaml(path.read_text()) or {}) if path.is_file() else {}


def write_lock_entry(
    path: str | Path, model: str, repo_id: str, commit: str, digests: dict[str, str]
) -> None:
    """Add ``model``'s entry to the lock file (weights jobs run side by side: under a file lock)."""
    from filelock import FileLock

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{path}.lock"):
        entries = read_lock(path)
        entries[model] = {"repository": repo_id, "commit": commit, "files": digests}
        write_bytes(yaml.safe_dump(entries, sort_keys=True).encode("utf-8"), path)


@dataclass(frozen=True)
class LocalWeights:
    """A downloaded snapshot, as a serving job reads it."""

    repo_id: str
    revision: str
    snapshot: Path
    cache_dir: Path

    def environment(self) -> dict[str, str]:
        """Variables that keep the server off the hub and on this cache."""
        return {**OFFLINE, "HF_HUB_CACHE": str(self.cache_dir)}


def local_weights(manifest: str | Path) -> LocalWeights:
    """The snapshot a manifest names; an error when any of its files is missing."""
    record = json.loads(Path(manifest).read_text())
    snapshot = Path(record["snapshot"])
    missing = [f["path"] for f in record["files"] if not (snapshot / f["path"]).is_file()]
    if missing:
        raise WeightsError(
            f"model '{record['model']}': {len(missing)} files of {record['repo_id']}@"
            f"{record['revision']} are missing from {snapshot} ({', '.join(missing[:3])}); "
            f"delete {manifest} and rerun rule weights"
        )
    return LocalWeights(
        repo_id=record["repo_id"],
        revision=record["revision"],
        snapshot=snapshot,
        cache_dir=Path(record["cache_dir"]),
    )


def ran_at(manifests) -> dict[str, str]:
    """``repository@commit`` of each manifest's model: the weights its jobs served."""
    records = [json.loads(Path(manifest).read_text()) for manifest in manifests]
    return {record["model"]: f"{record['repo_id']}@{record['revision']}" for record in records}


def use_offline(manifests) -> dict[str, str]:
    """Switch this process off the hub, onto the cache of the manifests' snapshots (a job that
    loads metric models: none of them reaches the hub, with or without hub models), and give
    each repository's snapshot folder by its hub id.

    Call it before huggingface_hub or transformers is imported: they read the variables once.
    """
    os.environ.update(OFFLINE)
    located = {}
    for manifest in manifests:
        weights = local_weights(manifest)
        os.environ.update(weights.environment())
        located[weights.repo_id] = str(weights.snapshot)
    log.info("hub off (HF_HUB_OFFLINE=1); snapshots from the weights cache: %s", located or "none")
    return located
