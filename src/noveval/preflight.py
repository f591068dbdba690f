"""Pre-flight checks of a cluster run: ``snakemake preflight --profile profiles/slurm ...``.

Run on the login node before the grid, it checks what a run needs and cannot fix itself: the
site file, the site's partitions and GPU types as SLURM knows them, the weights cache (writable,
with room for the weights not downloaded yet), a pinned revision of every open model and hub
scorer and that commit on the hub, the chat template of each downloaded open model against the
role sequences of our requests, a Hugging Face token with access to each gated model, each API
key, that each hosted model is still served (the provider's model lookup; a retired one is named
with the published numbers it can no longer reproduce), each configured substitution of a model,
glibc where vLLM is installed and runs, conda and the disk its environments take (under conda
deployment), the NVIDIA driver of each GPU type of the grid, and that every planned inference job
fits a partition. Each check reports findings (:class:`Finding`), one line each (OK, WARN, FAIL, or
SKIP with why), and the rule fails after the last one when any failed. The checks are registered
in ``CHECKS``.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import anthropic
import openai
import yaml

from noveval.assets import resolve
from noveval.cluster import api_inference_on_host, gpu_model, gpus, inference_env
from noveval.literature.semantic_scholar import API_KEY_ENV as S2_API_KEY_ENV
from noveval.novbench.grid import scorer_names
from noveval.registry import ModelSpec, Registry, ScorerSpec
from noveval.site import DEFAULT_SITE_FILE, SITE_FILE_VARIABLE
from noveval.weights import (
    WeightsError,
    cache_dir,
    local_weights,
    lock_path,
    manifest_path,
    needs_weights,
    read_lock,
)

# vLLM 0.33.0 (envs/inference-vllm.yaml) runs torch 2.14.0 built on CUDA 13.0, which needs an
# NVIDIA driver of the R580 branch or newer: 580.65.06 is CUDA 13.0's minimum.
MIN_DRIVER = "580.65.06"
COMMAND_TIMEOUT_S = 120
LOOKUP_TIMEOUT_S = 30
MAX_DETAIL = 300  # characters of a failed command's message in its finding's line
GPU_WAIT_S = 60  # how long the driver check waits for a GPU node (srun --immediate)
# The providers' addresses when the registry names no base_url (the official SDKs' defaults).
DEFAULT_BASE_URLS = {"messages": "https://api.anthropic.com"}
OPENAI_BASE_URL = "https://api.openai.com/v1"
# Run on a compute node with the URLs as arguments: a TCP connect and, for https, a TLS handshake
# to each, one line per URL (the standard library only: any Python of the node runs it).
REACH_SCRIPT = """
import socket, ssl, sys, urllib.parse
for url in sys.argv[1:]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=10) as connection:
            if parts.scheme == "https":
                context = ssl.create_default_context()
                context.wrap_socket(connection, server_hostname=parts.hostname).close()
        print("reached", url)
    except OSError as error:
        print("unreachable", url, error)
"""


class PreflightError(RuntimeError):
    """At least one pre-flight finding is a failure."""


@dataclass(frozen=True)
class Finding:
    """What a check found, one line of the report: ``ok`` True (OK), False (FAIL) or None (SKIP:
    not needed or not possible here); ``warn``: it passed with something to look at (WARN)."""

    name: str
    ok: bool | None
    detail: str
    warn: bool = False

    def line(self) -> str:
        status = "WARN" if self.warn else {True: "OK", False: "FAIL", None: "SKIP"}[self.ok]
        return f"{status:<4}  {self.name}: {self.detail}"


def warning(name: str, detail: str) -> Finding:
    """A finding that does not fail the pre-flight but asks to be looked at."""
    return Finding(name, True, detail, warn=True)


def skipped(name: str, why: str) -> Finding:
    """A finding of a check that needs something this grid or host does not have."""
    return Finding(name, None, why)


def run_command(command: list[str], timeout_s: float = COMMAND_TIMEOUT_S) -> tuple[bool, str]:
    """Run ``command``: whether it succeeded, and its output (or why it failed)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except FileNotFoundError:
        return False, f"{command[0]} not found"
    except subprocess.TimeoutExpired:
        return False, f"{' '.join(command)} gave no answer in {timeout_s:.0f} s"
    if done.returncode != 0:
        said = " | ".join((done.stderr or done.stdout).split("\n")).strip(" |")
        return False, said[:MAX_DETAIL] or f"exit status {done.returncode}"
    return True, done.stdout


def site_file_check(path: str | Path) -> tuple[Finding, dict]:
    """The site file: readable YAML with a ``partitions`` table (and its settings)."""
    try:
        site = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        return Finding("site file", False, f"{path}: {error}"), {}
    if not isinstance(site, dict) or not isinstance(site.get("partitions"), dict):
        return Finding("site file", False, f"{path}: no `partitions` table"), {}
    return Finding("site file", True, f"{path} ({len(site['partitions'])} partitions)"), site


def gres_types(gres: str) -> set[str]:
    """GPU types of a SLURM GRES string (``gpu:a100:2(S:0),gpu:h100:4`` -> {a100, h100})."""
    return {match for match in re.findall(r"gpu:([^:,()\s]+):\d+", gres)}


def slurm_partitions(sinfo_output: str) -> dict[str, set[str]]:
    """Partitions and their GPU types from ``sinfo --noheader --format='%R %G'``."""
    partitions: dict[str, set[str]] = {}
    for line in sinfo_output.splitlines():
        if line.strip():
            name, _, gres = line.strip().partition(" ")
            partitions.setdefault(name, set()).update(gres_types(gres))
    return partitions


