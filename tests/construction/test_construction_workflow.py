"""build_benchmarks on recorded inputs (OpenReview notes, the NLPeer sample) in one run, and a new
venue as a config: its dry run lists both constructions' jobs and the tracks on the built files,
and its plan prices them."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
import yaml
from conftest import (
    LOOPBACK_KEY,
    REPO,
    loopback_registry,
    run_snakemake,
    shared_file,
    snakemake_env,
    write_yaml,
)

from noveval.judges.instances import load_release
from noveval.novbench.records import load_release as load_novbench_release

pytestmark = pytest.mark.workflow

NOTES = REPO / "tests" / "fixtures" / "openreview" / "iclr_notes.json"
NLPEER_SAMPLE = REPO / "data" / "sample" / "nlpeer"
JUDGES_CORPUS = REPO / "data" / "sample" / "judges" / "corpus.yaml"
SETUPS = ("human-only", "human-plus-generated")
FORMATS = ("pairwise", "pointwise")


# What the loopback gpt-4o-mini answers every NovBench construction call: "yes" to each sentence,
# and a gold text with one positive item to the normalisation.
BUILDER_ANSWER = (
    "Yes\n\nPositive Novelty Evaluations\n- Learned byte patches are new for translation."
)
BUILDER = "gpt-4o-mini"


def test_build_benchmarks_writes_both_releases_the_readers_read_and_scores_the_extraction(
    tmp_path, loopback
):
    """One run builds both benchmarks: the judge study's from the recorded OpenReview notes
    (SmolLM2 at tiny budgets), NovBench from the NLPeer sample's 3 papers (gpt-4o-mini on the
    loopback server: 2 kept, 1 left out), and scores the context and step prompts (1 labelled
    sentence) and the review prompt (1 + 1) with SmolLM2 at 8 new tokens, into the reproduction
    report's Appendix A/B rows."""
    novbench_upstream = shared_file("novbench", "upstream")
    labels = {
        "models": ["smollm2-135m"],
        "prompts": ["context", "step"],
        "limit": 1,
        "introduction_labels": str(
            shared_file("novbench", "coling2020_intro_sentence_labels.gbk.csv")
        ),
        "review_labels": {
            "novelty": str(shared_file("novbench", "review_sentences_novelty.json")),
            "other": str(shared_file("novbench", "review_sentences_not_novelty.json")),
        },
    }
    overlay = write_yaml(
        tmp_path / "build.yaml",
        {
            "results": str(tmp_path / "results"),
            "registry": str(loopback_registry(tmp_path / "models.yaml", loopback, BUILDER)),
            "upstream": {
                "judges": str(shared_file("novelty-eval", "upstream")),
                "novbench": str(novbench_upstream),
            },
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
                },
                "novbench": {
                    "name": "sample",
                    "nlpeer": str(NLPEER_SAMPLE),
                    "sentence_model": BUILDER,
                    "normalisation_model": BUILDER,
                    "decoding": {"temperature": 0.0, "max_tokens": 8},
                    "retrieval": {"corpus": str(JUDGES_CORPUS), "top_k": 2},
                    "validation": labels,
                },
            },
        },
    )
    built_novbench = tmp_path / "results" / "novbench_construction"
    scores_path = built_novbench / "extraction" / "scores.csv"
    configs = ("--configfile", "config/config.yaml", str(overlay))
    reference = yaml.safe_load((REPO / "config" / "models.yaml").read_text())["models"][BUILDER]
    loopback.answers[reference["reference"]] = BUILDER_ANSWER
    try:
        run_snakemake(
            "--cores", "2", "build_benchmarks", "reproduction", *configs,
            env=snakemake_env(**LOOPBACK_KEY),
        )  # fmt: skip
    finally:
        loopback.answers.pop(reference["reference"])

    # The judge study's release.
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

    # NovBench's release, and the extraction scored against the authors' labels.
    papers = load_novbench_release(built_novbench / "sample" / "release.json")
    assert papers["paper_id"].tolist() == ["paper-a", "paper-b"]
    assert papers["gold_labels"].tolist() == [["Positive"], ["Positive"]]
    assert [len(titles) for titles in papers["retrieved_titles"]] == [2, 2]
    assert len(papers["descriptions"].iloc[1]) == 3  # every sentence of paper-b said yes
    novbench_summary = (built_novbench / "sample" / "summary.md").read_text()
    assert "3 papers read, 2 records written, 1 left out." in novbench_summary
    assert "| paper-c | read | no Introduction heading |" in novbench_summary
    scores = pd.read_csv(scores_path)
    assert scores[["prompt", "sentences", "positives"]].values.tolist() == [
        ["context", 1, 0],
        ["step", 1, 0],
        ["review", 2, 1],
    ]
    assert scores["unanswered"].sum() == 0
    # The reproduction report's Appendix A/B rows: SmolLM2 on 1 + 2 of the labelled sentences at
    # 8 new tokens is not the paper's run, and each row says how.
    report = pd.read_csv(tmp_path / "results" / "reproduction" / "report.csv")
    appendix = report[report["table"].isin(["A", "B"])].set_index(["table", "metric"])
    assert len(appendix) == 4 and (appendix["verdict"] == "not comparable").all()
    assert appendix.loc[("A", "accuracy"), "our_value"] == 1.0  # its one sentence, said no
    reason = appendix.loc[("B", "macro_f1"), "reason"]
    assert (
        "model smollm2-135m (paper: gpt-4o-mini)" in reason and "sentences 2 (paper: 993)" in reason
    )


