"""Tests for the tolerant parser of the three-header novelty-evaluation format."""

import pytest

from noveval.novbench.metrics import dist_acc
from noveval.novbench.parsing import (
    ParsedEvaluation,
    format_evaluation,
    parse_evaluation,
    strip_reasoning,
)

CANONICAL = (
    "Positive Novelty Evaluations  \n"
    "- Aligning entity spans instead of tokens is a new idea for cross-lingual NER.  \n"
    "- Treating overlapping spans as hard negatives is a clever addition.  \n\n"
    "Neutral Novelty Evaluations  \n"
    "- The contrastive loss closely follows existing sentence-level objectives.  \n\n"
    "Negative Novelty Evaluations  \n"
    "- Using translated data for alignment was explored in translate-train setups.  "
)
CANONICAL_ITEMS = [
    ("Positive", "Aligning entity spans instead of tokens is a new idea for cross-lingual NER."),
    ("Positive", "Treating overlapping spans as hard negatives is a clever addition."),
    ("Neutral", "The contrastive loss closely follows existing sentence-level objectives."),
    ("Negative", "Using translated data for alignment was explored in translate-train setups."),
]


def test_canonical_format():
    parsed = parse_evaluation(CANONICAL)
    assert parsed == ParsedEvaluation(
        items=CANONICAL_ITEMS, empty=False, repetitive=False, unparseable=False
    )
    assert parsed.labels == ["Positive", "Positive", "Neutral", "Negative"]
    assert parsed.texts[2] == CANONICAL_ITEMS[2][1]


def test_markdown_headers_and_bullets():
    text = (
        "Here is my assessment.\n\n"
        "**Positive Novelty Evaluations:**\n"
        "* The span-level contrastive objective is new for NER.\n"
        "• Hard negatives from overlapping spans are original.\n\n"
        "### Negative Novelty Evaluations\n"
        "+ Similar alignment losses exist in prior work on parsing.\n"
        "__Neutral novelty evaluations__\n"
        "- The method is evaluated on the usual benchmarks only.\n"
    )
    assert parse_evaluation(text).items == [
        ("Positive", "The span-level contrastive objective is new for NER."),
        ("Positive", "Hard negatives from overlapping spans are original."),
        ("Negative", "Similar alignment losses exist in prior work on parsing."),
        ("Neutral", "The method is evaluated on the usual benchmarks only."),
    ]


def test_numbered_headers_and_bullets():
    text = (
        "1. Positive Novelty Evaluation:\n"
        "1) The reranker uses discourse trees in a new way.\n"
        "2. It needs no human coherence labels at all.\n"
        "II. NEUTRAL NOVELTY EVALUATIONS OF THE PAPER\n"
        "1. The human study is valuable but small.\n"
        "### 3. **Negative Novelty Evaluations**\n"
        "(1) Reranking beam candidates is an established technique.\n"
    )
    assert parse_evaluation(text).items == [
        ("Positive", "The reranker uses discourse trees in a new way."),
        ("Positive", "It needs no human coherence labels at all."),
        ("Neutral", "The human study is valuable but small."),
        ("Negative", "Reranking beam candidates is an established technique."),
    ]


def test_text_after_header_colon_is_an_item():
    text = (
        "Positive Novelty Evaluations: The corpus fills a clear gap for Swahili.\n"
        "**Negative Novelty Evaluations:** - The benchmark experiments are standard.\n"
        "Neutral Novelty Evaluations: None"
    )
    assert parse_evaluation(text).items == [
        ("Positive", "The corpus fills a clear gap for Swahili."),
        ("Negative", "The benchmark experiments are standard."),
    ]


def test_missing_sections_and_empty_section():
    text = (
        "Neutral Novelty Evaluations  \n- The question posed is not particularly novel.  \n\n"
        "Negative Novelty Evaluations  \n-  "
    )
    parsed = parse_evaluation(text)
    assert parsed.items == [("Neutral", "The question posed is not particularly novel.")]
    assert not parsed.empty and not parsed.unparseable


def test_all_sections_empty_is_empty_but_parseable():
    parsed = parse_evaluation(format_evaluation([]))
    assert parsed.items == []
    assert parsed.empty and not parsed.unparseable and not parsed.repetitive


