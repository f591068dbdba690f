"""The NovBench construction's stages and the extraction validation on hand-made inputs."""

from __future__ import annotations

import ast
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, shared_file

from noveval.construction import (
    authors,
    grid,
    nlpeer,
    novbench_plan,
    records,
    retrieval,
    sentences,
    validation,
)
from noveval.construction.extraction import decisions, prompt_requests, step_decision_requests
from noveval.construction.stages.novbench_retrieval import retrieve
from noveval.construction.stages.novbench_sources import read_sources
from noveval.core.registry import load_registry
from noveval.inference.workloads import PlanSettings
from noveval.novbench.records import load_release
from noveval.planning.table import plan_table

SAMPLE = REPO / "data" / "sample" / "nlpeer"
FIELDS = ("paper_topic_and_main_contributions", "reasons_to_accept", "reasons_to_reject")


def upstream_root():
    return shared_file("novbench", "upstream")


def authors_function(path: str, name: str):
    """The authors' prompt function, cut out of its script and defined in an empty namespace."""
    text = (upstream_root() / path).read_text(encoding="utf-8")
    (function,) = [
        node
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    namespace: dict = {"__builtins__": {"str": str}}
    exec(ast.get_source_segment(text, function), namespace)  # noqa: S102 - one string function
    return namespace[name]


# --- sentences and context windows --------------------------------------------------------------


def test_split_sentences_keeps_sentences_of_ten_characters_or_more():
    text = "Short one. We propose a new parser. It works. Results hold on ten languages."
    assert sentences.split_sentences(text) == [
        "Short one.",
        "We propose a new parser.",
        "Results hold on ten languages.",
    ]


def test_context_windows_take_two_sentences_each_side_joined_as_the_authors_do():
    assert sentences.context_windows(["a", "b", "c", "d", "e", "f"]) == [
        "a b c",
        "a b c d",
        "a b c d e",
        "b c d e f",
        "c d e f",
        "d e f",
    ]


def test_context_windows_at_the_boundaries_of_short_introductions():
    assert sentences.context_windows(["a"]) == ["a "]  # first and last: one space, no neighbour
    assert sentences.context_windows(["a", "b"]) == ["a b", "a b"]
    assert sentences.context_windows([]) == []


def test_answers_are_read_as_the_authors_read_them():
    assert [sentences.says_yes(a) for a in ("Yes.", " YES", "No", "", None, "Yesterday")] == [
        True,
        True,
        False,
        False,
        False,
        True,  # "yes" anywhere, as their `'yes' in ans.strip().lower()`
    ]
    assert sentences.step_summary_fields("Main idea: a parser\nrefers to: This paper\n") == {
        "main_idea": "a parser",
        "refers_to": "This paper",
    }
    assert sentences.step_summary_fields(None) == {"main_idea": "", "refers_to": ""}


# --- NLPeer layout --------------------------------------------------------------------------------


def test_the_sample_is_read_with_introductions_reviews_and_a_skipped_paper():
    papers, table, skipped = records.read_nlpeer(SAMPLE, nlpeer.Extraction(FIELDS))
    assert papers["paper_id"].tolist() == ["paper-a", "paper-b"]
    assert papers.set_index("paper_id")["decision"].to_dict() == {
        "paper-a": "accept",
        "paper-b": "reject",
    }
    assert skipped.to_dict("records") == [
        {"paper_id": "paper-c", "stage": "read", "reason": "no Introduction heading"}
    ]
    intro_b = table[(table["paper_id"] == "paper-b") & (table["kind"] == "introduction")]
    assert intro_b["sentence"].tolist() == [
        "Crowd labels are noisy.",
        "We introduce label debate, where two models argue about each label.",
        "This is the first use of debate for data cleaning.",
    ]
    assert intro_b["context"].tolist()[0] == " ".join(intro_b["sentence"])
    intro_a = table[(table["paper_id"] == "paper-a") & (table["kind"] == "introduction")]
    assert len(intro_a) == 5  # two paragraphs; the 2-character paragraph and Related Work left out
    reviews_a = table[(table["paper_id"] == "paper-a") & (table["kind"] == "review")]
    # 5 + 3 sentences: each review's own fields once (the authors' list carried the sentences of
    # earlier reviews over into later ones)
    assert len(reviews_a) == 8
    assert reviews_a["item_id"].tolist()[0] == "paper-a/review0"


def test_introduction_needs_a_following_heading_and_a_review_its_fields():
    nodes = [
        {"ntype": "heading", "content": "Introduction"},
        {"ntype": "paragraph", "content": "x" * 20},
    ]
    with pytest.raises(nlpeer.SkippedPaper, match="no heading after the Introduction"):
        nlpeer.introduction_sentences(nodes, nlpeer.Extraction(FIELDS))
    with pytest.raises(nlpeer.SkippedPaper, match="review 0 has no field reasons_to_accept"):
        nlpeer.review_sentences(
            [{"report": {"paper_topic_and_main_contributions": "x"}}],
            nlpeer.Extraction(FIELDS[:2]),
        )


def test_a_malformed_paper_is_skipped_with_its_reason(tmp_path):
    (tmp_path / "bad" / "v1").mkdir(parents=True)
    (tmp_path / "bad" / "v1" / "meta.json").write_text("{not json")
    _, _, skipped = records.read_nlpeer(tmp_path, nlpeer.Extraction(FIELDS))
    assert skipped["paper_id"].tolist() == ["bad"]
    assert skipped["reason"].iloc[0].startswith("v1/meta.json is not JSON")


def test_a_missing_nlpeer_folder_or_corpus_is_an_error_naming_the_config_key(tmp_path):
    out = [str(tmp_path / name) for name in ("papers", "sentences", "skipped")]
    with pytest.raises(FileNotFoundError, match="construction.novbench.nlpeer: .*not a folder"):
        read_sources(str(tmp_path / "ICLR2026"), {}, None, *out)
    with pytest.raises(FileNotFoundError, match="construction.novbench.retrieval.corpus: no file"):
        retrieve(out[0], str(tmp_path / "corpus.yaml"), "-", 5, str(tmp_path / "r"))


# --- the authors' prompts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "path", "function", "values"),
    [
        ("direct", authors.INTRODUCTION_PROMPTS, "build_prompt", {"sentence": "We propose X."}),
        ("context", authors.CONSTRUCTION, "build_novelty_prompt",
         {"sentence": "We propose X.", "context": "A. We propose X. B."}),
        ("review", authors.CONSTRUCTION, "build_prompt", {"sentence": "The idea is new."}),
        ("normalisation", authors.NORMALISATION, "build_prompt",
         {"reviews": ["The idea is new.", "Novelty is limited."]}),
    ],
)  # fmt: skip
def test_prompts_are_the_ones_the_authors_functions_build(name, path, function, values):
    built = authors.template(upstream_root(), name).render(**values)
    assert built == authors_function(path, function)(*values.values())


