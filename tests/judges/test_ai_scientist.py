"""AI-Scientist's novelty check: the loop's turns on a hand-made transcript.

The round logic is checked with hand-written format strings (not the authors' prompts), so the
expected messages are written out by hand; the upstream prompts themselves are read from a shared
copy of the Idea Novelty Checker where there is one.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest
from conftest import (
    LOOPBACK_KEY,
    REPO,
    S2_TEST_KEY,
    config_schema,
    loopback_registry,
    shared_file,
)
from loopback_api import ANSWER
from test_judges_systems import default_config

from noveval.cluster.preflight.access import searches_literature, semantic_scholar_key_check
from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.inference.engines.client import ClientSettings
from noveval.inference.engines.journal import Journal
from noveval.inference.engines.servers import serve
from noveval.inference.ledger import BudgetExceeded, Spending, ledger_spend
from noveval.inference.workloads import (
    PlanSettings,
    output_tokens_per_call,
    request_tokens,
    text_tokens,
)
from noveval.judges.grid.build import judges_grid
from noveval.judges.instances import load_release, write_instances
from noveval.judges.stages.ai_scientist import ai_scientist_check
from noveval.judges.statistics.aggregation import FAILED
from noveval.judges.statistics.summary import metrics_table
from noveval.judges.systems.ai_scientist import (
    SEARCH_FIELDS,
    Check,
    Prompts,
    Turn,
    extract_json,
    paper_line,
    papers_text,
    read_turn,
    run_checks,
    searcher,
    system_settings,
)
from noveval.literature.semantic_scholar import SemanticScholar
from noveval.planning.judges import judges_workloads
from noveval.planning.literature import ai_scientist_searches
from noveval.planning.table import plan_table
from noveval.reproduction.conditions import Conditions, config_conditions, paper_conditions
from noveval.reproduction.judges import judges_row
from noveval.reproduction.targets import configured

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SAMPLE = REPO / "data" / "sample" / "judges" / "human-only"

PROMPTS = Prompts(
    system="Decide within {num_rounds} rounds.",
    round="Round {current_round}/{num_rounds}. Idea: {idea}. Results: [{last_query_results}]",
    paper="{i}: {title}. {authors}. {venue}, {year}. cites {cites}. {abstract}",
)
PAPER = {
    "title": "Prior Work",
    "authors": [{"authorId": "1", "name": "A. One"}, {"authorId": "2", "name": "B. Two"}],
    "venue": "ACL",
    "year": 2023,
    "citationCount": 7,
    "abstract": "We did it.",
}


def test_turns_decide_search_or_keep_the_last_results():
    assert read_turn("THOUGHT: clear. Decision made: Novel.") == Turn(decision=1)
    assert read_turn("decision made: not novel.\n```json\n{}\n```") == Turn(decision=0)
    fenced = 'THOUGHT: search.\nRESPONSE:\n```json\n{"Query": "graph topic models"}\n```'
    assert read_turn(fenced) == Turn(query="graph topic models")
    assert read_turn('no fence {"Query": "htm"} then {"x": 1}') == Turn(query="htm")
    assert read_turn("```json\n{broken\n```") == Turn()  # the fence wins over later braces
    assert read_turn('```json\n{"Query": ""}\n```') == Turn()
    assert extract_json('```json\n{"Query": "a\x01b"}\n```') == {"Query": "ab"}


def test_a_hand_made_transcript_of_three_rounds():
    searched = []

    def search(query):
        searched.append(query)
        return [PAPER] if query == "prior work" else []

    check = Check(idea="topic trees", rounds=3)
    assert check.messages(PROMPTS) == [
        {"role": "system", "content": "Decide within 3 rounds."},
        {"role": "user", "content": "Round 1/3. Idea: topic trees. Results: []"},
    ]
    check.answer(PROMPTS, '```json\n{"Query": "prior work"}\n```', search)
    shown = "0: Prior Work. A. One, B. Two. ACL, 2023. cites 7. We did it."
    assert check.results == shown and check.open
    check.answer(PROMPTS, "I am unsure.", search)  # no query, no decision: results kept
    assert check.results == shown and searched == ["prior work"]
    third = check.messages(PROMPTS)
    assert [m["role"] for m in third] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert third[-1]["content"] == f"Round 3/3. Idea: topic trees. Results: [{shown}]"
    assert third[4]["content"] == "I am unsure."
    check.answer(PROMPTS, "Decision made: not novel.", search)
    assert (check.decision, check.open) == (0, False)


def test_rounds_running_out_are_no_verdict_and_empty_results_show_nothing():
    check = Check(idea="x", rounds=2)
    for _ in range(2):
        check.answer(PROMPTS, '{"Query": "nothing"}', lambda query: [])
    assert (check.decision, check.open, check.results) == (None, False, "")
    assert (
        papers_text(PROMPTS, [{"title": "T", "authors": "C. Three"}])
        == "0: T. C. Three. , . cites . "
    )


def test_the_found_paper_line_is_read_from_the_authors_check_novelty():
    source = shared_file(
        "novelty-eval", "upstream", "src", "novelty_eval", "baselines", "ai_scientist",
        "check_novelty.py",
    ).read_text()  # fmt: skip
    line = paper_line(source)
    assert line.startswith("{i}: {title}. {authors}.") and "{abstract}" in line
    with pytest.raises(ValueError, match="expected one found-paper format, got 0"):
        paper_line("x = 'no such line'")


def test_the_pinned_prompts_render_the_first_round():
    """The shared copy of simra-shahid/idea_novelty_checker at the pinned commit."""
    root = shared_file("novelty-eval", "model-code", "novelty_checker")
    prompts = Prompts.read(root, shared_file("novelty-eval", "upstream"))
    first = Check(idea="topic trees", rounds=10).messages(prompts)
    assert "You will be given 10 to decide" in first[0]["content"]
    assert "<experiment.py>" not in first[0]["content"]  # the original's code block is cut
    assert first[1]["content"].startswith("Round 1/10.") and "topic trees" in first[1]["content"]


def two_rounds_on_the_loopback(loopback, journals, serve_log, monkeypatch, decoding, spending):
    """A runner of gpt-5.4's 2 rounds over 2 ideas on the loopback provider, whose fixed answer
    neither decides nor queries (journals under ``journals``, the ledger read through
    ``spending``)."""
    spec = REGISTRY.model("gpt-5.4")
    monkeypatch.setenv(spec.api_key_env, "sk-loopback")
    pointed = replace(spec, base_url=loopback.base_url(spec.api))
    ideas = [{"instance_id": str(i), "ideas": [f"idea {i}"]} for i in range(2)]

    def run(spending=spending):
        with Journal(journals / spec.name, "ai_scientist") as journal:
            with serve(pointed, serve_log) as endpoint:
                return run_checks(
                    ideas, spec, endpoint, journal, ClientSettings(2, 30, 0),
                    lambda instance_id, query: [], PROMPTS, 2, decoding, spending,
                )  # fmt: skip

    return run


def test_rounds_go_through_the_request_layer_and_a_rerun_sends_no_call(
    loopback, tmp_path, monkeypatch
):
    """2 ideas x 2 rounds = 4 calls at (1,000 x $2.5 + 200 x $15) / 1M each; round 2 carries
    round 1."""
    decoding = {"max_tokens": 64, "reasoning_effort": "high"}
    run = two_rounds_on_the_loopback(
        loopback, tmp_path / "journal", tmp_path / "serve.log", monkeypatch, decoding, None
    )
    sent_before = len(loopback.bodies)
    checks, calls = run()
    assert len(loopback.bodies) - sent_before == 4
    assert [(c["instance_id"], c["round"]) for c in calls] == [
        ("0", 1),
        ("1", 1),
        ("0", 2),
        ("1", 2),
    ]
    assert sum(c["cost_usd"] for c in calls) == pytest.approx(4 * 0.0055)
    assert all(check.decision is None and not check.open for check in checks.values())
    second = loopback.bodies[-1][2]["input"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == ANSWER
    rerun, _ = run()
    assert len(loopback.bodies) - sent_before == 4  # every call answered by the journal
    assert [c.exchanges for c in rerun.values()] == [c.exchanges for c in checks.values()]


def test_a_cap_stops_the_rounds_between_two_slices_and_a_larger_one_sends_the_rest(
    loopback, tmp_path, monkeypatch
):
    """The ledger as every calling job reads it: a cap of 0.008 USD, read before each call
    (check_every_calls 1), lets round 1's two calls of 0.0055 USD go and stops round 2 with them
    journaled; with a cap of 1 USD a rerun sends round 2's two calls only."""
    cache = tmp_path / "cache"

    def capped(cap: float) -> Spending:
        return Spending.of({"max_usd": cap, "check_every_calls": 1}, cache)

    run = two_rounds_on_the_loopback(
        loopback, cache, tmp_path / "serve.log", monkeypatch, {"max_tokens": 64}, None
    )
    sent_before = len(loopback.bodies)
    with pytest.raises(BudgetExceeded, match="budget.max_usd = 0.008 USD reached"):
        run(capped(0.008))
    assert len(loopback.bodies) - sent_before == 2
    assert ledger_spend(cache, "judges") == pytest.approx(2 * 0.0055)
    checks, calls = run(capped(1.0))
    assert len(loopback.bodies) - sent_before == 4
    assert [(c["instance_id"], c["round"]) for c in calls] == [
        ("0", 1),
        ("1", 1),
        ("0", 2),
        ("1", 2),
    ]
    assert ledger_spend(cache, "judges") == pytest.approx(4 * 0.0055)


