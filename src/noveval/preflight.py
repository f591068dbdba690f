"""Pre-flight checks of a cluster run: ``snakemake preflight --profile profiles/slurm ...``.

Run on the login node before the grid, it checks what a run needs and cannot fix itself: the
site file, the site's partitions and GPU types as SLURM knows them, the weights cache (writable,
with room for the weights not downloaded yet), a pinned revision of every open model and hub
scorer, a Hugging Face token with access to each gated model, each API key, that each hosted
model is still served (the provider's model lookup; a retired one is named with the published
numbers it can no longer reproduce), each configured substitution of a model, and the NVIDIA
driver of the GPU nodes. It prints one line per check and fails after the last one when any
failed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import anthropic
import openai
import yaml

from noveval.cluster import gpu_model, gpus
from noveval.literature.semantic_scholar import API_KEY_ENV as S2_API_KEY_ENV
from noveval.novbench.grid import scorer_names
from noveval.registry import ModelSpec, Registry, ScorerSpec
from noveval.weights import (
    DEFAULT_SITE_FILE,
    SITE_FILE_VARIABLE,
    cache_dir,
    manifest_path,
    needs_weights,
)

# vLLM 0.33.0 (envs/inference-vllm.yaml) runs torch 2.14.0 built on CUDA 13.0, which needs an
# NVIDIA driver of the R580 branch or newer: 580.65.06 is CUDA 13.0's minimum.
MIN_DRIVER = "580.65.06"
COMMAND_TIMEOUT_S = 120
LOOKUP_TIMEOUT_S = 30
MAX_DETAIL = 300  # characters of a failed command's message in its check's line
GPU_WAIT_S = 60  # how long the driver check waits for a GPU node (srun --immediate)


class PreflightError(RuntimeError):
    """At least one pre-flight check failed."""


@dataclass(frozen=True)
class Check:
    """One line of the report: ``ok`` True (OK), False (FAIL) or None (SKIP: not needed)."""

    name: str
    ok: bool | None
    detail: str

    def line(self) -> str:
        status = {True: "OK", False: "FAIL", None: "SKIP"}[self.ok]
        return f"{status:<4}  {self.name}: {self.detail}"


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


def site_file_check(path: str | Path) -> tuple[Check, dict]:
    """The site file: readable YAML with a ``partitions`` table (and its settings)."""
    try:
        site = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        return Check("site file", False, f"{path}: {error}"), {}
    if not isinstance(site, dict) or not isinstance(site.get("partitions"), dict):
        return Check("site file", False, f"{path}: no `partitions` table"), {}
    return Check("site file", True, f"{path} ({len(site['partitions'])} partitions)"), site


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
    names = Check(
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
    types = Check(
        "GPU types",
        not problems,
        "; ".join(problems) if problems else f"grid needs {needed}; SLURM offers them",
    )
    return [names, types]


def weights_cache_check(cache: Path, missing_gb: float) -> Check:
    """The cache is writable (or can be created) and its file system has room for the weights
    that are not downloaded yet."""
    existing = next(path for path in (cache, *cache.parents) if path.exists())
    try:
        existing.joinpath(f".preflight-{uuid.uuid4().hex}").touch()
    except OSError as error:
        return Check("weights cache", False, f"{cache}: not writable ({error.strerror})")
    for probe in existing.glob(".preflight-*"):
        probe.unlink(missing_ok=True)
    free_gb = shutil.disk_usage(existing).free / 1e9
    detail = f"{cache}: {free_gb:,.0f} GB free, {missing_gb:,.1f} GB of weights to download"
    return Check("weights cache", free_gb >= missing_gb, detail)


def pinned_check(downloads: Iterable, allow_unpinned: bool) -> Check:
    """Every download of the grid (open models, hub scorers) is pinned to a hub commit; one
    without a revision fails, named, unless the config downloads main for it
    (``weights.allow_unpinned``: its commit is then recorded in the manifest, not chosen)."""
    unpinned = [f"{item.name} ({item.reference})" for item in downloads if not item.revision]
    if not unpinned:
        return Check("revisions", True, "every open model and hub scorer of the grid is pinned")
    detail = f"no revision in config/models.yaml: {', '.join(unpinned)}"
    if allow_unpinned:
        return Check("revisions", True, f"{detail}; main is downloaded (weights.allow_unpinned)")
    return Check("revisions", False, f"{detail}; pin a hub commit for each")


def hub_token(env: Mapping[str, str]) -> str | None:
    """The Hugging Face token: HF_TOKEN, else the file `hf auth login` writes."""
    if env.get("HF_TOKEN"):
        return env["HF_TOKEN"]
    home = Path(env.get("HF_HOME") or Path.home() / ".cache" / "huggingface")
    token_file = Path(env.get("HF_TOKEN_PATH") or home / "token")
    if not token_file.is_file():
        return None
    return token_file.read_text().strip() or None


def gated_check(model: str, repo_id: str, token: str | None) -> Check:
    """A gated model: a token, and the hub's word that it grants access (licence accepted)."""
    name = f"access {model}"
    if not token:
        return Check(
            name, False, f"{repo_id} is gated: no Hugging Face token (HF_TOKEN or `hf auth login`)"
        )
    from huggingface_hub import auth_check
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError

    try:
        auth_check(repo_id, token=token)
    except GatedRepoError:
        return Check(name, False, f"{repo_id}: the token has no access; accept the licence")
    except (HfHubHTTPError, OSError) as error:
        return Check(name, False, f"{repo_id}: the hub did not confirm access ({error})")
    return Check(name, True, f"{repo_id}: the token has access")