def test_the_few_shot_and_step_prompts_fill_the_authors_templates():
    text = (upstream_root() / authors.INTRODUCTION_PROMPTS).read_text(encoding="utf-8")
    few = re.search(r'novelty_prompt_template = (""".*?""")\n', text, re.S).group(1)
    rendered = authors.template(upstream_root(), "few_shot").render(sentence="We propose X.")
    assert rendered == ast.literal_eval(few).format(sentence="We propose X.")
    step = authors.template(upstream_root(), "step_decision")
    assert step.placeholders == ("main_idea", "refers_to")
    assert "Main idea: a parser  \nRefers to: This paper\n" in step.render(
        main_idea="a parser", refers_to="This paper"
    )


def test_a_prompt_with_missing_values_is_an_error_naming_them():
    with pytest.raises(ValueError, match="takes context, sentence"):
        authors.template(upstream_root(), "context").render(sentence="x")


# --- requests, decisions, records -----------------------------------------------------------------


def test_requests_are_stable_and_step_calls_follow_answered_first_calls():
    spec = load_registry(REPO / "config" / "models.yaml").model("gpt-5")
    table = pd.DataFrame(
        {"item_id": ["s0", "s1"], "sentence": ["We propose X.", "Prior work did Y."]}
    )
    first = prompt_requests(table, "step", spec, {"temperature": 0.0}, upstream_root())
    again = prompt_requests(table, "step", spec, {"temperature": 0.0}, upstream_root())
    assert [r["request_id"] for r in first] == [r["request_id"] for r in again]
    assert "We propose X." in json.loads(first[0]["messages"])[0]["content"]
    answers = pd.DataFrame(
        {"item_id": ["s0", "s1"], "text": ["Main idea: X\nRefers to: This paper", None]}
    )
    second = step_decision_requests(answers, spec, {"temperature": 0.0}, upstream_root())
    assert [r["item_id"] for r in second] == ["s0"]
    assert (
        "Main idea: X  \nRefers to: This paper" in json.loads(second[0]["messages"])[0]["content"]
    )