def partition_checks(site: dict, known: dict[str, set[str]], needed_gpu_types: set[str]) -> list:
    """The site's partitions exist in SLURM, offer the GPU types the site file claims, and
    between them offer every GPU type the grid's jobs ask for."""
    partitions = site.get("partitions") or {}
    missing = sorted(set(partitions) - set(known))
    names = Finding(
        "partitions",
        not missing,
        f"not known to SLURM: {', '.join(missing)} (it has: {', '.join(sorted(known))})"
        if missing
        else f"{', '.join(sorted(partitions))} known to SLURM",
    )
    problems = []
    for name, settings in sorted(partitions.items()):
        claimed = set((settings or {}).get("available_gpu_models") or ())
        if name in known and claimed - known[name]:
            problems.append(
                f"{name} offers {', '.join(sorted(known[name])) or 'no GPU'} in SLURM, not "
                f"{', '.join(sorted(claimed - known[name]))}"
            )
    offered = {
        gpu
        for settings in partitions.values()
        for gpu in (settings or {}).get("available_gpu_models") or ()
    }
    if needed_gpu_types - offered:
        problems.append(
            f"no partition of the site file offers {', '.join(sorted(needed_gpu_types - offered))}"
            " (asked for by the grid's models)"
        )
    needed = ", ".join(sorted(needed_gpu_types)) or "none"
    types = Finding(
        "GPU types",
        not problems,
        "; ".join(problems) if problems else f"grid needs {needed}; SLURM offers them",
    )
    return [names, types]


@dataclass(frozen=True)
class PartitionLimits:
    """What one SLURM partition's nodes offer (``sinfo``): time limit, GPUs by type, memory."""

    max_minutes: float
    gpus: dict[str, int]  # GRES type ("" untyped) -> GPUs per node
    mem_mb: int


def slurm_minutes(limit: str) -> float:
    """Minutes of a SLURM time limit as sinfo prints it ([days-]hours:minutes:seconds, or
    minutes:seconds; ``infinite``)."""
    if limit in ("infinite", "UNLIMITED", "n/a"):
        return math.inf
    days, _, clock = limit.rpartition("-")
    parts = [int(part) for part in clock.split(":")]
    if len(parts) == 1:  # minutes alone
        parts = [0, parts[0], 0]
    hours, minutes, seconds = [0] * (3 - len(parts)) + parts
    return int(days or 0) * 1440 + hours * 60 + minutes + seconds / 60


def partition_limits(sinfo_output: str) -> dict[str, PartitionLimits]:
    """Partitions from ``sinfo --noheader --format='%R %l %G %m'`` (one line per node group;
    a partition keeps the most of each)."""
    found: dict[str, PartitionLimits] = {}
    for line in sinfo_output.splitlines():
        if not line.strip():
            continue
        name, limit, gres, memory = line.split()
        gpus = {}
        for match in re.finditer(r"gpu(?::([^:,()\s]+))?:(\d+)", gres):
            gpus[match.group(1) or ""] = int(match.group(2))
        seen = found.get(name, PartitionLimits(0, {}, 0))
        found[name] = PartitionLimits(
            max(seen.max_minutes, slurm_minutes(limit)),
            {t: max(n, seen.gpus.get(t, 0)) for t, n in {**seen.gpus, **gpus}.items()},
            max(seen.mem_mb, int(re.sub(r"\D", "", memory) or 0)),
        )
    return found


def fits(job, partition: PartitionLimits) -> bool:
    """Whether a planned job (``noveval.cluster.PlannedJob``) fits a partition's nodes."""
    offered = (
        sum(partition.gpus.values())
        if not job.gpu_type
        else max(partition.gpus.get(job.gpu_type, 0), partition.gpus.get("", 0))
    )
    return (
        job.runtime <= partition.max_minutes
        and job.mem_mb <= partition.mem_mb
        and job.gpus <= offered
    )


def job_limits_check(jobs: list, partitions: dict[str, PartitionLimits], site: dict) -> Finding:
    """Every planned inference job fits one of the site file's partitions as SLURM reports them
    (time limit, GPUs of its type per node, memory); the jobs that fit none are named."""
    named = set(site.get("partitions") or ()) & set(partitions) or set(partitions)
    usable = [partitions[name] for name in sorted(named)]
    misfits = [job for job in jobs if not any(fits(job, p) for p in usable)]
    if not misfits:
        longest = max((job.runtime for job in jobs), default=0)
        return Finding(
            "job limits",
            True,
            f"all {len(jobs)} inference jobs fit a partition (longest {longest} min)",
        )
    names = "; ".join(
        f"{job.name} ({job.runtime} min, {job.gpus} x {job.gpu_type or 'GPU'}, {job.mem_mb} MB)"
        if job.gpus
        else f"{job.name} ({job.runtime} min, {job.mem_mb} MB)"
        for job in misfits
    )
    limits = ", ".join(f"{name} {partitions[name].max_minutes:g} min" for name in sorted(named))
    return Finding(
        "job limits",
        False,
        f"{len(misfits)} of {len(jobs)} inference jobs fit no partition ({limits}): {names}",
    )


