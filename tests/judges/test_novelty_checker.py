"""Scideator's Idea Novelty Checker: its readings by hand, its builtin prompts and those of the
upstream files, and its pipeline on hand-made papers against the loopback provider and Semantic
Scholar stand-in."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, shared_file
from loopback_s2 import LoopbackS2

from noveval.core.registry import load_registry
from noveval.inference.engines.client import ClientSettings
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.servers import serve
from noveval.judges.statistics.aggregation import FAILED, TIE
from noveval.judges.systems.base import verdict_rows
from noveval.judges.systems.novelty_checker.checker import (
    JOURNAL,
    Backbone,
    Cut,
    Transcript,
    decisions,
    run_checks,
)
from noveval.judges.systems.novelty_checker.prompts import (
    BuiltinPrompts,
    Prompts,
    UpstreamFunction,
    decision_of,
    load_prompts,
    opened_file,
    parse_checker_verdict,
    parse_keywords,
)
from noveval.judges.systems.novelty_checker.ranking import (
    embedding_text,
    most_similar,
    permutation,
    reranked,
    windows,
)
from noveval.judges.systems.novelty_checker.search import (
    Literature,
)
from noveval.literature.semantic_scholar import SemanticScholar

REGISTRY = load_registry(REPO / "config" / "models.yaml")


def checker_copy() -> Path:
    """The shared copy of simra-shahid/idea_novelty_checker at the pinned commit."""
    return shared_file("novelty-eval", "model-code", "novelty_checker")


# Prompt functions written like the checker's, small enough to check by hand.
PIPELINE = """
def prompt_PaperRetrieval_Keywords(idea):
    prompt = [{"role": "system", "content": "keywords"}, {"role": "user", "content": idea}]
    return prompt

def prompt_RankGPT_IdeaFacets(idea):
    return [{"role": "user", "content": f"facets of <idea> {idea} </idea>"}]

def prompt_RankGPT_prefixRankingPriority(query, idea_priority_facets, num):
    return [{"role": "system", "content": f"rank {num} for {query} by {idea_priority_facets}"}]

def prompt_RankGPT_IdeaPriority(query, facets, number_of_passages):
    prompt2 = f"rank the {number_of_passages}"
    return prompt2
"""
CHECKER = """
def prompt_NoveltyChecker_allowsIncrementalNovelty(idea, similar_documents, incontext_part):
    relevant_papers = []
    for i, (_, row) in enumerate(similar_documents.iterrows()):
        relevant_papers.append({"role": "user", "content": f"[{i}] {row['title']}"})
    prompt = [{"role": "user", "content": f"{incontext_part} <IDEA> {idea} </IDEA>"}]
    prompt.extend(relevant_papers)
    return prompt
