from noveval.provenance import config_slice
from noveval.workflow.stage import stage_code
from noveval.workflow.wildcards import constraints


# One block for the whole workflow, built from the package's names (noveval.workflow.wildcards).
wildcard_constraints:
    **constraints(),


def construction_judges_targets():
    """The judge study's built release and its construction summary (rules/
    construction_judges.smk; none without config construction.judges)."""
    return BUILD.targets() if BUILD else []