def weights_cache_check(cache: Path, missing_gb: float) -> Finding:
    """The cache is writable (or can be created) and its file system has room for the weights
    that are not downloaded yet."""
    existing = next(path for path in (cache, *cache.parents) if path.exists())
    try:
        existing.joinpath(f".preflight-{uuid.uuid4().hex}").touch()
    except OSError as error:
        return Finding("weights cache", False, f"{cache}: not writable ({error.strerror})")
    for probe in existing.glob(".preflight-*"):
        probe.unlink(missing_ok=True)
    free_gb = shutil.disk_usage(existing).free / 1e9
    detail = f"{cache}: {free_gb:,.0f} GB free, {missing_gb:,.1f} GB of weights to download"
    return Finding("weights cache", free_gb >= missing_gb, detail)


def pinned_check(
    downloads: Iterable, allow_unpinned: bool | str, locked: Mapping[str, dict] | None = None
) -> Finding:
    """Every download of the grid (open models, hub scorers) is pinned to a hub commit (a
    registry revision) or locked (the lock file's commit, ``noveval.weights``); an unresolved one
    (neither) fails, named, unless the config locks it at its first download
    (``weights.allow_unpinned: lock``): ``true`` downloads main at each download, which two labs
    may find at different commits."""
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
        return Finding("revisions", True, f"{detail}; locked at their first download (lock file)")
    return Finding(
        "revisions",
        False,
        f"{detail}; pin a hub commit for each, or set weights.allow_unpinned: lock to lock main's "
        "commit at the first download",
    )


def hub_token(env: Mapping[str, str]) -> str | None:
    """The Hugging Face token: HF_TOKEN, else the file `hf auth login` writes."""
    if env.get("HF_TOKEN"):
        return env["HF_TOKEN"]
    home = Path(env.get("HF_HOME") or Path.home() / ".cache" / "huggingface")
    token_file = Path(env.get("HF_TOKEN_PATH") or home / "token")
    if not token_file.is_file():
        return None
    return token_file.read_text().strip() or None


def gated_check(model: str, repo_id: str, token: str | None) -> Finding:
    """A gated model: a token, and the hub's word that it grants access (licence accepted)."""
    name = f"access {model}"
    if not token:
        return Finding(
            name, False, f"{repo_id} is gated: no Hugging Face token (HF_TOKEN or `hf auth login`)"
        )
    from huggingface_hub import auth_check
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError

    try:
        auth_check(repo_id, token=token)
    except GatedRepoError:
        return Finding(name, False, f"{repo_id}: the token has no access; accept the licence")
    except (HfHubHTTPError, OSError) as error:
        return Finding(name, False, f"{repo_id}: the hub did not confirm access ({error})")
    return Finding(name, True, f"{repo_id}: the token has access")


def api_key_checks(registry: Registry, models: Iterable[str], env: Mapping[str, str]) -> list:
    """One line per key variable of the grid's hosted models."""
    users: dict[str, list[str]] = {}
    for name in sorted(models):
        spec = registry.model(name)
        if spec.engine == "api":
            users.setdefault(spec.api_key_env, []).append(name)
    return [
        Finding(
            f"key {variable}",
            bool(env.get(variable)),
            f"{'set' if env.get(variable) else 'not set'}, for {', '.join(names)}",
        )
        for variable, names in sorted(users.items())
    ]


def semantic_scholar_key_check(needed: bool, env: Mapping[str, str]) -> Finding:
    """The Semantic Scholar key (``S2_API_KEY``) when the grid searches the literature."""
    name = f"key {S2_API_KEY_ENV}"
    if not needed:
        return skipped(name, "no literature search in the grid")
    found = bool(env.get(S2_API_KEY_ENV))
    return Finding(
        name,
        found,
        f"{'set' if found else 'not set'}, for Semantic Scholar (judges.retrieval.search, the "
        "AI-Scientist check, the Idea Novelty Checker); without it a run stops before its first "
        "job unless literature.semantic_scholar.anonymous allows the shared anonymous limit",
    )


def searches_literature(config: dict) -> bool:
    """Whether the judges' grid searches Semantic Scholar: the retrieval change through it, or
    the AI-Scientist check, or the Idea Novelty Checker."""
    judges = config.get("judges") or {}
    search = (judges.get("retrieval") or {}).get("search")
    retrieval = "retrieval" in (judges.get("changes") or []) and search == "semantic_scholar"
    return retrieval or bool({"ai_scientist", "novelty_checker"} & set(judges.get("systems") or {}))


def published_cells(model: str) -> list[tuple[str, str]]:
    """The published numbers of ``model`` (reproduction/published/*.csv): (table, cell) each."""
    from noveval.reproduction.report import published

    rows = []
    for study in ("novbench", "judges"):
        table = published(study)
        rows += [(row.table, row.cell) for row in table[table["model"] == model].itertuples()]
    return rows


def _cells_line(cells: list[tuple[str, str]]) -> str:
    if not cells:
        return "no published number"
    tables = ", ".join(f"{table} {count}" for table, count in Counter(t for t, _ in cells).items())
    return f"{len(cells)} published numbers ({tables}): {'; '.join(cell for _, cell in cells)}"


def lookup_model(spec: ModelSpec, key: str):
    """The provider's model lookup of ``spec.reference`` (Anthropic's models API for the
    Messages models, OpenAI's, or an OpenAI-compatible one, for the others)."""
    if spec.api == "messages":
        client = anthropic.Anthropic(
            base_url=spec.base_url, api_key=key, timeout=LOOKUP_TIMEOUT_S, max_retries=1
        )
    else:
        client = openai.OpenAI(
            base_url=spec.base_url, api_key=key, timeout=LOOKUP_TIMEOUT_S, max_retries=1
        )
    with client:
        return client.models.retrieve(spec.reference)