def test_records_keep_papers_with_descriptions_reviews_and_gold():
    papers = pd.DataFrame(
        {
            "paper_id": ["a", "b"],
            "title": ["A", "B"],
            "abstract": ["x", "y"],
            "decision": ["accept", None],
        }
    )
    marked = pd.DataFrame(
        {
            "paper_id": ["a", "a", "a", "b"],
            "kind": ["introduction", "introduction", "review", "introduction"],
            "sentence": ["We propose A.", "Background.", "A is new.", "We propose B."],
            "yes": [True, False, True, True],
        }
    )
    extracted, skipped = records.normalisation_inputs(papers, marked)
    assert extracted[["paper_id", "paper_novelty", "review_novelty"]].to_dict("records") == [
        {"paper_id": "a", "paper_novelty": ["We propose A."], "review_novelty": ["A is new."]}
    ]
    assert skipped["reason"].tolist() == ["no novelty review sentence"]
    gold = "Positive Novelty Evaluations\n- The approach A is new to the field.\n"
    normalised = pd.DataFrame({"item_id": ["a"], "text": [gold]})
    related = pd.DataFrame(
        {"paper_id": ["a"], "retrieved_title": [["T"]], "retrieved_abstract": [["Abs"]]}
    )
    built, left_out = records.release_records(extracted, normalised, related)
    assert left_out.empty
    assert built == [
        {
            "id": "a",
            "title": "A",
            "abstract": "x",
            "decision": "accept",
            "paper_novelty": ["We propose A."],
            "review_novelty": ["A is new."],
            "output_format": gold,
            "retrieved_title": ["T"],
            "retrieved_abstract": ["Abs"],
        }
    ]
    none = pd.DataFrame({"item_id": ["a"], "text": ["no headers here"]})
    assert records.release_records(extracted, none, related)[1]["reason"].tolist() == [
        "the normalised evaluation holds no gold item"
    ]


def test_a_built_record_is_read_by_the_release_reader(tmp_path):
    record = {
        "id": "a", "title": "A", "abstract": "x", "decision": "accept",
        "paper_novelty": ["We propose the method A."], "review_novelty": ["A is new."],
        "output_format": "Positive Novelty Evaluations\n- The approach A is new to the field.\n",
        "retrieved_title": ["T"], "retrieved_abstract": ["Abs"],
    }  # fmt: skip
    path = tmp_path / "release.json"
    path.write_text(json.dumps([record]))
    papers = load_release(path)
    assert papers["gold_labels"].tolist() == [["Positive"]]
    assert papers["retrieved_titles"].tolist() == [["T"]]


