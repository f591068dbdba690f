"""The one script of every rule: runs the stage its rule's name names (noveval.workflow.stage)."""

from noveval.workflow.stage import run_stage

run_stage(snakemake)