def served_check(spec: ModelSpec, env: Mapping[str, str]) -> Finding:
    """A hosted model is still served: the provider's lookup knows its id and (Anthropic) its
    lifecycle is not ``retired``. A model that is not served fails, naming the published numbers
    it cannot reproduce and the config key of an explicit substitution; a deprecated one passes
    with its retirement date."""
    name = f"model {spec.name}"
    key = env.get(spec.api_key_env or "")
    if not key:
        return Finding(
            name,
            False,
            f"{spec.reference}: the lookup cannot be made: {spec.api_key_env} is not set "
            f"(registry api_key_env of {spec.name})",
        )
    try:
        found = lookup_model(spec, key)
    except (openai.NotFoundError, anthropic.NotFoundError) as error:
        why = f"is not served ({error})"
        return Finding(name, False, _not_reproducible(spec, why))
    except (openai.OpenAIError, anthropic.AnthropicError) as error:
        return Finding(
            name,
            False,
            f"{spec.reference}: the lookup at {spec.base_url} failed "
            f"({type(error).__name__}: {error}); check {spec.api_key_env} and the network",
        )
    lifecycle = getattr(found, "lifecycle", None)
    retires = getattr(found, "retires_at", None)
    date = f" on {retires:%Y-%m-%d}" if retires else ""
    if lifecycle == "retired":
        return Finding(name, False, _not_reproducible(spec, f"was retired{date}"))
    if lifecycle == "deprecated":
        return Finding(name, True, f"{spec.reference} is served, deprecated: retires{date}")
    return Finding(name, True, f"{spec.reference} is served")


def _not_reproducible(spec: ModelSpec, why: str) -> str:
    return (
        f"{spec.reference} {why}; cannot be reproduced: {_cells_line(published_cells(spec.name))}."
        f" To run another model in its place, name it in judges.substitutions "
        f"({{{spec.name}: <successor>}}): reported as a substitution, not like-for-like"
    )


def substitution_checks(substitutions: Mapping[str, str]) -> list[Finding]:
    """One line per configured substitution: the published numbers its successor stands in
    for, which the reproduction reports as not like-for-like."""
    return [
        Finding(
            f"substitution {published_model}",
            True,
            f"{successor} runs in place of {published_model}; compared not like-for-like with "
            f"{_cells_line(published_cells(published_model))}",
        )
        for published_model, successor in sorted(substitutions.items())
    ]


def driver_check(nvidia_smi_output: str, where: str) -> Finding:
    """The lowest driver version that ``nvidia-smi --query-gpu=driver_version`` reports."""
    name = f"NVIDIA driver ({where})"
    versions = [line.strip() for line in nvidia_smi_output.splitlines() if line.strip()]
    if not versions:
        return Finding(name, False, "nvidia-smi reported no GPU")
    lowest = min(versions, key=_version)
    ok = _version(lowest) >= _version(MIN_DRIVER)
    return Finding(name, ok, f"{lowest} (vLLM's CUDA 13.0 needs >= {MIN_DRIVER})")


def provider_urls(specs: Iterable[ModelSpec]) -> list[str]:
    """The base URLs of the hosted models among ``specs``, each once."""
    urls = (
        spec.base_url or DEFAULT_BASE_URLS.get(spec.api, OPENAI_BASE_URL)
        for spec in specs
        if spec.engine == "api"
    )
    return sorted(set(urls))


def job_step(site: dict, partition: str) -> list[str]:
    """``srun`` of a short one-task step on ``partition`` with the site's account and QoS."""
    step = ["srun", f"--partition={partition}", "--ntasks=1", "--time=2"]
    step += [f"--account={site['account']}"] if site.get("account") else []
    step += [f"--qos={site['qos']}"] if site.get("qos") else []
    return [*step, f"--immediate={GPU_WAIT_S}"]


def reach_check(ok: bool, output: str, where: str, urls: list[str]) -> Finding:
    """The report of REACH_SCRIPT run on ``where``: OK when every provider was reached."""
    name = "provider network"
    if not ok:
        return Finding(name, False, f"{where}: {output}")
    said = [line.split(" ", 1) for line in output.splitlines() if " " in line]
    unreachable = [rest for word, rest in said if word == "unreachable"]
    if unreachable or sum(word == "reached" for word, _ in said) != len(urls):
        return Finding(
            name,
            False,
            f"{where} cannot reach {'; '.join(unreachable) or 'every provider'}: hosted-API "
            "inference runs there (site file api_inference: slurm); set api_inference: host to "
            "run it on this host",
        )
    return Finding(name, True, f"{where} reaches {', '.join(urls)}")