def api_key_checks(registry: Registry, models: Iterable[str], env: Mapping[str, str]) -> list:
    """One line per key variable of the grid's hosted models."""
    users: dict[str, list[str]] = {}
    for name in sorted(models):
        spec = registry.model(name)
        if spec.engine == "api":
            users.setdefault(spec.api_key_env, []).append(name)
    return [
        Check(
            f"key {variable}",
            bool(env.get(variable)),
            f"{'set' if env.get(variable) else 'not set'}, for {', '.join(names)}",
        )
        for variable, names in sorted(users.items())
    ]


def semantic_scholar_key_check(needed: bool, env: Mapping[str, str]) -> Check:
    """The Semantic Scholar key (``S2_API_KEY``) when the grid searches the literature."""
    name = f"key {S2_API_KEY_ENV}"
    if not needed:
        return Check(name, None, "no literature search in the grid")
    found = bool(env.get(S2_API_KEY_ENV))
    return Check(
        name,
        found,
        f"{'set' if found else 'not set'}, for Semantic Scholar (judges.retrieval.search); "
        "without it the API's shared anonymous limit applies",
    )


def searches_literature(config: dict) -> bool:
    """Whether the judges' grid runs the retrieval change through Semantic Scholar."""
    judges = config.get("judges") or {}
    search = (judges.get("retrieval") or {}).get("search")
    return "retrieval" in (judges.get("changes") or []) and search == "semantic_scholar"


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


def served_check(spec: ModelSpec, env: Mapping[str, str]) -> Check:
    """A hosted model is still served: the provider's lookup knows its id and (Anthropic) its
    lifecycle is not ``retired``. A model that is not served fails, naming the published numbers
    it cannot reproduce and the config key of an explicit substitution; a deprecated one passes
    with its retirement date."""
    name = f"model {spec.name}"
    key = env.get(spec.api_key_env or "")
    if not key:
        return Check(
            name,
            False,
            f"{spec.reference}: the lookup cannot be made: {spec.api_key_env} is not set "
            f"(registry api_key_env of {spec.name})",
        )
    try:
        found = lookup_model(spec, key)
    except (openai.NotFoundError, anthropic.NotFoundError) as error:
        why = f"is not served ({error})"
        return Check(name, False, _not_reproducible(spec, why))
    except (openai.OpenAIError, anthropic.AnthropicError) as error:
        return Check(
            name,
            False,
            f"{spec.reference}: the lookup at {spec.base_url} failed "
            f"({type(error).__name__}: {error}); check {spec.api_key_env} and the network",
        )
    lifecycle = getattr(found, "lifecycle", None)
    retires = getattr(found, "retires_at", None)
    date = f" on {retires:%Y-%m-%d}" if retires else ""
    if lifecycle == "retired":
        return Check(name, False, _not_reproducible(spec, f"was retired{date}"))
    if lifecycle == "deprecated":
        return Check(name, True, f"{spec.reference} is served, deprecated: retires{date}")
    return Check(name, True, f"{spec.reference} is served")


def _not_reproducible(spec: ModelSpec, why: str) -> str:
    return (
        f"{spec.reference} {why}; cannot be reproduced: {_cells_line(published_cells(spec.name))}."
        f" To run another model in its place, name it in judges.substitutions "
        f"({{{spec.name}: <successor>}}): reported as a substitution, not like-for-like"
    )


def substitution_checks(substitutions: Mapping[str, str]) -> list[Check]:
    """One line per configured substitution: the published numbers its successor stands in
    for, which the reproduction reports as not like-for-like."""
    return [
        Check(
            f"substitution {published_model}",
            True,
            f"{successor} runs in place of {published_model}; compared not like-for-like with "
            f"{_cells_line(published_cells(published_model))}",
        )
        for published_model, successor in sorted(substitutions.items())
    ]


def driver_check(nvidia_smi_output: str, where: str) -> Check:
    """The lowest driver version that ``nvidia-smi --query-gpu=driver_version`` reports."""
    versions = [line.strip() for line in nvidia_smi_output.splitlines() if line.strip()]
    if not versions:
        return Check("NVIDIA driver", False, f"{where}: nvidia-smi reported no GPU")
    lowest = min(versions, key=_version)
    ok = _version(lowest) >= _version(MIN_DRIVER)
    need = f"vLLM's CUDA 13.0 needs >= {MIN_DRIVER}"
    return Check("NVIDIA driver", ok, f"{lowest} on {where} ({need})")


