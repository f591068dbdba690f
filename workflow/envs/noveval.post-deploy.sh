#!/usr/bin/env bash
# Snakemake runs this in each new environment of --sdm conda (envs/<name>.post-deploy.sh beside
# envs/<name>.yaml; its text is part of the environment's hash), after conda has installed the
# pinned pip section, from Snakemake's working directory: the checkout, where the workflow's
# config paths point. It installs the package from there, editable, so that jobs run the
# checkout's code as the Snakemake process does (an edit needs no new environment). Its
# dependencies all come pinned from the env file (--no-deps); pip check fails the environment
# if one is missing or conflicts.
set -euo pipefail
if ! grep -qs '^name = "noveval"$' pyproject.toml; then
    echo "post-deploy: $PWD is not the noveval checkout: run snakemake from the checkout" >&2
    exit 1
fi
python -m pip install --no-deps --no-build-isolation --editable .
python -m pip check