def provider_network_check(site_path: str, site: dict, specs: list[ModelSpec]) -> Finding:
    """Where hosted-API inference runs: on this host (the site file's default), or, with
    ``api_inference: slurm``, on compute nodes, which must then reach each provider of the grid
    (checked from a job step on the site's CPU partition)."""
    urls = provider_urls(specs)
    if not urls:
        return skipped("provider network", "no hosted model in the grid")
    try:
        on_host = api_inference_on_host(site_path)
    except ValueError as error:
        return Finding("provider network", False, str(error))
    if on_host:
        return skipped("provider network", "hosted-API inference runs on this host")
    partitions = site.get("partitions") or {}
    cpu = [
        name for name, settings in sorted(partitions.items()) if not (settings or {}).get("max_gpu")
    ]
    if not cpu:
        return Finding("provider network", False, "no CPU partition (max_gpu: 0) in the site file")
    command = [*job_step(site, cpu[0]), sys.executable, "-c", REACH_SCRIPT, *urls]
    return reach_check(*run_command(command), f"a node of partition {cpu[0]}", urls)


def site_file_path(env: Mapping[str, str]) -> str:
    """The site file the SLURM profile reads."""
    return env.get(SITE_FILE_VARIABLE) or DEFAULT_SITE_FILE


@dataclass(frozen=True)
class Grid:
    """What the checks read: the config, the grid's models, the environment, the site file,
    SLURM's partitions (None: no SLURM here) and the conda prefix (None: no conda deployment)."""

    config: dict
    registry: Registry
    models: list[str]
    env: Mapping[str, str]
    site_path: str
    site: dict
    partitions: dict[str, set[str]] | None
    sinfo_error: str = ""
    conda_prefix: Path | None = None
    planned_jobs: tuple = ()  # every inference job's resources (noveval.cluster.PlannedJob)
    not_runnable: Mapping = field(default_factory=dict)  # judge -> (why, cells skipped)

    @property
    def specs(self) -> list[ModelSpec]:
        return [self.registry.model(name) for name in self.models]

    @property
    def served(self) -> list[ModelSpec]:
        """The open models the grid serves with vLLM."""
        return [spec for spec in self.specs if needs_weights(spec)]

    @property
    def downloads(self) -> list:
        """Everything rule weights downloads for the grid: vLLM models, hub scorers."""
        return self.served + hub_scorers(self.config, self.registry, self.models)


def slurm_checks(grid: Grid) -> list[Finding]:
    """The site's partitions and GPU types as SLURM knows them."""
    if grid.partitions is None:
        if grid.sinfo_error == "sinfo not found":
            return [skipped("partitions", "no SLURM on this host (sinfo not found)")]
        return [Finding("partitions", False, f"sinfo failed: {grid.sinfo_error}")]
    needed = {site_gpu_type(grid.site, spec) for spec in grid.specs if gpus(spec)} - {""}
    return partition_checks(grid.site, grid.partitions, needed)


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
        found.append(Finding("weights sizes", False, f"no download_gb: {', '.join(unsized)}"))
    allow_unpinned = (grid.config.get("weights") or {}).get("allow_unpinned", False)
    found.append(pinned_check(grid.downloads, allow_unpinned, read_lock(lock_path(grid.config))))
    return found


def access_checks(grid: Grid) -> list[Finding]:
    """Hub access to gated models, API keys, hosted models still served, substitutions."""
    token = hub_token(grid.env)
    found = [gated_check(s.name, s.reference, token) for s in grid.specs if s.gated]
    found += api_key_checks(grid.registry, grid.models, grid.env)
    found += [served_check(spec, grid.env) for spec in grid.specs if spec.engine == "api"]
    found.append(semantic_scholar_key_check(searches_literature(grid.config), grid.env))
    found.append(provider_network_check(grid.site_path, grid.site, grid.specs))
    found += not_runnable_checks(grid.registry, grid.not_runnable)
    return found + substitution_checks(grid.config["judges"].get("substitutions") or {})


def not_runnable_checks(registry: Registry, not_runnable: Mapping) -> list[Finding]:
    """One line per judge of the config whose cells the grid skips (a retired model with no
    substitution): a warning, since the run goes on without them."""
    return [
        warning(
            f"model {model}",
            f"{reason}: its {cells} cells are skipped; "
            + _not_reproducible(registry.model(model), "is not served"),
        )
        for model, (reason, cells) in sorted(not_runnable.items())
    ]


# ---- What fails on day one: the C library, conda, disk for environments, the hub's commits,
# chat templates and the GPU nodes' driver.

# vLLM 0.33's structured-output backend llguidance ships manylinux_2_31 wheels only: pip cannot
# install it (no wheel, and a Rust build from source) and the nodes cannot load it below 2.31.
MIN_GLIBC = "2.31"
# What each conda environment takes (GB): the environment's folder under the conda prefix, and
# the wheels pip keeps in its cache while building it. noveval.yaml: the test environment of this
# checkout (torch's CPU build) takes 2.3 GB, its conda environment with Python about 3. The vLLM
# environment: torch 2.14 on CUDA 13.0 with the CUDA libraries as wheels, FlashInfer and vLLM
# itself, an estimate from the wheels' sizes of such builds (not measured here).
ENV_SIZES_GB = {"noveval.yaml": (3.0, 1.0), "inference-vllm.yaml": (14.0, 6.0)}
ENVS_DIR = Path(__file__).resolve().parents[2] / "workflow" / "envs"
# The role sequences of our requests (NovBench and judge prompts with a system message, and
# NovBench prompts without one): a model's chat template must render both.
ROLE_SEQUENCES = {
    "system+user": [
        {"role": "system", "content": "You are an expert reviewer."},
        {"role": "user", "content": "Assess the novelty of this paper."},
    ],
    "user only": [{"role": "user", "content": "Assess the novelty of this paper."}],
}
BUSY = re.compile(r"nodes are busy|can ?not start immediately|gave no answer", re.IGNORECASE)


