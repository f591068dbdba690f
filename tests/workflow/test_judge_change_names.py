"""A judge change is named once, in ``noveval.judges.grid.cells.CONTROLLED``: with that one edit
(and no other) the config schema takes it, the ``change`` wildcard admits it and the grid has its
cells (docs/extending.md, "Add a judge change")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import REPO, config_schema
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from noveval.judges.grid import cells
from noveval.workflow.config_schema import names
from noveval.workflow.wildcards import constraints

# Run in a copy of the package whose CONTROLLED names one more change.
PROBE = """
import json, re, sys
from pathlib import Path
import yaml
from snakemake.utils import validate
from noveval.core.registry import load_registry
from noveval.judges.grid.build import judges_grid
from noveval.workflow.config_schema import schema_file
from noveval.workflow.wildcards import constraints

config = yaml.safe_load(Path("config/config.yaml").read_text())
config["judges"]["changes"] = ["reference", "toy"]
config["judges"]["idea_formats"] = {"purpose_mechanism": ["toy"]}
config["judges"]["calls_by_change"] = {"toy": {"pointwise": 1}}
validate(config, schema_file("workflow/schemas/config.schema.yaml"))
grid = judges_grid(config, load_registry(config["registry"]))
print(json.dumps({
    "admitted": bool(re.fullmatch(constraints()["change"], "toy")),
    "cells": sorted({(cell.format, cell.label) for cell in grid.cells}),
}))
"""


def toy_config() -> dict:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["judges"]["changes"] = ["reference", "toy"]
    return config


def test_the_schema_lists_are_the_package_constants():
    schema = json.loads(open(config_schema()).read())
    judges = schema["properties"]["judges"]["properties"]
    assert judges["changes"]["items"]["enum"] == list(cells.CONTROLLED)
    assert judges["systems"]["propertyNames"]["enum"][:-1] == list(names()["judge systems"])
    assert "{'names'" not in json.dumps(schema)  # every list filled


def test_a_judge_change_is_one_edit_of_one_constant(tmp_path):
    config = toy_config()
    with pytest.raises(WorkflowError):
        validate(config, config_schema())  # unnamed: refused
    assert not re.fullmatch(constraints()["change"], "toy")

    package = tmp_path / "src" / "noveval"
    shutil.copytree(REPO / "src" / "noveval", package)
    source = package / "judges" / "grid" / "cells.py"
    text = source.read_text()
    edited = text.replace('    "no_aggregation",\n)', '    "no_aggregation",\n    "toy",\n)', 1)
    assert edited != text
    source.write_text(edited)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    probe = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout.splitlines()[-1])
    assert found["admitted"]
    assert {tuple(cell) for cell in found["cells"]} >= {
        ("pairwise", "toy"),
        ("pointwise", "toy"),
        ("pairwise", "toy+purpose_mechanism"),
    }