def test_continuation_lines_join_previous_item():
    text = (
        "Positive Novelty Evaluations\n"
        "- Aligning spans rather than tokens is\n"
        "  new for cross-lingual NER.\n"
        "Some unindented remark that is not an item.\n"
        "- Second item stands on its own line.\n"
    )
    assert parse_evaluation(text).items == [
        ("Positive", "Aligning spans rather than tokens is new for cross-lingual NER."),
        ("Positive", "Second item stands on its own line."),
    ]


def test_markdown_emphasis_removed_from_items():
    text = (
        "Positive Novelty Evaluations\n"
        "- **Span alignment:** aligning whole entity spans is new.\n"
        "- *Hard negatives from overlapping spans are original.*\n"
        "- The USL_S-A/H variant is a new combination."
    )
    assert parse_evaluation(text).texts == [
        "Span alignment: aligning whole entity spans is new.",
        "Hard negatives from overlapping spans are original.",
        "The USL_S-A/H variant is a new combination.",
    ]


def test_lines_before_first_header_are_ignored():
    text = (
        "- A bullet before any header is ignored.\n"
        "Negative Novelty Evaluations\n- Not novel at all."
    )
    assert parse_evaluation(text).items == [("Negative", "Not novel at all.")]


def test_short_and_none_items_dropped():
    text = (
        "Positive Novelty Evaluations\n- None\n- None.\n- N/A\n- **None**\n- Too short\n"
        "- Long enough to be kept.\n"
        "Negative Novelty Evaluations\n- none"
    )
    parsed = parse_evaluation(text)
    assert parsed.items == [("Positive", "Long enough to be kept.")]


def test_duplicates_keep_first_occurrence():
    text = (
        "Positive Novelty Evaluations\n- The dataset is the first of its kind.\n"
        "Neutral Novelty Evaluations\n- the dataset is the first of its kind\n"
        "- The baselines are standard readers.\n"
        "Negative Novelty Evaluations\n- The baselines are standard readers."
    )
    parsed = parse_evaluation(text)
    assert parsed.items == [
        ("Positive", "The dataset is the first of its kind."),
        ("Neutral", "The baselines are standard readers."),
    ]
    assert not parsed.repetitive


LOOPING = (
    "Positive Novelty Evaluations\n"
    "- The span alignment objective is new for cross-lingual NER.\n"
    "- The span alignment objective is new for cross-lingual NER.\n"
    "- The span alignment objective is new for cross-lingual NER.\n"
    "Neutral Novelty Evaluations\n-\n"
    "Negative Novelty Evaluations\n"
    "- The contrastive loss follows sentence-level objectives.\n"
)


def test_paper_mode_keeps_duplicates_as_the_authors_transfer_does():
    """A looping output: three Positive copies and one Negative item against a gold of one of
    each. Deduplicated, the labels are P, N (DistAcc 1); kept, as transfer() keeps them, they are
    P, P, P, N: p = (3/4, 1/4) against q = (1/2, 1/2), DistAcc = 1 - (1/4 + 1/4) / 2 = 0.75."""
    deduplicated = parse_evaluation(LOOPING)
    kept = parse_evaluation(LOOPING, keep_duplicates=True)
    assert deduplicated.labels == ["Positive", "Negative"]
    assert kept.labels == ["Positive", "Positive", "Positive", "Negative"]
    assert set(kept.texts) == set(deduplicated.texts)
    assert kept.repetitive and deduplicated.repetitive
    gold = ["Positive", "Negative"]
    assert dist_acc(deduplicated.labels, gold) == 1.0
    assert dist_acc(kept.labels, gold) == pytest.approx(0.75)
    none_items = "Positive Novelty Evaluations\n- None\n- None\n- Too short\n- Too short\n"
    assert parse_evaluation(none_items, keep_duplicates=True).items == []


def test_closed_think_block_removed():
    text = (
        "<think>Positive Novelty Evaluations\n- A draft item inside reasoning.</think>\n"
        "Neutral Novelty Evaluations\n- The dataset extends an existing one."
    )
    assert parse_evaluation(text).items == [("Neutral", "The dataset extends an existing one.")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>a</think>answer<think>b</think> tail", "answer tail"),
        ("<THINK>\nreasoning\n</THINK>\n\nanswer", "answer"),
        ("reasoning without an opening tag</think>answer", "answer"),
        ("answer <think> reasoning cut off by the token limit", "answer"),
        ("<think> reasoning that never ends", ""),
        ("no reasoning here", "no reasoning here"),
    ],
)
def test_strip_reasoning(text, expected):
    assert strip_reasoning(text) == expected


