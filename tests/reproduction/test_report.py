"""Every table and figure of both tracks is in the Snakemake report, with its caption.

The report is built from a dry workflow: the default config plus an ideation comparison, every
output of its jobs an empty placeholder (no model runs). The browser check of a real run's report
is in tests/report_check.py, called by the end-to-end test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from conftest import REPO, run_snakemake, write_yaml
from report_check import build_report, report_contents

TARGETS = ("all", "plan", "reproduction")
CATEGORIES = {
    "novbench": "NovBench",
    "judges": "Judges",
    "plan": "Compute plan",
    "reproduction": "Reproduction",
}


@pytest.mark.workflow
def test_every_table_and_figure_is_in_the_report_with_a_caption(tmp_path):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["results"] = str(tmp_path / "results")
    config["judges"]["generation"].update(
        generators=["smollm2-135m"],
        base_setup="human-plus-generated",
        comparisons=[{"stronger": "smollm2-135m", "weaker": "gpt-4o-mini"}],
    )
    config_path = write_yaml(tmp_path / "config.yaml", config)
    dry = run_snakemake(*TARGETS, "-n", "--configfile", str(config_path))
    outputs = {
        path
        for line in re.findall(r"^\s+output: (.+)$", dry.stdout, re.M)
        for path in line.split(", ")
    }
    results_dir = f"{tmp_path}/results/"
    assert all(path.startswith(results_dir) for path in outputs)
    for path in map(Path, outputs):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    tables_and_figures = {p for p in outputs if p.endswith((".csv", ".md", ".png"))}
    names = {p.rsplit("/", 1)[1] for p in tables_and_figures}
    assert {"ideation.md", "motivation.png", "compute_plan.md", "report.md"} <= names

    report_path = tmp_path / "report.html"
    build_report(config_path, report_path, *TARGETS)
    results, categories = report_contents(report_path)
    assert set(results) == tables_and_figures
    for path, result in results.items():
        track = path.removeprefix(results_dir).split("/")[0]
        assert path in sum(categories[CATEGORIES[track]].values(), []), path
        assert result["caption"].startswith("<p>") and "Made by rule" in result["caption"], path
        assert "{{" not in result["caption"] and "{" not in "".join(result["labels"].values())
    for track in ("novbench", "judges"):
        assert set(categories[CATEGORIES[track]]) == {"sample"}
