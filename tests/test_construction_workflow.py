"""build_benchmarks on recorded OpenReview notes with the embedded SmolLM2, and a new venue as a
config: its dry run lists the construction jobs and the judges on the built release."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from conftest import REPO, run_snakemake, shared_file, write_yaml

from noveval.judges.instances import load_release

pytestmark = pytest.mark.workflow

NOTES = REPO / "tests" / "fixtures" / "openreview" / "iclr_notes.json"
SETUPS = ("human-only", "human-plus-generated")
FORMATS = ("pairwise", "pointwise")


def test_build_benchmarks_writes_a_release_the_judges_reader_reads(tmp_path):
    overlay = write_yaml(
        tmp_path / "build.yaml",
        {
            "results": str(tmp_path / "results"),
            "upstream": {"judges": str(shared_file("novelty-eval", "upstream"))},
            "novbench": {"datasets": {"sample": None}},
            "judges": {"datasets": {"sample": None}},
            "construction": {
                "judges": {
                    "name": "recorded",
                    "venue_ids": ["ICLR.cc/2026/Conference"],
                    "notes": str(NOTES),
                    "models": dict.fromkeys(("signals", "strip", "generation"), "smollm2-135m"),
                    # Enough for SmolLM2 to close its JSON answer; the rest stays tiny.
                    "max_tokens": {"signals": 96, "strip": 16, "generation": 16},
                }
            },
        },
    )
    configs = ("--configfile", "config/config.yaml", str(overlay))
    run_snakemake("--cores", "2", "build_benchmarks", *configs)
    built = tmp_path / "results" / "construction" / "judges" / "recorded"
    summary = json.loads((built / "summary.json").read_text())
    reasons = {record["note"]: record["reason"] for record in summary["skipped"]}
    assert {note: reasons[note] for note in ("s13", "s15", "s16", "s17")} == {
        "s13": "blocklisted title",
        "s15": "no reviews",
        "s16": "no decision",
        "s17": "malformed note: no title",
    }
    assert reasons["s14"].startswith("excluded area")
    # Four candidates (s1, s7 top; s6, s12 bottom): each labelled or left out with its rule.
    candidates = {"s1", "s6", "s7", "s12"}
    labelled = sum(summary["labelled"].values())
    assert labelled + len(candidates & reasons.keys()) == 4
    for setup in SETUPS:
        for format in FORMATS:
            path = built / "release" / setup / f"{format}.yaml"
            count = summary["files"][f"{setup}/{format}.yaml"]
            if count:
                assert len(load_release(path, setup, format)) == count
            else:
                assert yaml.safe_load(path.read_text()) == {}
    # Three identical reviews per paper: one call each (the journal answers the rest).
    signals = pd.read_parquet(built / "smollm2-135m" / "responses" / "signals.parquet")
    assert len(signals) == 12 and signals["request_id"].nunique() == 4


def test_a_new_venue_dry_runs_its_construction_before_the_judges(tmp_path):
    venue = yaml.safe_load((REPO / "config" / "new-venue.yaml").read_text())
    built = tmp_path / "results" / "construction" / "judges" / "iclr2026" / "release"
    layout = {s: {f: str(built / s / f"{f}.yaml") for f in FORMATS} for s in SETUPS}
    overlay = write_yaml(
        tmp_path / "results.yaml",
        {
            "results": str(tmp_path / "results"),
            "judges": {"datasets": {**venue["judges"]["datasets"], "iclr2026": layout}},
        },
    )
    configs = ("--configfile", "config/config.yaml", "config/new-venue.yaml", str(overlay))
    dry = run_snakemake("-n", "--cores", "1", "all", *configs).stdout
    for rule in ("construction_judges_notes", "construction_judges_infer", "judges_instances"):
        assert f"rule {rule}:" in dry
