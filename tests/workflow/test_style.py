"""The project's own style gates: ruff, snakefmt and Snakemake's linter stay clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, snakemake_env

BIN = Path(sys.executable).parent
CHECKS = {
    "ruff check": [BIN / "ruff", "check", "src", "tests", "workflow/scripts", "benchmarks"],
    "ruff format": [
        BIN / "ruff",
        "format",
        "--check",
        "src",
        "tests",
        "workflow/scripts",
        "benchmarks",
    ],
    "snakefmt": [BIN / "snakefmt", "--check", "."],
    "snakemake --lint": [sys.executable, "-m", "snakemake", "--lint"],
}


@pytest.mark.parametrize("name", CHECKS)
def test_style_gate_is_clean(name):
    result = subprocess.run(
        [str(part) for part in CHECKS[name]],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=snakemake_env(),
        timeout=300,
    )
    assert result.returncode == 0, (
        f"{name} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
