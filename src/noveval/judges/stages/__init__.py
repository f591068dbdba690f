"""The judges' stages as file-to-file functions; each Snakemake rule calls exactly one."""
