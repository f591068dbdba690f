"""Pre-flight checks of a cluster run: ``snakemake preflight --profile profiles/slurm ...``.

Run on the login node before the grid, it checks what a run needs and cannot fix itself: the
site file, the site's partitions and GPU types as SLURM knows them, the weights cache (writable,
with room for the weights not downloaded yet), a pinned revision of every open model and hub
scorer and that commit on the hub, the chat template of each downloaded open model against the
role sequences of our requests, a Hugging Face token with access to each gated model, each API
key, that each hosted model is still served (the provider's model lookup; a retired one is named
with the published numbers it can no longer reproduce), each configured substitution of a model,
glibc where vLLM is installed and runs, conda and the disk its environments take (under conda
deployment), the NVIDIA driver of each GPU type of the grid, and that every planned inference job
fits a partition. Each check reports findings (``noveval.cluster.preflight.findings.Finding``), one
line each (OK, WARN, FAIL, or SKIP with why), and the rule fails after the last one when any failed.
The checks are registered in ``noveval.cluster.preflight.run.CHECKS``, one module per concern.
"""
