from snakemake.settings.types import DeploymentMethod

from noveval.cluster.preflight.grid import grid_downloads
from noveval.inference.weights import manifest_path

# The models of every track and construction the config names: what preflight checks and
# fetch_weights downloads.
GRID_MODELS = (
    NOVBENCH.models_used()
    | JUDGES.models_used()
    | NOVBENCH_CONSTRUCTION.models_used()
    | (BUILD.models_used() if BUILD else set())
)


# Checks before a cluster run, on the login node: snakemake preflight --profile profiles/slurm
# --configfile ... prints one line per check and fails when any failed (noveval.cluster.preflight).
rule preflight:
    log:
        f"{LOGS}/preflight.log",
    retries: 0  # a failed check is for the user to fix, not to retry
    localrule: True
    params:
        models=GRID_MODELS,
        planned_jobs=lambda wildcards: JOBS.planned(),  # every inference job's resources
        not_runnable=JUDGES.not_runnable,  # the judges whose cells are skipped (retired)
        # where Snakemake builds the jobs' conda environments (known when the run starts); None:
        # it deploys none
        conda_prefix=lambda wildcards: (
            workflow.persistence.conda_env_path
            if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
            else None
        ),
    run:
        from noveval.cluster.preflight.run import preflight

        preflight(
            config,
            REGISTRY,
            params.models,
            log[0],
            conda_prefix=params.conda_prefix,
            planned_jobs=params.planned_jobs,
            not_runnable=params.not_runnable,
            configfiles=workflow.configfiles,  # for the commands its findings name
        )


# Every download the configured grid needs (its vLLM models' weights and the hub scorers, as
# preflight lists them), on the login node before the run: each at its pinned revision, or
# locked at its first download (weights.allow_unpinned: lock), after checking the cache's room.
rule fetch_weights:
    input:
        [
            manifest_path(RESULTS, item.name)
            for item in grid_downloads(config, REGISTRY, GRID_MODELS)
        ],