def gpu_driver_check(gpu_partition: str) -> Check:
    """The driver of a GPU node: nvidia-smi here when this host has it, else in a one-GPU job
    step on the partition (``srun``), waiting at most GPU_WAIT_S for a node."""
    query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
    if shutil.which("nvidia-smi"):
        ok, output = run_command(query)
        where = "this host"
    else:
        step = ["srun", f"--partition={gpu_partition}", "--gres=gpu:1", "--ntasks=1"]
        ok, output = run_command([*step, "--time=2", f"--immediate={GPU_WAIT_S}", *query])
        where = f"a node of partition {gpu_partition}"
    return (
        driver_check(output, where) if ok else Check("NVIDIA driver", False, f"{where}: {output}")
    )


def site_file_path(env: Mapping[str, str]) -> str:
    """The site file the SLURM profile reads."""
    return env.get(SITE_FILE_VARIABLE) or DEFAULT_SITE_FILE


def checks(
    config: dict, registry: Registry, models: Iterable[str], env: Mapping[str, str]
) -> list[Check]:
    """Every check of the grid's ``models`` (the registry's names) under ``config``."""
    models = sorted(models)
    specs = [registry.model(name) for name in models]
    site_path = site_file_path(env)
    site_line, site = site_file_check(site_path)
    found = [site_line]

    ok, output = run_command(["sinfo", "--noheader", "--format=%R %G"])
    needed_gpu_types = {gpu_model(spec) for spec in specs if gpus(spec) and gpu_model(spec)}
    if ok:
        found += partition_checks(site, slurm_partitions(output), needed_gpu_types)
    else:
        found.append(Check("partitions", False, f"sinfo failed: {output}"))

    served = [spec for spec in specs if needs_weights(spec)]
    downloads = served + hub_scorers(config, registry, models)
    results = config["results"]
    missing_gb = sum(
        item.download_gb or 0
        for item in downloads
        if not Path(manifest_path(results, item.name)).exists()
    )
    cache = cache_dir(results, site_path)
    found.append(weights_cache_check(cache, missing_gb))
    unsized = [item.name for item in downloads if item.download_gb is None]
    if unsized:
        found.append(Check("weights sizes", False, f"no download_gb: {', '.join(unsized)}"))
    allow_unpinned = (config.get("weights") or {}).get("allow_unpinned", False)
    found.append(pinned_check(downloads, allow_unpinned))

    token = hub_token(env)
    found += [gated_check(spec.name, spec.reference, token) for spec in specs if spec.gated]
    found += api_key_checks(registry, models, env)
    found.append(semantic_scholar_key_check(searches_literature(config), env))
    found += [served_check(spec, env) for spec in specs if spec.engine == "api"]
    found += substitution_checks(config["judges"].get("substitutions") or {})

    partition = driver_partition(site, specs)
    if not any(gpus(spec) for spec in specs):
        found.append(Check("NVIDIA driver", None, "no GPU job in the grid"))
    elif partition is None:
        found.append(Check("NVIDIA driver", False, "no GPU partition in the site file"))
    else:
        found.append(gpu_driver_check(partition))
    return found


def hub_scorers(config: dict, registry: Registry, models: Iterable[str]) -> list[ScorerSpec]:
    """The hub scorers the NovBench grid's scoring downloads (none without NovBench models)."""
    novbench = config.get("novbench") or {}
    if not set(novbench.get("models") or ()) & set(models):
        return []
    names = dict.fromkeys(scorer_names(novbench["scoring"]))
    return [registry.scorers[name] for name in names if name in registry.scorers]


def driver_partition(site: dict, specs: list) -> str | None:
    """A partition that runs the grid's GPU jobs (None: no partition of the site file does)."""
    needed = {gpu_model(spec) for spec in specs if gpus(spec)}
    offering = [
        name
        for name, settings in sorted((site.get("partitions") or {}).items())
        if (settings or {}).get("max_gpu")
        and (needed & set((settings or {}).get("available_gpu_models") or ()) or "" in needed)
    ]
    return offering[0] if offering else None


def preflight(
    config: dict, registry: Registry, models: Iterable[str], log_path: str | Path | None = None
) -> None:
    """Rule preflight: print every check (and write them to ``log_path``), then fail when any
    failed."""
    found = checks(config, registry, models, os.environ)
    lines = [check.line() for check in found]
    print("\n".join(lines), flush=True)
    failed = [check.name for check in found if check.ok is False]
    verdict = (
        f"pre-flight: {len(failed)} failed ({', '.join(failed)})"
        if failed
        else f"pre-flight: all {len(found)} checks passed"
    )
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        Path(log_path).write_text("\n".join([*lines, verdict]) + "\n", encoding="utf-8")
    if failed:
        print(verdict, file=sys.stderr)
        raise PreflightError(f"{len(failed)} pre-flight checks failed: {', '.join(failed)}")
    print(verdict, flush=True)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))
