"""The papers' grid's dry run with the SLURM profile, beside the default config's, in one run.

Every SLURM job parses the workflow again, and a lab's first step is the dry run of the paper grid:
this times ``snakemake -n`` on ``config/config.yaml config/paper.yaml`` with ``--profile
profiles/slurm`` (no cluster, key or conda needed), on the same grid without the profile (the
profile's job groups are what it adds: Snakemake checks every group job against the DAG), and on
the embedded default, each ``--repeats`` times in turn, in a scratch results folder. It prints the
median wall time of each and the ratios to the default's.

    .venv/bin/python benchmarks/bench_dry_run.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAPER = ["--configfile", "config/config.yaml", "config/paper.yaml"]
DEFAULT = ["--configfile", "config/config.yaml"]
RUNS = {
    "paper grid, SLURM profile": ["--profile", "profiles/slurm", *PAPER],
    "paper grid, no profile": ["--cores", "1", *PAPER],
    "default config": ["--cores", "1", *DEFAULT],
}


def dry_run(arguments: list[str], results: Path) -> float:
    """Seconds one dry run takes; it must succeed."""
    overlay = results / "results.yaml"
    overlay.write_text(f"results: {results / 'results'}\n")
    keys = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")
    env = {**os.environ, **dict.fromkeys(keys, ""), "SLURM_CONF": "/dev/null"}
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "--quiet",
        "rules",
        *arguments,
        str(overlay),
    ]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(repeats):  # in turn, so that a load on the machine falls on every run
            for name, arguments in RUNS.items():
                times[name].append(dry_run(arguments, Path(scratch)))
    default = statistics.median(times["default config"])
    print(f"{os.cpu_count()} CPUs, median of {repeats} dry runs each")
    for name, measured in times.items():
        median = statistics.median(measured)
        print(f"{name:28s} {median:6.1f} s  ({median / default:4.1f} x the default config's)")


if __name__ == "__main__":
    main()