def test_unclosed_think_leaves_empty_output():
    parsed = parse_evaluation("<think>Positive Novelty Evaluations\n- Still thinking about it")
    assert parsed.empty and not parsed.unparseable


@pytest.mark.parametrize("text", [None, float("nan"), "", "   \n\n  "])
def test_none_or_blank_output_is_empty(text):
    assert parse_evaluation(text) == ParsedEvaluation(
        items=[], empty=True, repetitive=False, unparseable=False
    )


def test_prose_without_headers_is_unparseable():
    text = (
        "The paper proposes a span alignment objective. It is fairly novel, although\n"
        "- the contrastive loss is standard and similar to prior work.\n"
    )
    parsed = parse_evaluation(text)
    assert parsed.items == []
    assert parsed.empty and parsed.unparseable


def test_bullet_starting_with_a_label_word_is_not_a_header():
    text = (
        "Positive Novelty Evaluations\n"
        "- Negative sampling of overlapping spans is a new and clever idea for NER.\n"
        "- Positive transfer is shown to languages unseen during pretraining."
    )
    parsed = parse_evaluation(text)
    assert parsed.labels == ["Positive", "Positive"]


def test_repeated_line_is_repetitive():
    text = "Positive Novelty Evaluations\n" + "- The paper proposes a novel method.\n" * 5
    parsed = parse_evaluation(text)
    assert parsed.repetitive
    assert parsed.items == [("Positive", "The paper proposes a novel method.")]


def test_repeated_numbered_line_is_repetitive():
    text = "Positive Novelty Evaluations\n" + "".join(
        f"{number}. The paper proposes a novel method.\n" for number in range(1, 6)
    )
    assert parse_evaluation(text).repetitive


def test_line_repeated_twice_is_not_repetitive():
    text = "Positive Novelty Evaluations\n" + "- The paper proposes a novel method.\n" * 2
    assert not parse_evaluation(text).repetitive


def test_looping_ngram_within_one_line_is_repetitive():
    text = "Positive Novelty Evaluations\n- The model is novel because " + "it is new and " * 20
    assert parse_evaluation(text).repetitive


def test_repeated_empty_template_is_repetitive():
    assert parse_evaluation("\n".join([format_evaluation([])] * 3)).repetitive


def test_shared_opening_phrase_is_not_repetitive():
    text = (
        "Positive Novelty Evaluations\n"
        "- The paper proposes a novel span encoder that was not used for tagging before.\n"
        "- The paper proposes a novel contrastive objective over entity spans.\n"
        "- The paper proposes a novel negative sampling scheme for overlapping spans.\n"
        "Negative Novelty Evaluations\n"
        "- The paper proposes a novel use of translated data, but translate-train is old.\n"
    )
    parsed = parse_evaluation(text)
    assert len(parsed.items) == 4
    assert not parsed.repetitive


def test_templated_lines_differing_in_one_word_are_repetitive():
    text = "Positive Novelty Evaluations\n" + "".join(
        f"- The paper proposes a novel {part} that has not been used for this task.\n"
        for part in ("encoder", "decoder", "objective", "protocol")
    )
    parsed = parse_evaluation(text)
    assert len(parsed.items) == 4
    assert parsed.repetitive


def test_format_evaluation_canonical_text():
    text = format_evaluation([("Negative", "Reranking is  an established\ntechnique.")])
    assert text == (
        "Positive Novelty Evaluations\n-\n\n"
        "Neutral Novelty Evaluations\n-\n\n"
        "Negative Novelty Evaluations\n- Reranking is an established technique."
    )


def test_format_evaluation_round_trip():
    assert parse_evaluation(format_evaluation(CANONICAL_ITEMS)).items == CANONICAL_ITEMS


def test_format_evaluation_rejects_unknown_label():
    with pytest.raises(ValueError, match="Mixed"):
        format_evaluation([("Mixed", "The idea is partly new.")])
