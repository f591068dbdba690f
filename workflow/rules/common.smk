from noveval.cluster.resources import InferenceJobs
from noveval.construction.grid import TRACK as NOVBENCH_BUILT
from noveval.construction.grid import novbench_construction
from noveval.construction.judge_build import JudgeBuild
from noveval.construction.judge_plan import declared_release
from noveval.novbench.paper_tables import paper_tables
from noveval.core.provenance import config_slice
from noveval.core.site import Site
from noveval.workflow.stage import stage_code
from noveval.workflow.wildcards import constraints
from noveval.inference.workloads import PlanSettings, measured_path

# What several rule files read, made once here (the rule files define only their own rules).
# The authors' upstream files of each study, fetched by rule upstream_file.
NOVBENCH_UPSTREAM = f"{RESULTS}/downloads/upstream/novbench"
JUDGE_UPSTREAM = f"{RESULTS}/downloads/upstream/judges"
JUDGE_RETRIEVAL = config["judges"]["retrieval"]
# NovBench built from raw sources (config construction.novbench), a grid of its own.
NOVBENCH_CONSTRUCTION = novbench_construction(config, REGISTRY, NOVBENCH_UPSTREAM)
GRIDS[NOVBENCH_BUILT] = NOVBENCH_CONSTRUCTION
# The judge study's benchmark built from a venue's notes (config construction.judges), and its
# release's expected instances, for the compute plan before it is built.
CONSTRUCTION_JUDGES = config.get("construction", {}).get("judges")
BUILD = JudgeBuild(CONSTRUCTION_JUDGES, RESULTS) if CONSTRUCTION_JUDGES else None
BUILT_RELEASE_DECLARED = (
    declared_release(CONSTRUCTION_JUDGES, BUILD.release_files) if BUILD else {}
)
# The appendix tables each dataset declares (config novbench.paper_tables).
PAPER_TABLES = paper_tables(config)
# Each inference batch's chunks and their SLURM resources, from the site file the SLURM profile
# reads.
JOBS = InferenceJobs(GRIDS, REGISTRY, config, Site.load())
PLAN_SETTINGS = PlanSettings.from_config(config)
MEASURED = measured_path(config)  # the pilot's measured file (rules/pilot.smk)


# One block for the whole workflow, built from the package's names (noveval.workflow.wildcards).
wildcard_constraints:
    **constraints(),


def construction_judges_targets():
    """The judge study's built release and its construction summary (rules/
    construction_judges.smk; none without config construction.judges)."""
    return BUILD.targets() if BUILD else []