def test_a_round_searches_the_s2_stand_in_without_the_ideas_own_paper(loopback_s2, tmp_path):
    client = SemanticScholar(loopback_s2.base_url, S2_TEST_KEY["S2_API_KEY"], tmp_path, 1.0)
    search = searcher(client, "2025-03-01", ["Byte-level language models"])
    check = Check(idea="bytes, no tokenizer", rounds=2)
    check.answer(PROMPTS, '```json\n{"Query": "byte-level language models"}\n```', search)
    titles = [line.split(". ")[0].split(": ", 1)[1] for line in check.results.split("\n\n")]
    assert titles and "Byte-Level Language Models" not in titles
    path, params, status = loopback_s2.requests[-1]
    assert (path, params["query"], status) == (
        "/graph/v1/paper/search", "byte-level language models", 200
    )  # fmt: skip
    assert params["publicationDateOrYear"] == ":2025-03-01" and params["limit"] == "10"
    assert params["fields"].split(",") == SEARCH_FIELDS


def scripted_answer(body: dict) -> str:
    """The loopback model's answers: the tokenizer idea searches, then decides novel; the
    question-answering idea decides not novel at once; any other idea neither decides nor
    searches."""
    users = [m["content"] for m in body["messages"] if m["role"] == "user"]
    if "fixed tokenizer" in users[0]:
        if len(users) == 1:
            return 'RESPONSE:\n```json\n{"Query": "byte-level language models"}\n```'
        return "THOUGHT: nothing close. Decision made: novel."
    if "question answering" in users[0]:
        return "Decision made: not novel."
    return "I cannot tell."