def test_nearest_ranks_by_inner_product_and_never_returns_the_paper_itself():
    corpus = pd.DataFrame({"title": ["P", "Q", "R", "Q"], "abstract": ["p", "q", "r", "q2"]})
    corpus = retrieval.unique_titles(corpus)
    assert corpus["title"].tolist() == ["P", "Q", "R"]
    vectors = {"p": [1.0, 0.0], "q": [0.6, 0.8], "r": [0.0, 1.0], "own": [0.8, 0.6]}
    vectors = {key: pd.Series(value).to_numpy() for key, value in vectors.items()}
    papers = pd.DataFrame({"paper_id": ["x"], "title": ["p"], "abstract": ["own"]})
    found = retrieval.nearest(papers, corpus, vectors, top_k=2)
    # scores: P 0.8 (its title is the paper's, casefolded: left out), Q 0.96, R 0.6
    assert found["retrieved_title"].tolist() == [["Q", "R"]]
    assert found["retrieved_abstract"].tolist() == [["q", "r"]]


# --- validation (Appendices A and B) --------------------------------------------------------------


def test_gbk_labels_are_read_with_contexts_in_the_whole_paper(tmp_path):
    path = tmp_path / "labels.csv"
    rows = "paper_id,sentence,label\n1,我们 first.,0\n1,second.,1\n1,third.,0\n2,other.,1\n"
    path.write_bytes(rows.encode("gbk"))
    labels = validation.introduction_labels(path, limit=2)
    assert labels["sentence"].tolist() == ["我们 first.", "second."]
    assert labels["context"].tolist() == [
        "我们 first. second. third.",
        "我们 first. second. third.",
    ]
    assert labels["item_id"].tolist() == ["intro0", "intro1"]
    path.write_bytes("paper_id,sentence,label\n1,“quoted”,0\n".encode())
    with pytest.raises(ValueError, match="not GBK-encoded"):
        validation.introduction_labels(path)


def test_the_released_labels_hold_2300_and_993_sentences():
    labels = validation.introduction_labels(
        shared_file("novbench", "coling2020_intro_sentence_labels.gbk.csv")
    )
    assert (len(labels), int(labels["label"].sum()), labels["paper_id"].nunique()) == (
        2300,
        533,
        87,
    )
    reviews = validation.review_labels(
        shared_file("novbench", "review_sentences_novelty.json"),
        shared_file("novbench", "review_sentences_not_novelty.json"),
    )
    assert (len(reviews), int(reviews["label"].sum())) == (993, 493)


def test_scores_on_a_hand_made_label_set():
    labels = pd.DataFrame({"item_id": list("abcde"), "label": [1, 1, 0, 0, 0]})
    answers = pd.DataFrame({"item_id": list("abcd"), "text": ["Yes", "No", "No", "Yes"]})
    decided = decisions(labels["item_id"], answers)  # e: no answer, counts as No
    got = validation.scores(labels, decided)
    # predictions 1,0,0,1,0: accuracy 3/5; F1 of 1: P 1/2, R 1/2 → 0.5; of 0: P 2/3, R 2/3 → 2/3
    assert got["accuracy"] == pytest.approx(0.6)
    assert got["macro_f1"] == pytest.approx((0.5 + 2 / 3) / 2)
    assert (got["sentences"], got["positives"], got["unanswered"]) == (5, 2, 1)


# --- reproduction report rows ---------------------------------------------------------------------


def extraction_scores(model: str, sentences: int, unanswered: int = 0) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"step": "introduction", "model": model, "prompt": "context", "sentences": sentences,
             "positives": 1, "unanswered": unanswered, "accuracy": 0.885, "macro_f1": 0.70,
             "max_tokens": None},
            {"step": "review", "model": "gpt-4o-mini", "prompt": "review", "sentences": 993,
             "positives": 493, "unanswered": 0, "accuracy": 0.93, "macro_f1": 0.90,
             "max_tokens": None},
        ]
    )  # fmt: skip


def extraction_report(scores) -> pd.DataFrame:
    from noveval.core.published import published
    from noveval.reproduction import report
    from noveval.reproduction.extraction import extraction_row

    limits = {"max_empty_share": 0.1, "max_failed_share": 0.05}
    rows = [
        report._base(row) | extraction_row(row, scores, limits)
        for row in published("extraction").itertuples(index=False)
    ]
    return pd.DataFrame(rows).set_index(["table", "metric"])


