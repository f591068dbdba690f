"""The cluster side: SLURM resources and environments of the jobs, the pilot, and preflight."""