def test_a_cell_checks_its_ideas_and_a_rerun_calls_and_searches_nothing(
    loopback, loopback_s2, tmp_path, monkeypatch
):
    """Three sample ideas (labels 1, 0, 1) with gpt-4o on the loopback provider and the S2
    stand-in, at most 3 rounds: the first searches once and decides novel in round 2, the second
    decides not novel in round 1, the third never decides (3 garbled rounds: wrong, as the
    authors score it). 6 calls at 1,000 x $2.5 + 200 x $10 per million = $0.0045 each;
    macro-F1 (2/3 + 1) / 2."""
    for name, value in {**LOOPBACK_KEY, **S2_TEST_KEY}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(loopback.answers, "gpt-4o-2024-08-06", scripted_answer)
    registry = loopback_registry(tmp_path / "models.yaml", loopback, "gpt-4o")
    table = load_release(SAMPLE / "pointwise.yaml", "human-only", "pointwise").head(3)
    write_instances(table, tmp_path / "instances.parquet")
    cell = {"dataset": "tiny", "model": "gpt-4o", "setup": "human-only", "change": "ai_scientist"}
    settings = {"rounds": 3, "effort": "high", "cutoff": "2025-03-01", "max_tokens": 64}
    out = tmp_path / "cell"

    def check():
        ai_scientist_check(
            str(tmp_path / "instances.parquet"), cell, str(registry),
            {"temperature": 0.0, "seed": 0}, {**settings, "all_failed": "wrong"},
            {"concurrency": 2, "request_timeout_s": 30, "retry_for": 0,
             "server_start_timeout_s": 30},
            {"base_url": loopback_s2.base_url, "requests_per_second": 0.9},
            str(tmp_path / "s2"), str(tmp_path / "journals"), str(out / "verdicts.parquet"),
            str(out / "transcript.jsonl"), str(tmp_path / "check.log"),
        )  # fmt: skip
        return pd.read_parquet(out / "verdicts.parquet"), [
            json.loads(line) for line in (out / "transcript.jsonl").read_text().splitlines()
        ]

    sent, searched = len(loopback.bodies), len(loopback_s2.requests)

    def answered_searches():  # a request turned away by the stand-in's rate is retried
        return [query for _, query, status in loopback_s2.requests[searched:] if status == 200]

    verdicts, rounds = check()
    assert len(loopback.bodies) - sent == 6 and len(answered_searches()) == 1
    assert verdicts[["label", "verdict", "n_calls", "n_failed"]].values.tolist() == [
        [1, 1, 2, 0],
        [0, 0, 1, 0],
        [1, FAILED, 3, 3],
    ]
    assert verdicts["cost_usd"].sum() == pytest.approx(6 * 0.0045)
    assert set(verdicts["change"]) == {"ai_scientist"}
    first = [r for r in rounds if r["instance_id"] == verdicts["instance_id"][0]]
    assert [(r["round"], r["did"]) for r in first] == [
        (1, "searched 'byte-level language models'"),
        (2, "decided novel"),
    ]
    assert "Byte-Level Language Models" in first[0]["found"]
    shown = [  # the tokenizer idea's second round: the third idea's may arrive first
        b for _, _, b in loopback.bodies[sent:]
        if len(b["messages"]) == 4 and "fixed tokenizer" in b["messages"][1]["content"]
    ]  # fmt: skip
    assert len(shown) == 1
    shown = shown[0]
    assert "Byte-Level Language Models" in shown["messages"][3]["content"]
    assert shown["messages"][0]["content"].startswith("You check whether a research idea")
    row = metrics_table(verdicts, "pointwise", 50, 0).iloc[0]
    assert (row["n_calls"], row["n_failed_calls"]) == (6, 3)
    assert row["macro_f1"] == pytest.approx((2 / 3 + 1) / 2)
    assert row["cost_usd"] == pytest.approx(6 * 0.0045)
    again, rerun_rounds = check()
    assert len(loopback.bodies) - sent == 6 and len(answered_searches()) == 1
    pd.testing.assert_frame_equal(again, verdicts)
    assert rerun_rounds == rounds