def test_extraction_rows_have_verdicts_only_under_the_papers_conditions():
    found = extraction_report(extraction_scores("gpt-5", 2300))
    assert found.loc[("A", "accuracy"), "verdict"] == "match"  # 0.885 rounds to 0.89
    assert found.loc[("A", "macro_f1"), "verdict"] == "outside"  # 0.70 vs 0.84, tolerance 0.02
    assert found.loc[("B", "accuracy"), "verdict"] == "match"
    assert found.loc[("B", "macro_f1"), "verdict"] == "outside"
    assert (found["source_kind"] == "printed").all()
    other = extraction_report(extraction_scores("smollm2-135m", 3, unanswered=1))
    reason = other.loc[("A", "accuracy"), "reason"]
    assert other.loc[("A", "accuracy"), "verdict"] == "not comparable"
    assert "model smollm2-135m (paper: gpt-5)" in reason
    assert "sentences 3 (paper: 2300)" in reason
    assert "failed_share 0.333 over reproduction.max_failed_share 0.05" in reason


def test_extraction_rows_are_not_run_without_a_validation():
    found = extraction_report(None)
    assert set(found["verdict"]) == {"not run"}


# --- the compute plan ----------------------------------------------------------------------------

EXPECTED = {
    "papers": 10,
    "introduction_sentences": 26,
    "review_sentences": 45,
    "sentence_chars": 100,
    "novelty_review_chars": 400,
}


def construction_section(nlpeer, validation=None) -> dict:
    return {
        "name": "venue",
        "nlpeer": str(nlpeer),
        "sentence_model": "gpt-5",
        "normalisation_model": "gpt-4o",
        "calls": "per_prompt",
        "decoding": {"temperature": 0.0, "max_tokens": None},
        "retrieval": {"corpus": "corpus.yaml", "top_k": 5, "encoder": "all-minilm-l6-v2"},
        "expected": EXPECTED,
        "validation": validation,
    }


def test_cells_count_the_nlpeer_folders_papers_else_the_expected_and_the_labelled_sentences(
    tmp_path,
):
    validation = {"models": ["gpt-4o-mini"], "prompts": ["context", "step"], "limit": 2}
    built = grid.NovBenchConstruction(construction_section(SAMPLE, validation))
    assert built.papers() == (3, True)  # paper-a, paper-b, paper-c (README.md is no paper)
    calls = {(c.dataset, c.model, c.batch, c.cell): c.calls for c in built.cell_calls()}
    assert calls == {
        ("venue", "gpt-5", "sentences", "introduction_sentences"): 3 * 26,
        ("venue", "gpt-5", "sentences", "review_sentences"): 3 * 45,
        ("venue", "gpt-4o", "normalisation", "normalisation"): 3,
        ("extraction", "gpt-4o-mini", "sentences", "context"): 2,
        ("extraction", "gpt-4o-mini", "sentences", "step"): 2,
        ("extraction", "gpt-4o-mini", "sentences", "review"): 2 + 2,  # novelty + other
        ("extraction", "gpt-4o-mini", "step", "step_decision"): 2,
    }
    assert built.batch_calls("venue", "gpt-5", "sentences") == 3 * 71
    assert built.batch_calls("extraction", "gpt-4o-mini", "sentences") == 8
    assert ("extraction", "gpt-4o-mini", "step") in built.batches()
    missing = grid.NovBenchConstruction(construction_section(tmp_path / "not-yet"))
    assert missing.papers() == (10, False)
    assert missing.batch_calls("venue", "gpt-4o", "normalisation") == 10


