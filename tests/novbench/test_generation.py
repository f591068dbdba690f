"""Prompts, few-shot draws, perturbations and the summary table, on hand-made inputs."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import SAMPLE

from noveval.core.registry import ModelSpec
from noveval.novbench import generation, perturbation, records, tables
from noveval.novbench.parsing import parse_evaluation

DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 64, "mode": "greedy"}
SETTINGS = {"few_shot_examples": 2, "seed": 7}


@pytest.fixture(scope="module")
def papers() -> pd.DataFrame:
    return records.load_release(SAMPLE)


def test_few_shot_draw_is_seeded_and_excludes_the_paper(papers):
    first = generation.few_shot_examples(papers, "S001", 2, seed=7)
    assert first == generation.few_shot_examples(papers, "S001", 2, seed=7)
    assert len(first) == 2
    others = papers[papers["paper_id"] != "S001"]
    own = list(papers.set_index("paper_id").loc["S001", "descriptions"])
    assert all(example["descriptions"] != own for example in first)
    assert all(
        any(example["descriptions"] == list(d) for d in others["descriptions"]) for example in first
    )
    draws = {
        tuple(e["descriptions"][0] for e in generation.few_shot_examples(papers, "S001", 2, s))
        for s in range(20)
    }
    assert len(draws) > 1, "the seed should change the draw"
    evaluation = parse_evaluation(first[0]["evaluation"])
    assert evaluation.items and not evaluation.unparseable


def test_prompts_carry_descriptions_examples_and_related_work(papers):
    paper = papers.iloc[0].to_dict()
    for strategy in generation.STRATEGIES:
        prompt = generation.user_prompt(paper, strategy, papers, SETTINGS)
        assert all(sentence in prompt for sentence in paper["descriptions"])
        assert "Negative Novelty Evaluations" in prompt
    rag = generation.user_prompt(paper, "rag", papers, SETTINGS)
    assert all(title in rag for title in paper["retrieved_titles"])
    few = generation.user_prompt(paper, "few", papers, SETTINGS)
    assert few.count("Evaluation:") == 3
    with pytest.raises(ValueError, match="RAG needs retrieved papers"):
        generation.user_prompt(
            {**paper, "retrieved_titles": [], "retrieved_abstracts": []}, "rag", papers, SETTINGS
        )


def test_generation_requests_have_distinct_stable_ids(papers):
    spec = ModelSpec(name="m", engine="api", reference="ref", context_length=1)
    rows = generation.generation_requests(papers, papers, "zero", spec, DECODING, SETTINGS)
    again = generation.generation_requests(papers, papers, "zero", spec, DECODING, SETTINGS)
    assert [r["request_id"] for r in rows] == [r["request_id"] for r in again]
    assert len({r["request_id"] for r in rows}) == len(papers)
    assert json.loads(rows[0]["messages"])[0]["role"] == "system"


@pytest.mark.parametrize("count, kept", [(1, 1), (2, 1), (4, 3), (5, 4), (10, 8)])
def test_delete_keeps_floor_of_eighty_percent_in_order(count, kept):
    sentences = [f"Sentence number {i} states a contribution." for i in range(count)]
    frame = pd.DataFrame({"paper_id": ["p"], "descriptions": [sentences]})
    result = perturbation.delete_sentences(frame, 0.8, seed=3)["descriptions"].iloc[0]
    assert len(result) == kept
    assert result == [s for s in sentences if s in result]
    assert result == perturbation.delete_sentences(frame, 0.8, seed=3)["descriptions"].iloc[0]


def test_paraphrases_replace_descriptions_with_fallback_counted():
    frame = pd.DataFrame(
        {"paper_id": ["p"], "descriptions": [["We propose method A.", "We release corpus B."]]}
    )
    responses = pd.DataFrame(
        {
            "item_id": ["p#0", "p#1"],
            "text": ['Paraphrase: "A new method, A, is introduced here."\nExtra line', "ok"],
        }
    )
    changed = perturbation.apply_paraphrases(frame, responses)
    assert changed["descriptions"].iloc[0] == [
        "A new method, A, is introduced here.",
        "We release corpus B.",
    ]
    assert changed["n_paraphrase_fallbacks"].iloc[0] == 1
    assert perturbation.clean_paraphrase(None) is None
    assert perturbation.clean_paraphrase("\n\n") is None


def test_summary_is_the_mean_over_papers_with_failure_counts():
    scores = pd.DataFrame(
        {
            "model": ["human", "human", "m", "m"],
            "strategy": ["-", "-", "zero", "zero"],
            "perturbation": ["-", "-", "none", "none"],
            "paper_id": ["a", "b", "a", "b"],
            "relevance": [2.0, 3.0, 0.0, 4.0],
            "coverage": [1.0, 1.0, 0.0, 0.5],
            "clarity": [0.5, 0.7, 0.0, 0.6],
            "dist_acc": [1.0, 1.0, 0.0, 0.8],
            "kc": [0.5, 0.5, 0.0, 1.0],
            "ls": [1.0, 1.0, 0.0, 0.8],
            "fs": [0.0, 0.6, 0.0, 0.0],
            "empty": [False, False, True, False],
            "unparseable": [False, False, True, False],
            "repetitive": [False, False, False, True],
            "failed": False,
            "relevance_encoder": "e",
            "coverage_encoder": "e",
            "fluency_lm": "l",
        }
    )
    summary = tables.summarise(scores)
    assert list(summary["model"]) == ["human", "m"]
    model = summary.iloc[1]
    assert model["relevance"] == pytest.approx(2.0) and model["dist_acc"] == pytest.approx(0.4)
    assert (model["n_papers"], model["n_empty"], model["n_unparseable"]) == (2, 1, 1)
    assert model["n_repetitive"] == 1