def test_the_system_settings_default_to_the_authors_run_config():
    assert system_settings({"models": ["gpt-5.4"]}) == {
        "rounds": 10,
        "effort": "high",
        "cutoff": None,
    }
    assert system_settings({"models": ["gpt-5.4"], "rounds": 1})["rounds"] == 1


def test_its_published_rows_are_compared_but_never_as_equal():
    """The paper grid runs the cost-efficiency figure's AI-Scientist rows; even an equal value is
    not comparable: the run's Semantic Scholar searches are not the authors'."""
    config = default_config("paper.yaml")
    grid = configured(config)["judges"]
    assert "ai_scientist" in grid["changes"] and "claude-opus-4-6" in grid["models"]
    rows = [
        row for row in published("judges").itertuples(index=False) if row.change == "ai_scientist"
    ]
    assert len(rows) == 8 and not any(row.not_run_reason for row in rows)
    row = next(r for r in rows if r.model == "gpt-5.4" and r.metric == "macro_f1")
    cell = {"model": "gpt-5.4", "setup": row.setup, "change": "ai_scientist"}
    metrics = pd.DataFrame(
        [cell | {"macro_f1": row.paper_value, "n_calls": 900, "n_failed_calls": 0}]
    ).assign(substitutes_for=None)
    paper = paper_conditions(
        REPO / "config" / "config.yaml",
        REPO / "config" / "paper.yaml",
        config_schema(),
        REPO / "config" / "models.yaml",
    )
    run = config_conditions(config, REGISTRY)
    assert run["judges"]["ai_scientist"] | {"search": None} == {
        "rounds": 10, "effort": "high", "cutoff": "2025-03-01", "search": None,
    }  # fmt: skip
    conditions = Conditions(run, paper, {"max_empty_share": 1, "max_failed_share": 1})
    result = judges_row(row, grid, {("novelty-eval", "pointwise"): metrics}, {}, conditions)
    assert result["verdict"] == "not comparable"
    assert "ai_scientist.search" in result["reason"] and "authors' run" in result["reason"]