def glibc_check(reported: str, where: str) -> Finding:
    """The C library version a host reports (``glibc 2.28``) against vLLM's wheels' minimum."""
    name = f"glibc ({where})"
    found = re.search(r"(\d+\.\d+)", reported or "")
    if not found:
        return Finding(name, False, f"no glibc version in {reported.strip()!r}")
    ok = _version(found.group(1)) >= _version(MIN_GLIBC)
    need = f"vLLM 0.33's llguidance wheels need glibc >= {MIN_GLIBC}"
    return Finding(name, ok, f"{found.group(1)} ({need})")


def conda_check(version_output: str) -> Finding:
    """``conda --version`` against the oldest conda Snakemake deploys environments with."""
    from packaging.version import InvalidVersion, Version
    from snakemake.deployment.conda import MIN_CONDA_VER

    said = version_output.strip()
    try:
        version = Version(said.split()[-1])
    except (IndexError, InvalidVersion):
        return Finding("conda", False, f"no version in `conda --version`: {said!r}")
    need = f"Snakemake's conda deployment needs >= {MIN_CONDA_VER}"
    return Finding("conda", version >= Version(MIN_CONDA_VER), f"{version} ({need})")


def built(prefix: Path, env_file: Path) -> bool:
    """Whether Snakemake has built ``env_file`` under ``prefix`` (its copy ``<hash>.yaml`` of the
    file, with the ``<hash>.env_setup_done`` flag next to it)."""
    content = env_file.read_bytes()
    return any(
        copy.with_suffix(".env_setup_done").exists() and copy.read_bytes() == content
        for copy in prefix.glob("*.yaml")
    )


def _existing(path: Path) -> Path:
    return next(folder for folder in (path, *path.parents) if folder.exists())


def env_space_check(
    prefix: Path,
    pip_cache: Path | None,
    env_files: Iterable[Path],
    sizes: Mapping[str, tuple[float, float]] = ENV_SIZES_GB,
) -> Finding:
    """Room for the environments not built yet: their folders under the conda prefix and their
    wheels in pip's cache (None: caching is off), summed per file system."""
    to_build = [path for path in env_files if not built(prefix, path)]
    if not to_build:
        return Finding("environments space", True, f"every environment is built in {prefix}")
    wants = [(prefix, sum(sizes[path.name][0] for path in to_build))]
    if pip_cache is not None:
        wants.append((pip_cache, sum(sizes[path.name][1] for path in to_build)))
    needed: dict[int, float] = {}
    for folder, gb in wants:
        device = _existing(folder).stat().st_dev
        needed[device] = needed.get(device, 0.0) + gb
    parts, ok = [], True
    for folder, gb in wants:
        existing = _existing(folder)
        free_gb = shutil.disk_usage(existing).free / 1e9
        total = needed[existing.stat().st_dev]
        ok &= free_gb >= total
        parts.append(f"{folder}: {free_gb:,.0f} GB free, {gb:,.1f} GB to write")
    names = ", ".join(path.name for path in to_build)
    if len(needed) < len(wants):
        parts.append(f"one file system: {sum(gb for _, gb in wants):,.1f} GB in all")
    return Finding("environments space", ok, f"{'; '.join(parts)}; for {names}")


def pip_cache_dir() -> Path | None:
    """The folder pip caches wheels in (its own answer; None: caching is off)."""
    ok, said = run_command([sys.executable, "-m", "pip", "cache", "dir"])
    return Path(said.strip()) if ok and said.strip() else None


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
    try:
        HfApi(endpoint=endpoint, token=token).model_info(item.reference, revision=item.revision)
    except RevisionNotFoundError:
        return Finding(
            name, False, f"{where}: the hub has no such revision; pin another commit in models.yaml"
        )
    except GatedRepoError:
        return warning(name, f"{where}: gated, cannot be confirmed without access (see access)")
    except RepositoryNotFoundError:
        return Finding(name, False, f"{where}: no such repository on the hub (or private)")
    except (httpx2.HTTPError, OSError) as error:  # an HTTP error, no network, hub off
        return Finding(name, False, f"{where}: the hub did not answer ({type(error).__name__})")
    return Finding(name, True, f"{where} is on the hub")


def hub_revision_checks(grid: Grid) -> list[Finding]:
    """One line per pinned download of the grid."""
    if not grid.downloads:
        return [skipped("hub revisions", "no open model or hub scorer in the grid")]
    token = hub_token(grid.env)
    return [hub_revision_check(item, token) for item in grid.downloads]


def snapshot_template(snapshot: Path) -> tuple[str | None, dict]:
    """A snapshot's chat template (``chat_template.jinja``, else tokenizer_config.json's
    ``chat_template``, its ``default`` when there are several) and its special tokens."""
    config_file = snapshot / "tokenizer_config.json"
    config = json.loads(config_file.read_text()) if config_file.is_file() else {}
    tokens = {
        key: value.get("content") if isinstance(value, dict) else value
        for key, value in config.items()
        if key.endswith("_token") and isinstance(value, str | dict)
    }
    jinja = snapshot / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(), tokens
    template = config.get("chat_template")
    if isinstance(template, list):
        template = {entry["name"]: entry["template"] for entry in template}.get("default")
    return template, tokens


