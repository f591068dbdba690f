"""Rule judges_plan_instances: plan-form instances (release plan file or LLM rewrites)."""

from noveval.judges import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.plan_instances(
        setup=snakemake.wildcards.setup,
        format=snakemake.wildcards.format,
        plan_path=snakemake.output[0],
        release_path=snakemake.input.get("release"),
        instances_path=snakemake.input.get("instances"),
        responses_path=snakemake.input.get("responses"),
        responses_cell=snakemake.params.cell,
        upstream_root=snakemake.params.upstream_root,
    )