def test_the_plan_prices_every_round_of_every_idea_and_its_searches():
    """300 declared ideas at 2 rounds: 600 calls; an idea's second call carries the first
    round's message, 10 shown papers of 300 tokens and the first answer on top of the opening
    call (prompts rendered from the shipped sample); one search a round at 1 a second."""
    settings = PlanSettings()
    config = default_config()
    judges = {**config["judges"], "systems": {"ai_scientist": {"models": ["gpt-5.4"], "rounds": 2}}}
    missing = "nowhere/pointwise.yaml"
    cell = {
        "dataset": "d",
        "model": "gpt-5.4",
        "format": "pointwise",
        "setup": "s",
        "ideas": "standard",
    }
    [workload] = judges_workloads(
        [cell | {"change": "ai_scientist"}], {"d": {"s": {"pointwise": missing}}},
        {missing: 300}, judges, config["decoding"], REGISTRY, None, settings,
    )  # fmt: skip
    prompts = Prompts.builtin()
    sample = load_release(SAMPLE / "pointwise.yaml", "s", "pointwise")
    firsts = [Check(idea[0], 2).messages(prompts) for idea in sample["ideas"]]
    opening = sum(request_tokens(json.dumps(chat), settings) for chat in firsts) / len(firsts)
    answer = output_tokens_per_call(REGISTRY.model("gpt-5.4"), judges["max_tokens"], settings)
    round_message = opening - text_tokens(prompts.system, settings)
    assert (workload.calls, workload.output_tokens, workload.stand_in) == (600, 600 * answer, True)
    assert workload.input_tokens == round(300 * (2 * opening + round_message + 3000 + answer))
    searches = ai_scientist_searches([workload], judges, {"semantic_scholar": {}})
    assert (searches.ideas, searches.searches) == (300, 600)
    assert searches.hours == pytest.approx(600 / 3600)
    row = plan_table([workload], REGISTRY, 16, settings).iloc[0]
    assert (row["rule"], row["jobs"]) == ("judges_ai_scientist", 1)
    tokens = (workload.input_tokens * 2.5 + workload.output_tokens * 15.0) / 1e6
    assert row["api_cost_usd"] == pytest.approx(tokens, abs=0.01)


def test_its_cells_run_outside_the_batches_and_a_missing_effort_is_named():
    config = default_config()
    systems = config["judges"]["systems"]
    systems["ai_scientist"] = {"models": ["gpt-5.4"], "setups": ["human-only"]}
    grid = judges_grid(config, REGISTRY)
    [cell] = [c for c in grid.cells if c.change == "ai_scientist"]
    assert (cell.model, cell.format, cell.setup, cell.batched) == (
        "gpt-5.4", "pointwise", "human-only", False
    )  # fmt: skip
    assert ("sample", "gpt-5.4", "cells") not in grid.batches()
    systems["ai_scientist"]["effort"] = "max"
    with pytest.raises(ValueError, match="ai_scientist.effort: gpt-5.4 has no reasoning effort"):
        judges_grid(config, REGISTRY)


def test_preflight_asks_for_the_semantic_scholar_key_of_the_check():
    config = {"judges": {"changes": ["reference"], "systems": {"ai_scientist": {}}}}
    assert searches_literature(config)
    check = semantic_scholar_key_check(searches_literature(config), {})
    assert not check.ok and "the AI-Scientist check" in check.detail
    assert not searches_literature({"judges": {"changes": ["reference"], "systems": {}}})