def template_check(model: str, template: str | None, source: str, options: dict) -> Finding:
    """The chat template renders every role sequence of our requests (transformers' renderer,
    as vLLM's server uses it); a template that raises on one fails, naming it."""
    from jinja2 import TemplateError
    from transformers.utils.chat_template_utils import render_jinja_template

    name = f"chat template {model}"
    if not template:
        return Finding(name, False, f"none in {source}; set chat_template in models.yaml")
    refused = []
    for sequence, messages in ROLE_SEQUENCES.items():
        try:
            render_jinja_template(
                conversations=[messages],
                chat_template=template,
                add_generation_prompt=True,
                **options,
            )
        except (TemplateError, TypeError, ValueError) as error:  # raise_exception, or broken
            refused.append(f"{sequence} ({type(error).__name__}: {error})")
    if refused:
        return Finding(name, False, f"{source} refuses {'; '.join(refused)}"[:MAX_DETAIL])
    return Finding(name, True, f"{source} renders {' and '.join(ROLE_SEQUENCES)}")


def chat_template_checks(grid: Grid) -> list[Finding]:
    """The chat template of each downloaded vLLM model (the registry's, else its snapshot's)."""
    if not grid.served:
        return [skipped("chat templates", "no vLLM model in the grid")]
    found, waiting = [], []
    for spec in grid.served:
        manifest = Path(manifest_path(grid.config["results"], spec.name))
        if not manifest.exists():
            waiting.append(spec.name)
            continue
        try:
            snapshot = local_weights(manifest).snapshot
        except WeightsError as error:  # files gone from the cache since the download
            found.append(Finding(f"chat template {spec.name}", False, str(error)))
            continue
        template, tokens = snapshot_template(snapshot)
        source = f"{spec.reference} snapshot"
        if spec.chat_template:
            template, source = Path(resolve(spec.chat_template)).read_text(), spec.chat_template
        found.append(
            template_check(spec.name, template, source, {**tokens, **spec.chat_template_kwargs})
        )
    if waiting:
        why = f"not downloaded yet: {', '.join(waiting)} (rule weights; run preflight again after)"
        found.append(skipped("chat templates", why))
    return found


def node_command(site: dict, partition: str, gpu_type: str, command: list[str]) -> list[str]:
    """``command`` as a one-GPU job step on ``partition`` with the site's account and QoS,
    waiting at most GPU_WAIT_S for a node."""
    gres = f"gpu:{gpu_type}:1" if gpu_type else "gpu:1"
    return [*job_step(site, partition), f"--gres={gres}", *command]


def node_check(what: str, where: str, partition: str, answer: tuple[bool, str], parse) -> Finding:
    """A job step's ``answer`` (run_command's): ``parse(output, where)`` when it ran, a warning
    when the partition had no free node in time (busy), else a failure with SLURM's reason."""
    ok, output = answer
    if ok:
        return parse(output, where)
    if BUSY.search(output):
        return warning(f"{what} ({where})", f"partition {partition} is busy: {output}")
    return Finding(f"{what} ({where})", False, f"partition {partition}: {output}")


def on_gpu_nodes(grid: Grid, specs: list[ModelSpec], command: list[str], parse, what: str):
    """``command`` on a node of each GPU type of ``specs``, as :func:`node_check` reads it."""
    found = []
    for gpu_type in sorted({site_gpu_type(grid.site, spec) for spec in specs if gpus(spec)}):
        where = f"{gpu_type or 'GPU'} nodes"
        partition = driver_partition(grid.site, gpu_type)
        if partition is None:
            found.append(Finding(f"{what} ({where})", False, "no partition of the site file"))
            continue
        answer = run_command(node_command(grid.site, partition, gpu_type, command))
        found.append(node_check(what, where, partition, answer, parse))
    return found


def glibc_checks(grid: Grid) -> list[Finding]:
    """glibc where vLLM is installed (this host builds the environments) and where it runs."""
    if not grid.served:
        return [skipped("glibc", "no vLLM model in the grid")]
    found = [glibc_check(os.confstr("CS_GNU_LIBC_VERSION") or "", "this host")]
    if grid.partitions is None:
        return found
    return found + on_gpu_nodes(
        grid, grid.served, ["getconf", "GNU_LIBC_VERSION"], glibc_check, "glibc"
    )


def conda_checks(grid: Grid) -> list[Finding]:
    """conda's version, and room for the environments and pip's cache, under conda deployment."""
    if grid.conda_prefix is None:
        why = "the run deploys no conda environment (software-deployment-method)"
        return [skipped("conda", why), skipped("environments space", why)]
    ok, said = run_command(["conda", "--version"])
    version = conda_check(said) if ok else Finding("conda", False, f"conda --version: {said}")
    names = {"noveval.yaml", *(inference_env(spec) for spec in grid.specs)}
    env_files = [ENVS_DIR / name for name in sorted(names)]
    return [version, env_space_check(grid.conda_prefix, pip_cache_dir(), env_files)]


def driver_checks(grid: Grid) -> list[Finding]:
    """The NVIDIA driver of each GPU type of the grid (a job step on its partition), or of this
    host without SLURM."""
    if not any(gpus(spec) for spec in grid.specs):
        return [skipped("NVIDIA driver", "no GPU job in the grid")]
    query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
    if grid.partitions is not None:
        return on_gpu_nodes(grid, grid.specs, query, driver_check, "NVIDIA driver")
    if not shutil.which("nvidia-smi"):
        return [skipped("NVIDIA driver", "no SLURM and no nvidia-smi on this host")]
    ok, output = run_command(query)
    where = "this host"
    return [
        driver_check(output, where) if ok else Finding(f"NVIDIA driver ({where})", False, output)
    ]


