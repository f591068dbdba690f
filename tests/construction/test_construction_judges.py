"""The judge study's data built from OpenReview notes: recorded notes (tests/fixtures/openreview),
the labelling rules on hand-made score tables, area pairing and the release layout."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, shared_file
from loopback_openreview import LoopbackOpenReview

from noveval.construction import (
    judge_build,
    judge_calls,
    judge_plan,
    judge_release,
    openreview_notes,
    selection,
)
from noveval.construction.judge_plan import construction_workloads
from noveval.construction.stages.judges_candidates import candidates
from noveval.core.registry import load_registry
from noveval.inference.workloads import PlanSettings
from noveval.judges.authors import blocked_titles
from noveval.judges.instances import load_release
from noveval.planning.table import plan_table

NOTES = REPO / "tests" / "fixtures" / "openreview" / "iclr_notes.json"
RL, OPT = "reinforcement learning", "optimization"


def venue():
    skipped = openreview_notes.Skipped()
    return openreview_notes.submissions(openreview_notes.read_notes(NOTES), skipped), skipped


def test_recorded_notes_become_records_and_every_skip_names_its_note():
    records, skipped = venue()
    assert len(records) == 14
    assert {(r["note"], r["reason"]) for r in skipped.records} == {
        ("s15", "no reviews"),
        ("s16", "no decision"),
        ("s17", "malformed note: no title"),
    }
    by_id = {r["id"]: r for r in records}
    # The decision of s2 comes from its Decision reply (it has no venue); comments are no reviews.
    assert by_id["s2"]["decision"] == openreview_notes.ACCEPTED
    assert by_id["s3"]["decision"] == openreview_notes.UNACCEPTED
    assert len(by_id["s1"]["reviews"]) == 3
    # "1: poor", "2: fair", "1: poor" → 4/3.
    assert by_id["s6"]["contribution"] == pytest.approx(4 / 3)
    assert by_id["s7"]["rating"] == 9.0


@pytest.mark.parametrize(
    ("note", "reason"),
    [
        ("not a note", "malformed note: not a JSON object"),
        ({"id": "x", "content": "text"}, "malformed note: no content"),
        (
            {"id": "x", "content": {"title": {"value": "T"}, "abstract": {"value": "A"}}},
            "malformed note: no primary area",
        ),
        (
            {
                "id": "x",
                "content": {f: {"value": "v"} for f in ("title", "abstract", "primary_area")},
                "details": {"replies": [{"content": {}}]},
            },
            "malformed note: a reply without invitations",
        ),
    ],
)
def test_a_malformed_note_is_skipped_with_its_reason(note, reason):
    skipped = openreview_notes.Skipped()
    assert openreview_notes.submissions([note], skipped) == []
    assert [r["reason"] for r in skipped.records] == [reason]


def test_decile_thresholds_on_a_hand_made_score_table():
    records = [{"area": "a", "rating": r} for r in range(1, 11)] + [
        {"area": "b", "rating": r} for r in (2, 3, 4, 5, 6, 8)
    ]
    # 10th percentile of 1..10: position 0.9 → 1.9; 90th: position 8.1 → 9.1.
    # 2,3,4,5,6,8: position 0.5 → 2.5; position 4.5 → 7.0.
    assert selection.area_thresholds(records, 10) == {
        "a": pytest.approx((1.9, 9.1)),
        "b": pytest.approx((2.5, 7.0)),
    }


def test_candidates_drop_the_catch_all_area_and_the_blocklist_before_the_deciles():
    records, skipped = venue()
    blocked = blocked_titles(shared_file("novelty-eval", "upstream"))
    found = selection.candidates(records, selection.Rules(), blocked, skipped)
    assert {(r["id"], r["pool"]) for r in found} == {
        ("s1", "POSITIVE"),
        ("s6", "NEGATIVE"),
        ("s7", "POSITIVE"),
        ("s12", "NEGATIVE"),
    }
    reasons = {r["note"]: r["reason"] for r in skipped.records}
    assert reasons["s13"] == "blocklisted title"
    assert reasons["s14"].startswith("excluded area 'other topics in machine learning")


def review(positive=(), negative=()):
    return {"positive_signals": list(positive), "negative_signals": list(negative)}


def candidate(pool, reviews, decision="Accepted", rating=8.0, contribution=3.0):
    return {
        "id": "n",
        "title": "t",
        "pool": pool,
        "decision": decision,
        "rating": rating,
        "contribution": contribution,
        "reviews": reviews,
    }


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (candidate("POSITIVE", [review("new"), review("first"), review()]), None),
        (
            candidate("POSITIVE", [review("new"), review(), review()]),
            "only 1 of 3 reviews give positive signals",
        ),
        (
            candidate("POSITIVE", [review("new"), review("first"), review(negative="known")]),
            "a review gives negative signals",
        ),
        (
            candidate("POSITIVE", [review("new")], decision="Unaccepted"),
            "top candidate not accepted",
        ),
        (candidate("POSITIVE", [review("new")], rating=5.5), "top candidate rated 5.50 < 6.0"),
        (
            candidate("POSITIVE", [review("new")], contribution=2.5),
            "top candidate contribution 2.5 < 3.0",
        ),
        (
            candidate("NEGATIVE", [review(negative="old")] * 2, "Unaccepted", 3.0, 2.0),
            None,
        ),
        (
            candidate("NEGATIVE", [review(negative="old")], "Unaccepted", 4.0, 2.0),
            "bottom candidate rated 4.00 > 3.5",
        ),
        (
            candidate("NEGATIVE", [review(negative="old"), review("new")], "Unaccepted", 3.0, 2.0),
            "a review gives positive signals",
        ),
        (
            candidate("NEGATIVE", [review()], "Unaccepted", 3.0, 2.0),
            "no review gives negative signals",
        ),
    ],
)
def test_labelling_rules(record, reason):
    assert selection.rejection(record, selection.Rules()) == reason


def responses(answers: dict) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item_id": item, "text": text, "error": None if text is not None else "timeout"}
            for item, text in answers.items()
        ]
    )


def test_signals_are_parsed_and_unusable_answers_counted():
    records, _ = venue()
    s1 = next(r for r in records if r["id"] == "s1")
    answer = {"positive_novelty_snippets": ["the idea is novel"], "negative_novelty_snippets": []}
    found, unusable = judge_calls.with_signals(
        [s1],
        responses(
            {
                "r1_0": "```json\n" + json.dumps(answer) + "\n```",
                "r1_1": "I think it is novel.",
                "r1_2": None,
            }
        ),
    )
    assert unusable == 2
    assert [r["positive_signals"] for r in found[0]["reviews"]] == [["the idea is novel"], [], []]


def test_generated_abstracts_are_read_after_their_label():
    assert judge_calls.generated_abstract('- reasoning: "x"\n- abstract: "An idea."') == "An idea."
    assert judge_calls.generated_abstract("**Abstract**: Plain idea.") == "Plain idea."
    assert judge_calls.generated_abstract("Just an idea.") == "Just an idea."
    assert judge_calls.generated_abstract("  ") is None
    ideas, failed = judge_calls.generated_ideas(
        responses({f"{RL}|0": "abstract: RL idea", f"{RL}|1": "", f"{OPT}|0": None})
    )
    assert failed == 2
    assert ideas == {RL: [{"id": f"{RL}|0", "title": f"LLM-{RL}-0", "idea": "RL idea", "area": RL}]}


def paper(name, area, pool):
    return {
        "id": name,
        "title": name,
        "area": area,
        "idea": f"idea {name}",
        "pool": pool,
        "rating": 8.0 if pool == "POSITIVE" else 2.0,
        "contribution": 3.0,
        "reviews": [],
    }


def test_pairs_match_areas_and_reuse_the_fewer_lower_novelty_ideas():
    positives = [paper(f"p{i}", RL, "POSITIVE") for i in range(3)] + [paper("q", OPT, "POSITIVE")]
    negatives = [paper("n", RL, "NEGATIVE"), paper("m", "vision", "NEGATIVE")]
    pairs, unpaired = judge_release.pairwise(positives, negatives, seed=0)
    assert unpaired == [OPT, "vision"]
    assert len(pairs) == 3
    for instance in pairs.values():
        assert instance["context"] == RL
        (winner,) = instance["expected_winners"]
        assert instance["metadata"][winner]["type"] == "POSITIVE"
        assert instance["ideas"][1 - winner] == "idea n"
    assert sorted(p["ideas"][p["expected_winners"][0]] for p in pairs.values()) == [
        "idea p0",
        "idea p1",
        "idea p2",
    ]
    assert judge_release.pairwise(positives, negatives, seed=0) == (pairs, unpaired)


def test_area_pairs_reshuffle_before_reusing():
    rng = random.Random(1)
    pairs = judge_release.area_pairs(list(range(5)), ["a", "b"], rng)
    used = [n for _, n in pairs]
    assert sorted(used[:2]) == ["a", "b"] and sorted(used[2:4]) == ["a", "b"]


def test_the_release_written_is_read_by_the_judges_reader(tmp_path):
    positives = [paper("p", RL, "POSITIVE")]
    generated = {RL: [{"id": f"{RL}|0", "title": f"LLM-{RL}-0", "idea": "gen", "area": RL}]}
    pools = judge_release.setup_pools([*positives, paper("n", RL, "NEGATIVE")], generated)
    for setup, (pos, neg) in pools.items():
        pairs, _ = judge_release.pairwise(pos, neg, seed=3)
        judge_release.write_instances(pairs, tmp_path / setup / "pairwise.yaml")
        judge_release.write_instances(
            judge_release.pointwise(pos, neg, 3), tmp_path / setup / "pointwise.yaml"
        )
    human = load_release(tmp_path / "human-only" / "pairwise.yaml", "human-only", "pairwise")
    assert sorted(human.loc[0, "sources"]) == ["human-negative", "human-positive"]
    generated_pairs = load_release(
        tmp_path / "human-plus-generated" / "pairwise.yaml", "human-plus-generated", "pairwise"
    )
    assert sorted(generated_pairs.loc[0, "sources"]) == ["generated", "human-positive"]
    ideas = load_release(tmp_path / "human-only" / "pointwise.yaml", "human-only", "pointwise")
    assert sorted(zip(ideas["titles"].map(tuple), ideas["label"])) == [(("n",), 0), (("p",), 1)]


def test_signal_requests_render_the_authors_template_for_reviews_with_both_sections():
    records, _ = venue()
    s1 = next(r for r in records if r["id"] == "s1")
    s1["reviews"][2] = {**s1["reviews"][2], "weaknesses": ""}  # no Weaknesses: no call
    spec = load_registry("config/models.yaml").model("smollm2-135m")
    rows = judge_calls.signal_requests(
        [s1], shared_file("novelty-eval", "upstream"), spec, {"max_tokens": 64, "seed": 0}
    )
    assert list(rows["item_id"]) == ["r1_0", "r1_1"]
    (message,) = json.loads(rows.iloc[0]["messages"])
    assert "### Strengths Section:\n" + s1["reviews"][0]["strengths"] in message["content"]
    assert message["content"].rstrip().endswith("}")
    # The same review text renders the same call: the journal answers it once.
    assert rows["request_id"].nunique() == 1


def test_the_plan_counts_each_steps_calls_from_the_expected_venue():
    settings = {
        "name": "v",
        "labels": {"percentile": 10},
        "expected": {
            "submissions": 100,
            "reviews_per_submission": 4,
            "review_chars": 3000,
            "abstract_chars": 1800,
            "pairs": 7,
            "ideas": 15,
        },
    }
    # Top and bottom 10% of 100 submissions, 4 reviews each: 80 signal calls.
    assert judge_plan.stage_calls(settings) == {
        "signals": (80, 3000),
        "strip": (15, 1800),
        "generation": (7, judge_plan.AREA_CHARS),
    }
    files = judge_build.JudgeBuild({"name": "v"}, "out").release_files
    declared = judge_plan.declared_release(settings, files)
    assert declared["out/construction/judges/v/release/human-only/pairwise.yaml"] == 7
    assert declared["out/construction/judges/v/release/human-plus-generated/pointwise.yaml"] == 15


def test_the_new_venue_plan_prices_each_construction_step():
    registry = load_registry("config/models.yaml")
    venue = yaml.safe_load(Path("config/new-venue.yaml").read_text())["construction"]["judges"]
    settings = {
        **venue,
        "labels": {"percentile": 10},
        "expected": {
            "submissions": 1000,
            "reviews_per_submission": 4,
            "review_chars": 3000,
            "abstract_chars": 1800,
            "pairs": 10,
            "ideas": 20,
        },
    }
    workloads = construction_workloads(
        settings, {"max_tokens": 4096}, registry, "no-upstream-here", PlanSettings()
    )
    table = plan_table(workloads, registry, concurrency=16, settings=PlanSettings())
    rows = table[table["model"] != "all"].set_index("step")
    assert rows.loc["judges/signals", "requests"] == 800  # 2 x 10% x 1000 x 4
    assert rows.loc["judges/signals", "rule"] == "construction_judges_infer"
    # A template not on disk counts 4,000 characters: (4000 + 3000) / 4 tokens per call.
    assert rows.loc["judges/signals", "input_tokens"] == 800 * 1750
    assert (rows["api_cost_usd"] > 0).all()


def test_fetching_a_venue_from_the_openreview_stand_in_gives_the_recorded_notes():
    recorded = openreview_notes.read_notes(NOTES)
    venue_ids = ["ICLR.cc/2026/Conference", "ICLR.cc/2026/Conference/Rejected_Submission"]
    with LoopbackOpenReview(recorded) as api:
        fetched = openreview_notes.fetch_notes(venue_ids, api.url, "~Loop_Back1", "pw")
        with pytest.raises(Exception, match="Invalid username or password"):
            openreview_notes.fetch_notes(venue_ids, api.url, "~Loop_Back1", "wrong")
    # s17 has no venue id: it is no submission of the venue.
    assert sorted(n["id"] for n in fetched) == sorted(n["id"] for n in recorded if n["id"] != "s17")
    assert {n["id"]: n for n in fetched}["s1"]["details"] == recorded[0]["details"]
    queries = [query for path, query in api.requests if path == "/notes"]
    assert {q["content.venueid"] for q in queries} == set(venue_ids)
    assert all(q["details"] == "replies" for q in queries)
    skipped = openreview_notes.Skipped()
    assert len(openreview_notes.submissions(fetched, skipped)) == 14


# One recorded venue per ICLR year on API v2 (the years the authors' fetch script reads), in the
# shapes the venues wrote: 2024 scores as strings ("6: marginally above ...") and lower-case venue
# words ("ICLR 2024 poster"), 2025 on integers; rejected papers as "Submitted to ICLR <year>",
# withdrawn and desk-rejected submissions, a decision only as a separate note, replies of other
# invitations (meta-reviews, comments, withdrawals), reviews without `contribution`, and shapes
# the reader does not know (an API v1 note, content that is a list).
YEARS = {
    2024: (
        {"i24_1": ("Accepted", 7.0, 3.5), "i24_2": ("Unaccepted", 4.0, 1.5)}
        | {"i24_3": ("Unaccepted", 1.0, 1.0)},  # withdrawn after its review
        {
            "i24_4": "no reviews",  # desk rejected
            "i23_5": "unknown note shape: content values are not API v2 {value: ...} fields "
            "(API v1?)",
        },
    ),
    2025: (
        {"i25_1": ("Accepted", 7.0, 3.0), "i25_2": ("Unaccepted", 4.0, 1.5)}
        | {"i25_3": ("Accepted", 6.0, 2.0)},  # the decision note only
        {
            "i25_4": "no review has a rating",
            "i25_5": "malformed note: no replies (fetch with details='replies')",
        },
    ),
    2026: (
        {"i26_1": ("Accepted", 7.0, None), "i26_2": ("Unaccepted", 3.0, 2.0)},
        {
            "i26_3": "no reviews",  # withdrawn before any review
            "i26_4": "malformed note: a reply without invitations",
            "i26_5": "malformed note: no content",
        },
    ),
}


CANDIDATE_POOLS = {
    2024: {"i24_1": "POSITIVE", "i24_2": "POSITIVE", "i24_3": "NEGATIVE"},
    2025: {"i25_1": "POSITIVE", "i25_2": "NEGATIVE", "i25_3": "POSITIVE"},
    2026: {"i26_1": "POSITIVE", "i26_2": "NEGATIVE"},
}


@pytest.mark.parametrize("year", sorted(YEARS))
def test_each_iclr_years_note_shapes_give_decisions_scores_and_counted_skips(tmp_path, year):
    notes = REPO / "tests" / "fixtures" / "openreview" / f"iclr{year}_notes.json"
    kept, reasons = YEARS[year]
    skipped = openreview_notes.Skipped()
    records = openreview_notes.submissions(openreview_notes.read_notes(notes), skipped)
    assert {r["id"]: (r["decision"], r["rating"], r["contribution"]) for r in records} == kept
    assert {r["note"]: r["reason"] for r in skipped.records} == reasons
    # The candidates step writes every skipped note with its reason; the release summary counts
    # them by reason (skipped_by_reason).
    rules = {"percentile": 50}
    out = [str(tmp_path / "candidates.json"), str(tmp_path / "skipped.json")]
    candidates(str(notes), None, rules, *out)
    written = json.loads(Path(out[1]).read_text())
    assert Counter(r["reason"] for r in written) == Counter(reasons.values())
    pools = {c["id"]: c["pool"] for c in json.loads(Path(out[0]).read_text())}
    assert pools == CANDIDATE_POOLS[year]  # top and bottom halves of the one area's ratings
