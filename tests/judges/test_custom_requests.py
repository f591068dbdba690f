"""A custom judge's requests and verdicts on the shipped sample, without any model."""

import json

import pandas as pd
from conftest import REPO

from noveval.core.registry import load_registry
from noveval.judges.cards.judge import custom_judge
from noveval.judges.cards.requests import REVIEWERS_CUE, custom_requests
from noveval.judges.instances import load_release
from noveval.judges.prompts import split_item_id
from noveval.judges.verdicts import calls_from_responses

SAMPLE = REPO / "data" / "sample" / "judges"
REGISTRY = load_registry(REPO / "config" / "models.yaml")
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 32}
JUDGE = custom_judge(
    "mine",
    {
        "model": "smollm2-135m",
        "system": "You judge novelty.",
        "pairwise": "First: {{ idea_1 }}\nSecond: {{ idea_2 }}\n"
        "{% for works in related %}{{ works | length }} works\n{% endfor %}Answer: first or second",
        "calls": 2,
        "answer": {
            "regex": r"answer:\s*(first|second)",
            "labels": {"first": "idea_1", "second": "idea_2"},
        },
        "variants": {"terse": {"pairwise": "{{ idea_1 }} or {{ idea_2 }}? Answer: first|second"}},
    },
    REGISTRY,
)


def pairs():
    frame = load_release(SAMPLE / "human-only" / "pairwise.yaml", "human-only", "pairwise")
    return frame.to_dict("records")[:2]


def test_requests_swap_the_ideas_repeat_the_calls_and_differ_by_wording():
    spec = REGISTRY.model("smollm2-135m")
    rows = custom_requests(JUDGE, pairs(), spec, DECODING)
    assert len(rows) == 2 * 2 * 2 and len({r["request_id"] for r in rows}) == 8
    assert [split_item_id(r["item_id"])[1:] for r in rows[:4]] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    first, swapped = json.loads(rows[0]["messages"]), json.loads(rows[2]["messages"])
    ideas = pairs()[0]["ideas"]
    assert first[0] == {"role": "system", "content": "You judge novelty."}
    assert first[1]["content"].startswith(f"First: {ideas[0]}")
    assert swapped[1]["content"].startswith(f"First: {ideas[1]}")
    terse = custom_requests(JUDGE, pairs(), spec, DECODING, wording="terse")
    assert {r["request_id"] for r in terse}.isdisjoint(r["request_id"] for r in rows)


def test_retrieval_fills_the_related_field_for_that_change_only():
    spec = REGISTRY.model("smollm2-135m")
    instance = pairs()[0]
    related = {instance["instance_id"]: [["a", "b"], ["c"]]}
    on = custom_requests(JUDGE, [instance], spec, DECODING, change="retrieval", related=related)
    off = custom_requests(JUDGE, [instance], spec, DECODING, related=related)
    assert "2 works\n1 works" in json.loads(on[0]["messages"])[1]["content"]
    assert "1 works\n2 works" in json.loads(on[2]["messages"])[1]["content"]  # swapped
    assert "works" not in json.loads(off[0]["messages"])[1]["content"]


def test_unparseable_answers_are_counted_not_raised():
    responses = pd.DataFrame(
        {
            "item_id": ["p|0|0", "p|1|0", "q|0|0"],
            "text": ["Answer: second", "no idea", "ANSWER: First"],
            "error": [None, None, None],
            "input_tokens": [1, 1, 1],
            "output_tokens": [1, 1, 1],
            "cost_usd": [0.0, 0.0, 0.0],
        }
    )
    calls = calls_from_responses(responses, "pairwise", parse=JUDGE.verdict)
    assert calls["choice"].tolist() == [1, pd.NA, 0]
    assert calls["failed"].tolist() == [False, True, False]


def test_the_reviewers_cue_opens_the_pairwise_prompt_and_changes_nothing_else():
    spec = REGISTRY.model("smollm2-135m")
    plain = custom_requests(JUDGE, pairs(), spec, DECODING)
    cued = custom_requests(JUDGE, pairs(), spec, DECODING, change="reviewers_cue")
    assert len(cued) == len(plain)
    for with_cue, without in zip(cued, plain):
        shown, bare = json.loads(with_cue["messages"]), json.loads(without["messages"])
        assert shown[0] == bare[0]  # the system prompt
        assert shown[1]["content"] == f"{REVIEWERS_CUE}\n\n{bare[1]['content']}"
        assert with_cue["item_id"] == without["item_id"]
        assert with_cue["request_id"] != without["request_id"]
