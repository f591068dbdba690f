"""The site file of a cluster (profiles/slurm/site.yaml, or ``$NOVEVAL_SLURM_SITE``).

Besides what the SLURM profile reads (partitions, account, QoS), it says how long an inference
job may plan to run (``job_share`` of the longest partition that takes it) and what our GPU names
and model constraints are called on this site (``gpu_types``, ``constraints``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from noveval.core.yaml_files import load_yaml

SITE_FILE_VARIABLE = "NOVEVAL_SLURM_SITE"  # as profiles/slurm/config.yaml
DEFAULT_SITE_FILE = "profiles/slurm/site.yaml"
DEFAULT_JOB_SHARE = 0.5  # of a partition's max_runtime: room for the safety factor and retries
SITE_SCHEMA = Path(__file__).with_name("site.schema.yaml")  # package data, beside this module


@dataclass(frozen=True)
class Site:
    """The settings of a site file that size and place inference jobs."""

    partitions: dict[str, dict] = field(default_factory=dict)
    job_share: float = DEFAULT_JOB_SHARE
    gpu_types: dict[str, str] = field(default_factory=dict)  # our GPU name -> site GRES type
    constraints: dict[str, str] = field(default_factory=dict)  # registry label -> node features
    api_inference: str = "host"  # where hosted-API inference runs: host or slurm
    software_deployment: str | None = None  # conda: the jobs run in envs/ built by Snakemake
    weights_cache: str | None = None  # where rule weights downloads (None: under the results)
    gpus_at_once: dict[str, int] = field(default_factory=dict)  # partition -> GPUs held at once
    path: str = ""  # the file read ("" where there is none)

    @classmethod
    def load(cls, path: str | Path | None = None, env: Mapping[str, str] = os.environ) -> Site:
        """The site file ``path``, else ``$NOVEVAL_SLURM_SITE``, else profiles/slurm/site.yaml;
        no file: no partition limits (a local run)."""
        path = Path(path or env.get(SITE_FILE_VARIABLE) or DEFAULT_SITE_FILE)
        if not path.is_file():
            return cls()
        settings = load_yaml(path.read_text()) or {}
        check_site(settings, path)
        share = settings.get("job_share", DEFAULT_JOB_SHARE)
        api_inference = settings.get("api_inference") or "host"
        return cls(
            partitions={n: dict(p or {}) for n, p in (settings.get("partitions") or {}).items()},
            job_share=float(share),
            gpu_types=dict(settings.get("gpu_types") or {}),
            constraints=dict(settings.get("constraints") or {}),
            api_inference=api_inference,
            software_deployment=settings.get("software_deployment"),
            weights_cache=settings.get("weights_cache"),
            gpus_at_once=dict(settings.get("gpus_at_once") or {}),
            path=str(path),
        )

    def require_software(self, conda_deployed: bool, submitted: list[str]) -> None:
        """Before a SLURM run's first job: a site whose jobs run in conda environments needs
        Snakemake's conda deployment, which the profile turns on only where conda is on PATH, for
        the jobs it submits (``submitted``: their rules). A dry run, and a run of rules on this
        host only (``snakemake plan``, ``preflight``), need no conda."""
        if self.software_deployment == "conda" and not conda_deployed and submitted:
            rules = ", ".join(sorted(set(submitted)))
            raise ValueError(
                f"{self.path}: software_deployment: conda, but conda is not on PATH, so the "
                f"profile left Snakemake's conda deployment off and the SLURM jobs ({rules}) "
                "would run in this environment instead of envs/. Install conda >= 24.7.1 on this "
                "host (docs/cluster.md, 'The login node'), or set software_deployment: null to run "
                "every job in the environment Snakemake runs in. A dry run and `snakemake plan` "
                "need no conda."
            )

    def gres_type(self, gpu_model: str) -> str:
        """The site's GRES type of one of our GPU names (the name itself where not mapped)."""
        return self.gpu_types.get(gpu_model, gpu_model) if gpu_model else ""

    def constraint(self, label: str | None) -> str | None:
        """The site's node features for a registry constraint (the label where not mapped)."""
        return self.constraints.get(label, label) if label else None

    def max_runtime(self, gpus: int, gres_type: str) -> float:
        """Minutes of the longest partition that takes a job of ``gpus`` GPUs of ``gres_type``
        (as the SLURM plugin matches them); infinite without partitions or limits, 0 when no
        partition takes the job."""
        if not self.partitions:
            return math.inf
        return max(self._fitting(gpus, gres_type), default=(0.0, ""))[0]

    def partition(self, gpus: int, gres_type: str) -> str:
        """The partition whose limit sizes a job of ``gpus`` GPUs of ``gres_type``: the longest
        that takes it (as :meth:`max_runtime`); "" without partitions or where none takes it."""
        return max(self._fitting(gpus, gres_type), default=(0.0, ""))[1]

    def _fitting(self, gpus: int, gres_type: str) -> list[tuple[float, str]]:
        """(minutes, name) of each partition that takes the job."""
        return [
            (float(p.get("max_runtime", math.inf)), name)
            for name, p in self.partitions.items()
            if takes(p, gpus, gres_type)
        ]

    def gpus_held(self, partition: str, gpus: int) -> int:
        """GPUs of ``partition`` the run's jobs hold at once (site ``gpus_at_once``), else one
        node's (the partition's ``max_gpu``), and at least one job's ``gpus``."""
        held = self.gpus_at_once.get(partition)
        if held:
            return int(held)
        return max(int((self.partitions.get(partition) or {}).get("max_gpu") or 0), gpus)


def check_site(settings: object, path: Path) -> None:
    """The site file against its schema (site.schema.yaml, beside this module): the first fault,
    with the key it is at, e.g. ``partitions/gpu: Additional properties are not allowed
    ('max_gpus' was unexpected)``."""
    if not isinstance(settings, dict):
        raise ValueError(f"{path}: a site file is a mapping of settings")
    schema = load_yaml(SITE_SCHEMA.read_text())
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(settings)
    )
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "top level"
        raise ValueError(f"{path}: {where}: {error.message}")


def takes(partition: Mapping, gpus: int, gres_type: str) -> bool:
    """Whether a partition of the site file takes a job of ``gpus`` GPUs of ``gres_type``."""
    if not gpus:
        return True
    models = partition.get("available_gpu_models")
    return gpus <= (partition.get("max_gpu") or 0) and not (
        gres_type and models and gres_type not in models
    )
