from noveval.provenance import code_version, config_slice
from noveval.wildcards import constraints


# One block for the whole workflow, built from the package's names (noveval.wildcards).
wildcard_constraints:
    **constraints(),