def test_the_plan_prices_each_construction_cell_with_the_authors_prompts():
    for name, shape in novbench_plan.AUTHORS_PROMPTS.items():  # the stand-ins are the pinned
        assert novbench_plan.prompt_shape(str(upstream_root()), name) == shape
    registry = load_registry("config/models.yaml")
    validation = {"models": ["gpt-4o-mini"], "prompts": ["few_shot"], "limit": None}
    section = construction_section("no-folder-here", validation)
    settings = PlanSettings()
    workloads = novbench_plan.novbench_construction_workloads(
        section, registry, "no-upstream-here", settings
    )
    table = plan_table(workloads, registry, concurrency=16, settings=settings)
    rows = table[table["model"] != "all"].set_index("step")
    introduction = rows.loc["build/introduction_sentences"]
    assert introduction["requests"] == 260 and introduction["rule"] == "infer_api"
    # The context prompt: 913 literal characters, the sentence (100) and its context (5 x 100),
    # 4 characters a token, 4 tokens of framing; gpt-5 reasons: 5 + 1000 new tokens a label.
    assert introduction["input_tokens"] == 260 * (math.ceil(1513 / 4) + 4)
    assert introduction["output_tokens"] == 260 * 1005
    normalisation = rows.loc["build/normalisation"]
    assert normalisation["input_tokens"] == 10 * (math.ceil((829 + 400) / 4) + 4)
    assert normalisation["output_tokens"] == 10 * math.ceil(507 / 4)
    assert rows.loc["extraction/few_shot", "requests"] == 2300
    assert rows.loc["extraction/review", "requests"] == 993
    assert (rows["api_cost_usd"] > 0).all()
    note = novbench_plan.construction_note(section)
    assert "10 papers (construction.novbench.expected.papers" in note
    assert "2,300 introduction sentences per prompt, 493 + 500 review sentences" in note
    assert "one call per occurrence at most (a repeated prompt shares its call)" in note


# --- sentences as the authors' construction scripts read them ------------------------------------

COLING_READING = {
    "review_fields": ["main"],
    "introduction_nodes": "all",
    "review_sentences": "spans",
    "carry_over_reviews": False,
}


def write_nlpeer_paper(root: Path, paper_id: str, nodes: list, reviews: list, meta: dict) -> None:
    """One paper folder in NLPeer's layout (v1: meta, reviews, paper.itg)."""
    folder = root / paper_id / "v1"
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "reviews.json").write_text(json.dumps(reviews))
    (folder / "paper.itg.json").write_text(json.dumps({"nodes": nodes}))


def nlpeer_review(text: str, sentences: list[str]) -> dict:
    """A COLING review as NLPeer holds it: report.main and the spans of its sentences."""
    spans, at = [], 0
    for sentence in sentences:
        begin = text.index(sentence, at)
        at = begin + len(sentence)
        spans.append([begin, at])
    return {"report": {"main": text}, "scores": {}, "meta": {"sentences": {"main": spans}}}


def read_as_config(root: Path, tmp_path: Path, reading: dict) -> pd.DataFrame:
    """The sentences table rule construction_novbench_sources writes for ``reading``."""
    out = [str(tmp_path / f"{name}.parquet") for name in ("papers", "sentences", "skipped")]
    read_sources(str(root), reading, None, *out)
    return pd.read_parquet(out[1])


def test_the_authors_coling_inputs_give_their_sentence_lists_for_all_86_papers(tmp_path):
    """coling_rebuttal.csv rebuilt as NLPeer folders, read with the shipped COLING-2020 config:
    every paper's introduction and review sentences are the authors' lists."""
    authors_csv = pd.read_csv(
        shared_file("novbench", "upstream", "rebuttal_result", "coling_rebuttal.csv")
    )
    root = tmp_path / "COLING2020"
    for row in authors_csv.itertuples():
        reviews = [
            nlpeer_review(review["review_text"], review["review_sentences"])
            for review in ast.literal_eval(row.reviews)
        ]
        nodes = [*ast.literal_eval(row.paper_introduction), {"ntype": "heading", "content": "2"}]
        meta = {"title": row.title, "abstract": row.abstract, "decision": row.decision}
        write_nlpeer_paper(root, str(row.paper_id), nodes, reviews, meta)
    shipped = yaml.safe_load((REPO / "config" / "coling2020-construction.yaml").read_text())
    section = shipped["construction"]["novbench"]
    reading = {**COLING_READING, **{key: section[key] for key in COLING_READING}}
    assert reading == COLING_READING
    table = read_as_config(root, tmp_path, reading)
    lists = table.groupby(["paper_id", "kind"], sort=False)["sentence"].agg(list)
    equal = {"introduction": 0, "review": 0}
    for row in authors_csv.itertuples():
        paper = str(row.paper_id)
        equal["introduction"] += lists[paper, "introduction"] == ast.literal_eval(
            row.introduction_sentence
        )
        equal["review"] += lists[paper, "review"] == ast.literal_eval(row.review_sentence)
    assert len(authors_csv) == 86
    assert equal == {"introduction": 86, "review": 86}