def test_a_new_venue_dry_runs_both_constructions_before_the_tracks_and_plans_their_calls(tmp_path):
    """Before the venue's NLPeer folder and corpus exist: the dry run plans both builds and the
    tracks on their files, and the plan prices every construction step."""
    venue = yaml.safe_load((REPO / "config" / "new-venue.yaml").read_text())
    results = tmp_path / "results"
    built = results / "construction" / "judges" / "iclr2026" / "release"
    layout = {s: {f: str(built / s / f"{f}.yaml") for f in FORMATS} for s in SETUPS}
    novbench = venue["novbench"]["datasets"]["iclr2026"]
    novbench_release = results / "novbench_construction" / "iclr2026" / "release.json"
    overlay = write_yaml(
        tmp_path / "results.yaml",
        {
            "results": str(results),
            "novbench": {"datasets": {"iclr2026": {**novbench, "path": str(novbench_release)}}},
            "judges": {"datasets": {**venue["judges"]["datasets"], "iclr2026": layout}},
        },
    )
    configs = ("--configfile", "config/config.yaml", "config/new-venue.yaml", str(overlay))
    dry = run_snakemake("-n", "--cores", "1", "all", *configs).stdout
    for rule in (
        "construction_judges_notes",
        "construction_judges_infer",
        "judges_instances",
        "construction_novbench_sources",
        "construction_novbench_sentence_requests",
        "construction_novbench_normalisation_requests",
        "construction_novbench_retrieval",
        "construction_novbench_release",
        "novbench_papers",
    ):
        assert f"rule {rule}:" in dry
    # The construction's calls answered by rule infer_api (gpt-5 labels, gpt-4o normalises).
    built_jobs = re.findall(r"novbench_construction/iclr2026/(gpt-[\w.-]+)/responses/(\w+)/", dry)
    assert set(built_jobs) == {("gpt-5", "sentences"), ("gpt-4o", "normalisation")}
    run_snakemake("--cores", "1", "plan", *configs)
    plan = pd.read_csv(results / "plan" / "compute_plan.csv")
    steps = plan[plan["model"] != "all"].set_index("step")
    assert set(steps.loc[["judges/signals", "judges/strip", "judges/generation"], "track"]) == {
        "construction"
    }
    expected = 1000  # the venue's expected papers, until its NLPeer folder is there
    assert steps.loc["build/introduction_sentences", "requests"] == expected * 26
    assert steps.loc["build/review_sentences", "requests"] == expected * 45
    assert steps.loc["build/normalisation", "requests"] == expected
    constructions = steps[steps["track"].isin(["construction", "novbench_construction"])]
    assert (constructions["api_cost_usd"] > 0).all()


@pytest.mark.parametrize(
    ("config", "papers", "introduction", "review"),
    [("coling2020", 89, 26.3, 30.6), ("emnlp2023", 1684, 26, 90)],
)
def test_the_papers_constructions_dry_run_and_are_priced_one_call_per_occurrence(
    tmp_path, config, papers, introduction, review
):
    """config/<venue>-construction.yaml, before NLPeer's folder is there: the dry run lists the
    sentence and normalisation calls with the authors' models, and the plan counts one sentence
    call per expected occurrence."""
    shipped = REPO / "config" / f"{config}-construction.yaml"
    section = yaml.safe_load(shipped.read_text())["construction"]["novbench"]
    assert section["calls"] == "per_occurrence"
    overlay = write_yaml(tmp_path / "results.yaml", {"results": str(tmp_path / "results")})
    configs = ("--configfile", "config/config.yaml", str(shipped), str(overlay))
    dry = run_snakemake("-n", "--cores", "1", "build_novbench", *configs).stdout
    name = section["name"]
    assert (
        "rule construction_punkt_model:" not in dry
    )  # the package's copy of Punkt: nothing to download
    calls = re.findall(rf"novbench_construction/{name}/([\w.-]+)/([\w]+)/requests.parquet", dry)
    assert {"gpt-5", "gpt-4o"} <= {model for model, _ in calls}
    assert {("gpt-5", "introduction_sentences"), ("gpt-5", "review_sentences")} <= set(calls)
    run_snakemake("--cores", "1", "plan", *configs)
    plan = pd.read_csv(tmp_path / "results" / "plan" / "compute_plan.csv")
    built = (plan["track"] == "novbench_construction") & (plan["model"] != "all")
    steps = plan[built].set_index("step")
    assert steps.loc["build/introduction_sentences", "requests"] == int(papers * introduction)
    assert steps.loc["build/review_sentences", "requests"] == int(papers * review)
    assert steps.loc["build/normalisation", "requests"] == papers
    assert (steps["api_cost_usd"] > 0).all()
    notes = (tmp_path / "results" / "plan" / "compute_plan.md").read_text()
    assert "one call per occurrence of a sentence (as the authors sent them)" in notes
