"""noveval: NovBench and the judge-instability study as one Snakemake workflow."""

import sys

from snakemake.settings.types import DeploymentMethod
from snakemake.utils import min_version, validate

from noveval.budget import check_run as check_budget
from noveval.literature.semantic_scholar import (
    require_api_key_for as require_search_key,
)
from noveval.logs import failure_summary
from noveval.judges.grid import judges_grid
from noveval.novbench.authors import upstream_inputs
from noveval.novbench.grid import novbench_grid
from noveval.provenance import canonicalize
from noveval.registry import load_registry, models_to_call
from noveval.site import Site

min_version("9.0")


# `snakemake --report results/report.html`: every table and figure, captioned (report/).
report: "report/workflow.rst"


# The default config applies when no --configfile is given; given files replace it (they merge
# with each other in order), so a test or a study can name exactly its datasets.
if not config:

    configfile: "config/config.yaml"


validate(config, "config/schemas/config.schema.yaml")
# Keys in any order, models in any order: the same config, the same params (nothing reruns).
canonicalize(config)

REGISTRY = load_registry(config["registry"])
NOVBENCH = novbench_grid(config, REGISTRY)
JUDGES = judges_grid(config, REGISTRY)
GRIDS = {"novbench": NOVBENCH, "judges": JUDGES}  # by track: rule infer's batches
RESULTS = config["results"]
LOGS = f"{RESULTS}/logs"
CACHE = f"{RESULTS}/cache"


onstart:
    # Keys are checked before any job starts, for the models whose inference jobs will run: the
    # compute plan, or tables and figures rebuilt from cached outputs, need no key.
    if workflow.executor_plugin.name == "slurm":
        Site.load().require_software(
            DeploymentMethod.CONDA
            in workflow.deployment_settings.deployment_method,
            [
                job.rule.name
                for job in workflow.dag.needrun_jobs()
                if not job.is_local
            ],
        )
    REGISTRY.require_api_keys(models_to_call(workflow.dag.needrun_jobs()))
    require_search_key(
        workflow.dag.needrun_jobs(), config["literature"]["semantic_scholar"]
    )
    # The planned cost of the calls no journal answered, against config budget (noveval.budget).
    if planned := check_budget(
        workflow.dag.needrun_jobs(), config, REGISTRY, JOBS, CACHE
    ):
        print(planned, file=sys.stderr)


# Every inference cell whose calls failed for good, from the jobs' failure reports.
onsuccess:
    if failed := failure_summary(LOGS):
        print(failed, file=sys.stderr)


onerror:
    if failed := failure_summary(LOGS):
        print(failed, file=sys.stderr)


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/prompts.smk"
include: "rules/weights.smk"
include: "rules/inference.smk"
include: "rules/parse.smk"
include: "rules/metrics.smk"
include: "rules/novbench_paper_tables.smk"
include: "rules/tables.smk"
include: "rules/figures.smk"
include: "rules/judges_data.smk"
include: "rules/judges_instances.smk"
include: "rules/judges_requests.smk"
include: "rules/judges_verdicts.smk"
include: "rules/judges_scideator.smk"
include: "rules/judges_tables.smk"
include: "rules/judges_figures.smk"
include: "rules/construction_judges.smk"
include: "rules/construction_novbench.smk"
include: "rules/plan.smk"
include: "rules/pilot.smk"
include: "rules/reproduction.smk"
include: "rules/preflight.smk"
include: "rules/budget.smk"


rule novbench:
    input:
        expand(
            f"{RESULTS}/novbench/{{dataset}}/{{name}}",
            dataset=NOVBENCH.datasets,
            name=["table.csv", "table.md", "sentiment_radar.png"],
        ),
        PAPER_TABLES.outputs(RESULTS, NOVBENCH),


rule judges:
    input:
        JUDGES.outputs(RESULTS),


# Both benchmarks built from raw sources (config construction): the judge study's release
# (rules/construction_judges.smk) and NovBench's file (rules/construction_novbench.smk).
rule build_benchmarks:
    input:
        construction_judges_targets(),
        construction_novbench_targets(),


# Every published number of both papers beside ours (results/reproduction/report.md, .csv).
rule reproduction:
    input:
        rules.reproduction_report.output,


rule all:
    default_target: True
    input:
        rules.novbench.input,
        rules.judges.input,