# A COLING paper with what their script keeps and pysbd or a paragraph filter would not: list items,
# a formula, "et al." and "e.g." (Punkt splits after both), review spans with whitespace around
# them and a span under 10 characters, and one review sentence repeated by a second review.
HAND_MADE_NODES = [
    {"ntype": "heading", "content": "Introduction"},
    {
        "ntype": "paragraph",
        "content": "Parsers need treebanks (Smith et al. 2019). Some use other signals, "
        "e.g. alignments. We propose a parser trained without trees.",
    },
    {"ntype": "list_item", "content": "Our contributions: (1) a tree-free parser;"},
    {"ntype": "list_item", "content": "(2) a benchmark of 12 languages."},
    {"ntype": "formula", "content": "p(y | x) = softmax(W h)"},
    {"ntype": "paragraph", "content": "Ok."},
    {"ntype": "list_item", "content": "a b"},
    {"ntype": "heading", "content": "Related Work"},
    {"ntype": "paragraph", "content": "Earlier parsers used trees throughout their training."},
]
HAND_MADE_REVIEWS = [
    nlpeer_review(
        "  The idea is new.  \nOk. The parser is compared to one baseline only.\n",
        ["  The idea is new.  ", "Ok. ", "The parser is compared to one baseline only.\n"],
    ),
    nlpeer_review("  The idea is new.  ", ["  The idea is new.  "]),
]
# Checked by hand against coling_process.py: nodes of >= 5 characters whatever their type,
# sent_tokenize (it ends sentences at "al." and "e.g."), sentences of >= 10 characters kept;
# review spans as cut, whitespace and all, the 4-character one too.
HAND_MADE_INTRODUCTION = [
    "Parsers need treebanks (Smith et al.",  # "2019)." next: under 10 characters
    "Some use other signals, e.g.",
    "alignments.",
    "We propose a parser trained without trees.",
    "Our contributions: (1) a tree-free parser;",
    "(2) a benchmark of 12 languages.",
    "p(y | x) = softmax(W h)",
]
HAND_MADE_REVIEW = [
    "  The idea is new.  ",
    "Ok. ",
    "The parser is compared to one baseline only.\n",
    "  The idea is new.  ",
]


def run_authors_coling_scripts(root: Path, cwd: Path) -> pd.DataFrame:
    """Their COLING_Paper_process.py and coling_process.py, run as written on ``root``'s papers
    (nltk's own sent_tokenize, its punkt_tab written from the pinned parameters)."""
    from nltk.tokenize.punkt import save_punkt_params

    upstream = upstream_root()
    shutil.copytree(root, cwd / "COLING")
    punkt_dir = cwd / "nltk_data" / "tokenizers" / "punkt_tab" / "english"
    punkt_dir.parent.mkdir(parents=True)
    save_punkt_params(sentences.punkt_parameters(), dir=str(punkt_dir))
    env = {**os.environ, "NLTK_DATA": str(cwd / "nltk_data")}
    for script in (
        "code/data_process/COLING_Paper_process.py",
        "rebuttal_result/coling_process.py",
    ):
        subprocess.run([sys.executable, str(upstream / script)], cwd=cwd, env=env, check=True)
        shutil.copy(cwd / "Coling_2020.json", cwd / "coling_rev_fin.json")
    return pd.read_csv(cwd / "coling_rebuttal.csv")


