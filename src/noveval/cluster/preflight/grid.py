"""What the checks read: the config, the grid's models and downloads, the site file, SLURM."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from noveval.cluster.resources import gpu_model
from noveval.core.registry import ModelSpec, Registry, ScorerSpec
from noveval.core.site import DEFAULT_SITE_FILE, SITE_FILE_VARIABLE
from noveval.inference.weights import needs_weights
from noveval.novbench.grid import scorer_names


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
    # every inference job's resources (noveval.cluster.resources.PlannedJob)
    planned_jobs: tuple = ()
    not_runnable: Mapping = field(default_factory=dict)  # judge -> (why, cells skipped)
    configfiles: tuple[str, ...] = ()  # the run's --configfile files, for the commands it names

    def command(self, target: str) -> str:
        """The command that makes ``target`` for this grid: its config files, relative to the
        working directory where they are under it."""
        shown = [
            path if os.path.relpath(path).startswith("..") else os.path.relpath(path)
            for path in self.configfiles
        ]
        return f"snakemake --cores 1 {target} --configfile {' '.join(shown) or '...'}"

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
        return grid_downloads(self.config, self.registry, self.models)


def grid_downloads(config: dict, registry: Registry, models: Iterable[str]) -> list:
    """Everything rule weights downloads for a grid of ``models``: its vLLM models' weights and
    the hub scorers its rules load (preflight's list, and target fetch_weights')."""
    models = list(models)
    served = [registry.model(name) for name in models if needs_weights(registry.model(name))]
    return served + hub_scorers(config, registry, models)


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
