"""noveval: NovBench and the judge-instability study as one Snakemake workflow."""

from snakemake.utils import min_version, validate

from noveval.novbench.grid import novbench_grid
from noveval.registry import load_registry

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "config/schemas/config.schema.yaml")

REGISTRY = load_registry(config["registry"])
NOVBENCH = novbench_grid(config, REGISTRY)
RESULTS = config["results"]
LOGS = f"{RESULTS}/logs"
CACHE = f"{RESULTS}/cache"


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/prompts.smk"
include: "rules/inference.smk"
include: "rules/parse.smk"
include: "rules/metrics.smk"
include: "rules/tables.smk"
include: "rules/figures.smk"


rule novbench:
    input:
        expand(
            f"{RESULTS}/novbench/{{dataset}}/{{name}}",
            dataset=NOVBENCH.datasets,
            name=["table.csv", "table.md", "sentiment_radar.png"],
        ),


rule all:
    default_target: True
    input:
        rules.novbench.input,