def job_limits_checks(grid: Grid) -> list[Finding]:
    """Every planned inference job against the partitions as ``sinfo`` reports them."""
    if not grid.planned_jobs:
        return []
    if grid.partitions is None:
        return [skipped("job limits", f"no partitions from SLURM here ({grid.sinfo_error})")]
    ok, output = run_command(["sinfo", "--noheader", "--format=%R %l %G %m"])
    if not ok:
        return [Finding("job limits", False, f"sinfo failed: {output}")]
    return [job_limits_check(list(grid.planned_jobs), partition_limits(output), grid.site)]


# Every check, in the order of the report: each takes the grid and gives its lines.
CHECKS = [
    slurm_checks,
    weights_checks,
    hub_revision_checks,
    chat_template_checks,
    access_checks,
    glibc_checks,
    conda_checks,
    driver_checks,
    job_limits_checks,
]


def checks(
    config: dict,
    registry: Registry,
    models: Iterable[str],
    env: Mapping[str, str],
    conda_prefix: str | Path | None = None,
    planned_jobs: Iterable = (),
    not_runnable: Mapping | None = None,
) -> list[Finding]:
    """Every check of the grid's ``models`` (the registry's names) under ``config``;
    ``conda_prefix``: where Snakemake builds conda environments (None: no conda deployment);
    ``planned_jobs``: every inference job's resources (``noveval.cluster.PlannedJob``);
    ``not_runnable``: the judges whose cells the grid skips (``JudgesGrid.not_runnable``)."""
    site_path = site_file_path(env)
    site_line, site = site_file_check(site_path)
    ok, output = run_command(["sinfo", "--noheader", "--format=%R %G"])
    grid = Grid(
        config=config,
        registry=registry,
        models=sorted(models),
        env=env,
        site_path=site_path,
        site=site,
        partitions=slurm_partitions(output) if ok else None,
        sinfo_error="" if ok else output,
        conda_prefix=Path(conda_prefix) if conda_prefix else None,
        planned_jobs=tuple(planned_jobs),
        not_runnable=dict(not_runnable or {}),
    )
    return [site_line, *(line for check in CHECKS for line in check(grid))]


def hub_scorers(config: dict, registry: Registry, models: Iterable[str]) -> list[ScorerSpec]:
    """The hub scorers any rule of the grid loads (rule weights downloads each): NovBench's
    scoring and reviewer-confidence encoders (with NovBench models), the judges' retrieval
    encoder (the retrieval change on a corpus), the Idea Novelty Checker's encoder
    (judges.systems.novelty_checker) and NovBench construction's retrieval encoder."""
    novbench, judges = config.get("novbench") or {}, config.get("judges") or {}
    names = []
    if set(novbench.get("models") or ()) & set(models):
        names += scorer_names(novbench["scoring"])
    retrieval = judges.get("retrieval") or {}
    if (
        "retrieval" in (judges.get("changes") or ())
        and judges.get("models")
        and retrieval.get("search") != "semantic_scholar"
    ):
        names.append(retrieval.get("encoder"))
    if "novelty_checker" in (judges.get("systems") or {}):
        names.append((judges.get("novelty_checker") or {}).get("encoder"))
    built = ((config.get("construction") or {}).get("novbench") or {}).get("retrieval") or {}
    names.append(built.get("encoder"))
    return [registry.scorers[name] for name in dict.fromkeys(names) if name in registry.scorers]


def site_gpu_type(site: dict, spec: ModelSpec) -> str:
    """The GRES type of the model's GPUs as the site file's ``gpu_types`` names it."""
    return (site.get("gpu_types") or {}).get(gpu_model(spec), gpu_model(spec))


def driver_partition(site: dict, gpu_type: str) -> str | None:
    """A partition of the site file with GPUs of ``gpu_type`` (any GPU partition for "")."""
    offering = [
        name
        for name, settings in sorted((site.get("partitions") or {}).items())
        if (settings or {}).get("max_gpu")
        and (not gpu_type or gpu_type in ((settings or {}).get("available_gpu_models") or ()))
    ]
    return offering[0] if offering else None


def preflight(
    config: dict,
    registry: Registry,
    models: Iterable[str],
    log_path: str | Path | None = None,
    conda_prefix: str | Path | None = None,
    planned_jobs: Iterable = (),
    not_runnable: Mapping | None = None,
) -> None:
    """Rule preflight: print every finding (and write them to ``log_path``), then fail when any
    failed. ``conda_prefix``: where Snakemake builds conda environments (None: no conda
    deployment); ``planned_jobs``: every inference job's resources."""
    found = checks(config, registry, models, os.environ, conda_prefix, planned_jobs, not_runnable)
    lines = [finding.line() for finding in found]
    print("\n".join(lines), flush=True)
    failed = [finding.name for finding in found if finding.ok is False]
    verdict = (
        f"pre-flight: {len(failed)} failed ({', '.join(failed)})"
        if failed
        else f"pre-flight: all {len(found)} findings passed"
    )
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        Path(log_path).write_text("\n".join([*lines, verdict]) + "\n", encoding="utf-8")
    if failed:
        print(verdict, file=sys.stderr)
        raise PreflightError(f"{len(failed)} pre-flight findings failed: {', '.join(failed)}")
    print(verdict, flush=True)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))