"""


def hand_prompts() -> Prompts:
    def read(source, name):
        return UpstreamFunction(source, name, "hand")

    return Prompts(
        read(PIPELINE, "prompt_PaperRetrieval_Keywords"),
        read(PIPELINE, "prompt_RankGPT_IdeaFacets"),
        read(PIPELINE, "prompt_RankGPT_prefixRankingPriority"),
        read(PIPELINE, "prompt_RankGPT_IdeaPriority"),
        read(CHECKER, "prompt_NoveltyChecker_allowsIncrementalNovelty"),
        "EXAMPLES",
    )


def test_keywords_and_titles_are_the_tagged_python_lists():
    text = "<keywords>['byte models', 'tokenizer free']</keywords>\n<titles>\n['Bytes']\n</titles>"
    assert parse_keywords(text) == (["byte models", "tokenizer free"], ["Bytes"])
    assert parse_keywords("<keywords>[unclosed</keywords>") == ([], [])
    assert parse_keywords("no tags") == ([], [])


def test_the_verdict_is_read_as_their_parse_output_and_runner_do():
    answer = "**Class:** Not Novel\n\nReview: The idea is not novel because [2]: it repeats it."
    review = "The idea is not novel because [2] it repeats it."
    assert parse_checker_verdict(answer) == ("not novel", review)
    # their cleaning stops at the "-" of the next line: the bracket stays, the runner drops it
    assert parse_checker_verdict("- Class: [novel]\n- Review: new.") == ("novel]", "new.")
    assert decision_of("novel]") == 1
    assert parse_checker_verdict("Class: novel, no review") is None  # their split fails: no verdict
    classes = ("novel", "not novel", "not quite novel", "somewhat novel")
    assert [decision_of(c) for c in classes] == [1, 0, 0, 1]
    assert decision_of("unclear") is None and decision_of(None) is None


def test_rankgpt_windows_run_back_to_front_and_need_twenty_passages():
    assert windows(19) == []
    assert windows(20) == [(0, 20)]
    assert windows(45) == [(25, 45), (15, 35), (5, 25)]  # 0..4 are never reranked
    assert windows(7, 5, 10) == [(2, 7)] and windows(7, 3, 2) == [(4, 7), (2, 5), (0, 3)]
    assert permutation("[3] > [1] > [3] > [9]", 4) == [2, 0, 1, 3]  # repeats and 9 dropped
    assert permutation("nothing", 2) == [0, 1]


def test_windows_reorder_in_turn_and_a_missing_answer_keeps_its_window():
    papers = [{"title": f"t{i}", "abstract": "a"} for i in range(30)]
    # (10, 30) moves its 20th passage (t29) first; then (0, 20) moves its 11th (now t29) first.
    order = reranked(papers, {(10, 30): "[20]", (0, 20): "[11] > [1]"})
    assert [p["title"] for p in order[:3]] == ["t29", "t0", "t1"]
    assert [p["title"] for p in order[10:12]] == ["t9", "t10"]
    assert reranked(papers, {(10, 30): None, (0, 20): None}) == papers
    # one window of 5 over the last 5 of 7: its 5th (t6) first among them
    assert [p["title"] for p in reranked(papers[:7], {(2, 7): "[5]"}, 5, 10)] == [
        "t0", "t1", "t6", "t2", "t3", "t4", "t5",
    ]  # fmt: skip


def test_the_most_similar_papers_by_cosine_without_the_abstractless():
    papers = [
        {"title": "a", "abstract": "x"},
        {"title": "b", "abstract": None},
        {"title": "c", "abstract": "z"},
        {"title": "d", "abstract": "w"},
    ]
    vectors = {
        embedding_text("", "idea"): [1.0, 0.0],
        "a[SEP]x": [0.0, 1.0],  # cosine 0
        "b[SEP] ": [1.0, 0.0],  # cosine 1, but no abstract: dropped after the cut
        "c[SEP]z": [1.0, 1.0],  # cosine 0.707
        "d[SEP]w": [3.0, 0.0],  # cosine 1
    }
    kept = most_similar("idea", papers, lambda texts: {t: np.array(vectors[t]) for t in texts}, 3)
    assert [p["title"] for p in kept] == ["d", "c"]
    assert kept[1]["similarity"] == pytest.approx(2**-0.5)


def test_the_builtin_keywords_prompt_shows_the_shape_the_checker_reads():
    prompts = load_prompts(None, {})
    assert isinstance(prompts, BuiltinPrompts)
    system, user = prompts.keywords("byte models idea")
    assert user == {"role": "user", "content": "Idea:\nbyte models idea"}
    # the answer shape the instruction shows is the one parse_keywords reads
    assert parse_keywords(system["content"]) == (
        ["keyword one", "keyword two"],
        ["A Possible Title", "Another Possible Title"],
    )
    answer = (
        "Sure.\n<keywords>['byte models', 'no tokenizer']</keywords>\n<titles>['Bytes']</titles>"
    )
    assert parse_keywords(answer) == (["byte models", "no tokenizer"], ["Bytes"])
    (facets,) = prompts.facets("byte models idea")
    assert facets["role"] == "user" and facets["content"].endswith(
        "<idea> byte models idea </idea>"
    )


def test_the_builtin_rerank_window_gives_the_facets_and_asks_for_an_order():
    window = load_prompts(None, {}).rerank("IDEA", "FACETS", ["p one", "p two"])
    assert window[0]["role"] == "system"
    assert (
        "rank 2 passages" in window[0]["content"] and "Key facets: FACETS" in window[0]["content"]
    )
    assert window[1:5] == [
        {"role": "user", "content": "[1] p one"},
        {"role": "assistant", "content": "Received passage [1]."},
        {"role": "user", "content": "[2] p two"},
        {"role": "assistant", "content": "Received passage [2]."},
    ]
    assert window[5]["role"] == "user" and "[2] > [1] > [3]" in window[5]["content"]
    assert "Key facets: (none)" in load_prompts(None, {}).rerank("I", "", ["p"])[0]["content"]
    # an answer in the asked shape, and a chatty one, give the same order
    assert permutation("[2] > [1]", 2) == permutation("Ranking: [2] > [1].", 2) == [1, 0]


def test_the_builtin_verdict_shows_our_examples_and_the_papers_numbered_from_zero():
    papers = [{"title": "T0", "abstract": "A0"}, {"title": "T1", "abstract": "A1"}]
    system, user = load_prompts(None, {}).verdict("IDEA", papers)
    assert user["content"] == (
        "Idea:\nIDEA\n\nPapers:\nPaper [0]: T0. Abstract: A0\nPaper [1]: T1. Abstract: A1"
    )
    examples = system["content"].split("Examples:\n", 1)[1].split("\n\nIdea: ")
    assert len(examples) == 2 and "Paper [1]: Contrastive Coding of Audio." in examples[0]
    # each example's answer is read as the checker reads a verdict
    answers = [example[example.index("Class:") :] for example in examples]
    readings = [parse_checker_verdict(answer) for answer in answers]
    assert [category for category, _ in readings] == ["not novel", "novel"]
    assert [decision_of(category) for category, _ in readings] == [0, 1]
    assert readings[0][1].startswith("Paper [0] already pre-trains")
    assert parse_checker_verdict("Class: Novel\nReview: Papers [0] and [1] differ.") == (
        "novel",
        "Papers [0] and [1] differ.",
    )


def test_the_pinned_prompts_render_each_step():
    prompts = Prompts.read(checker_copy(), "relaxed", "relaxed", "priority", as_run=True)
    assert prompts.keywords("IDEA")[-1] == {"role": "user", "content": "IDEA"}
    assert "<idea> IDEA </idea>" in prompts.facets("IDEA")[-1]["content"]
    window = prompts.rerank("IDEA", "FACETS", ["p one", "p two"])
    assert window[-5:-1] == [
        {"role": "user", "content": "[1] p one"},
        {"role": "assistant", "content": "Received passage [1]."},
        {"role": "user", "content": "[2] p two"},
        {"role": "assistant", "content": "Received passage [2]."},
    ]
    assert window[-1]["content"].startswith("**QUERY** Idea: IDEA. **Key Facets")
    papers = [{"title": "T", "abstract": "A"}]
    verdict = prompts.verdict("IDEA", papers)
    assert opened_file(
        "noveltychecker/models/idea_novelty_checker/incontext_examples/relaxed.json"
    ) in verdict[1]["content"]  # fmt: skip
    assert verdict[-1]["content"] == "<PAPER> Paper ID [0]: Title: T. Abstract: A </PAPER>"
    text = Prompts.read(checker_copy(), "less-relaxed", "less-relaxed", "base", as_run=False)
    assert text.examples.startswith("Examples Reviews that assess novelty")


def test_the_pipeline_through_the_request_layer_and_a_rerun_repeats_nothing(
    loopback, tmp_path, monkeypatch
):
    """One idea on hand-made papers: 22 match the searches (one RankGPT window, 2..22), the
    idea's own paper is never shown. Calls: keywords, facets and the verdict on gpt-5.4
    ((1,000 x $2.5 + 200 x $15) / 1M each), one window on gpt-5.4-mini ((1,000 x $0.75 + 200 x
    $4.5) / 1M). Searches: the snippet search, its papers' batch, one keyword and one title."""
    papers = [
        {
            "paperId": f"p{k}",
            "corpusId": 100 + k,
            "title": f"Paper {k} on byte models",
            "abstract": f"Byte models study {k}.",
            "year": 2020,
            "publicationDate": "2020-01-01",
        }
        for k in range(22)
    ]
    papers.append({**papers[0], "paperId": "own", "corpusId": 99, "title": "Our Own Byte Paper"})
    answer = (
        "<keywords>['byte models']</keywords><titles>['Byte study']</titles>"
        "Class: Not Novel\nReview: The idea is not novel because of [0]."
    )
    settings = ClientSettings(2, 30, 0)
    monkeypatch.setitem(loopback.answers, "gpt-5.4", answer)
    monkeypatch.setitem(loopback.answers, "gpt-5.4-mini", "[2] > [1]")

    def vector(text: str) -> np.ndarray:  # the idea [1, 0]; paper k [1, k]: similarity falls with k
        found = re.search(r"Paper (\d+)", text)
        return np.array([1.0, float(found.group(1)) if found else 0.0])

    def run(s2: LoopbackS2, journal: str):
        client = SemanticScholar(s2.base_url, None, tmp_path / "s2", 1000)
        backbones = []
        for name, effort in (("gpt-5.4", "high"), ("gpt-5.4-mini", "none")):
            spec = REGISTRY.model(name)
            monkeypatch.setenv(spec.api_key_env, "sk-loopback")
            backbones.append((replace(spec, base_url=loopback.base_url(spec.api)), effort))
        with (
            Journal(tmp_path / "journal" / "gpt-5.4", journal) as checker_journal,
            Journal(tmp_path / "journal" / "gpt-5.4-mini", journal) as reranker_journal,
            serve(backbones[0][0], tmp_path / "a.log") as checker_endpoint,
            serve(backbones[1][0], tmp_path / "b.log") as reranker_endpoint,
        ):
            checker = Backbone(
                backbones[0][0], checker_endpoint, checker_journal, {"reasoning_effort": "high"}
            )
            reranker = Backbone(
                backbones[1][0], reranker_endpoint, reranker_journal, {"reasoning_effort": "none"}
            )
            instance = {"instance_id": "7", "ideas": ["byte models idea"]}
            instance["own_titles"] = ["Our Own Byte Paper"]
            return run_checks(
                [instance], checker, reranker, settings, Literature(client, "2025-03-01"),
                lambda texts: {t: vector(t) for t in texts}, hand_prompts(), Cut(10),
            )  # fmt: skip

    with LoopbackS2(papers, api_key=None, requests_per_second=1000) as s2:
        sent = len(loopback.bodies)
        # the journals' names before the rename (judge_cell's were scideator-<setup>)
        (check,), calls = run(s2, "scideator-human-only")
        assert len(loopback.bodies) - sent == 4
        assert [path.rsplit("/", 2)[-2:] for path, _, _ in s2.requests] == [
            ["snippet", "search"],
            ["paper", "batch"],
            ["paper", "search"],
            ["paper", "search"],
        ]
        assert check.keywords == ["byte models"] and check.title_queries == ["Byte study"]
        assert len(check.papers) == 22 and {p["source"] for p in check.papers} == {
            "keyword+title+snippet"
        }
        assert [p["title"].split()[1] for p in check.shown] == list("0132456789")
        assert check.category == "not novel" and check.decision == 0
        assert [c["step"] for c in calls] == ["keywords", "facets", "rerank", "verdict"]
        assert sum(c["cost_usd"] for c in calls) == pytest.approx(3 * 0.0055 + 0.00165)
        verdict_messages = loopback.bodies[-1][2]["input"]
        assert verdict_messages[0]["content"].startswith("EXAMPLES <IDEA> byte models idea")
        assert [m["content"] for m in verdict_messages[1:3]] == [
            "[0] Paper 0 on byte models",
            "[1] Paper 1 on byte models",
        ]

        # a rerun under the current name (JOURNAL-<setup>) answers every call from the journals
        # written under the old one: the request ids hold no system name, nothing is paid again
        requests_before, sent = len(s2.requests), len(loopback.bodies)
        (again,), _ = run(s2, f"{JOURNAL}-human-only")
        assert len(s2.requests) == requests_before and len(loopback.bodies) == sent
        assert again.shown == check.shown and again.decision == 0


def test_verdict_rows_sum_every_call_of_an_idea_and_score_no_decision_by_the_rule():
    decided = Transcript("a", "idea a", [], category="not novel")
    undecided = Transcript("b", "idea b", [], category="unclear")
    calls = [
        {"instance_id": "a", "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.5},
        {"instance_id": "a", "input_tokens": 5, "output_tokens": 1, "cost_usd": 0.25},
        {"instance_id": "b", "error": "timeout", "latency_s": 3.0},
    ]
    rows = verdict_rows(decisions([decided, undecided], calls), "wrong").set_index("instance_id")
    assert rows.loc["a", ["verdict", "n_calls", "n_failed", "input_tokens"]].tolist() == [
        0,
        2,
        0,
        15,
    ]
    assert rows.loc["a", "cost_usd"] == pytest.approx(0.75)
    assert rows.loc["b", ["verdict", "n_calls", "n_failed"]].tolist() == [FAILED, 1, 1]
    assert rows.loc["b", "latency_s"] == 3.0
    assert verdict_rows(decisions([undecided], calls), "tie")["verdict"].tolist() == [TIE]