def test_a_hand_made_coling_paper_gives_the_sentences_of_the_authors_code(tmp_path):
    root = tmp_path / "nlpeer"
    write_nlpeer_paper(
        root, "p1", HAND_MADE_NODES, HAND_MADE_REVIEWS, {"title": "T", "abstract": "A"}
    )
    table = read_as_config(root, tmp_path, COLING_READING)
    assert table[table["kind"] == "introduction"]["sentence"].tolist() == HAND_MADE_INTRODUCTION
    assert table[table["kind"] == "review"]["sentence"].tolist() == HAND_MADE_REVIEW
    (cwd := tmp_path / "authors").mkdir()
    (theirs,) = run_authors_coling_scripts(root, cwd).itertuples()
    assert ast.literal_eval(theirs.introduction_sentence) == HAND_MADE_INTRODUCTION
    assert ast.literal_eval(theirs.review_sentence) == HAND_MADE_REVIEW
    # The EMNLP rule on the same introduction: its paragraphs only.
    paragraphs = nlpeer.Extraction(("main",), review_sentences="spans")
    assert nlpeer.introduction_sentences(HAND_MADE_NODES, paragraphs) == HAND_MADE_INTRODUCTION[:4]


def test_the_emnlp_loop_re_reads_earlier_reviews_fields_when_asked():
    reviews = [
        {"report": {"a": "First review says this.", "b": "It is sound overall."}},
        {"report": {"a": "Second review disagrees.", "b": "Too short"}},
    ]
    own = nlpeer.review_sentences(reviews, nlpeer.Extraction(("a", "b")))
    assert own == ["First review says this.", "It is sound overall.", "Second review disagrees."]
    carried = nlpeer.Extraction(("a", "b"), carry_over_reviews=True)
    assert nlpeer.review_sentences(reviews, carried) == [*own[:2], *own]
    with pytest.raises(
        nlpeer.SkippedPaper, match="review 0 has no sentence spans meta.sentences.a"
    ):
        nlpeer.review_sentences(reviews, nlpeer.Extraction(("a",), review_sentences="spans"))


def test_punkt_from_the_package_and_from_nltks_folder_format_are_one_model(tmp_path):
    from nltk.tokenize.punkt import save_punkt_params

    package = sentences.punkt_parameters()
    assert sentences.punkt_digest(package) == sentences.PUNKT_ENGLISH_DIGEST
    folder = tmp_path / "english"
    save_punkt_params(package, dir=str(folder))
    assert sentences.punkt_digest(sentences.punkt_parameters(str(folder))) == (
        sentences.PUNKT_ENGLISH_DIGEST
    )
    (folder / "abbrev_types.txt").write_text("e.g\n")
    with pytest.raises(ValueError, match="are not NLTK's English punkt_tab"):
        sentences.punkt_parameters(str(folder))
    archive = tmp_path / "punkt_tab.zip"
    archive.write_bytes(b"not the archive")
    with pytest.raises(ValueError, match=f"pinned {sentences.PUNKT_TAB_SHA256}"):
        sentences.download_punkt_model(tmp_path / "out", archive)


def test_per_occurrence_calls_send_a_repeated_sentence_again():
    spec = load_registry(REPO / "config" / "models.yaml").model("gpt-5")
    table = pd.DataFrame(
        {
            "item_id": ["r0", "r1", "r2"],
            "sentence": ["The idea is new.", "Weak.", "The idea is new."],
        }
    )
    shared = prompt_requests(table, "review", spec, {}, upstream_root())
    own = prompt_requests(table, "review", spec, {}, upstream_root(), per_occurrence=True)
    assert shared[0]["request_id"] == shared[2]["request_id"] == own[0]["request_id"]
    assert len({row["request_id"] for row in own}) == 3
    assert own[2]["messages"] == own[0]["messages"]
