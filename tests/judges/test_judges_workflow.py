"""The judge track end to end with the real SmolLM2, and a count of the calls it sends."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from conftest import (
    LOOPBACK_KEY,
    REPO,
    loopback_registry,
    run_snakemake,
    snakemake_env,
    tiny_judges_release,
    write_yaml,
)

from noveval.judges.statistics.aggregation import TIE

pytestmark = [pytest.mark.workflow, pytest.mark.model]

FIGURES = ("cost_quality.png", "motivation.png", "d_minus_sources.png")


def pairwise_outputs(tmp_path) -> list[str]:
    """The tiny dataset's pairwise metrics and tables."""
    out = tmp_path / "results" / "judges" / "tiny" / "pairwise"
    return [str(out / "metrics.csv"), str(out / "tables.md")]


def judges_config(tmp_path, release: dict, top: dict | None = None, **judges) -> str:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["results"] = str(tmp_path / "results")
    config["novbench"]["datasets"] = {}
    config["judges"].update(
        {
            "datasets": {"tiny": release},
            "calls": {"pointwise": 1, "pairwise_per_order": 1},
            "max_tokens": 64,
            "reasoning_chars": 60,
            "bootstrap": {"resamples": 200, "seed": 42},
            **judges,
        }
    )
    config.update(top or {})
    return str(write_yaml(tmp_path / "config.yaml", config))


def test_judge_grid_end_to_end(embedded_run):
    """The shared run's judge cells: every change, both formats, the rewrites and related work,
    the tables and figures."""
    out = embedded_run.results / "judges" / "tiny"
    pairwise = pd.read_csv(out / "pairwise" / "metrics.csv")
    pointwise = pd.read_csv(out / "pointwise" / "metrics.csv")
    # a cell's display label joins its change and the form of its ideas (purpose_mechanism: the
    # reference on the ideas as plans)
    assert set(pairwise["change_label"]) == {
        "reference", "P3", "retrieval", "purpose_mechanism", "no_aggregation"}  # fmt: skip
    assert set(pointwise["change_label"]) == {
        "reference", "retrieval", "purpose_mechanism", "no_aggregation", "ai_scientist",
        "agentic", "novelty_checker"}  # fmt: skip
    assert (pairwise["n_instances"] == 2).all() and (pointwise["n_instances"] == 2).all()
    reference = pairwise.set_index("change_label").loc["reference"]
    assert reference["n_calls"] == 4 and reference["flip_rate"] == 0
    # JSON-schema-constrained answers always parse, even from a 135M model.
    assert reference["n_failed_calls"] == 0
    assert pairwise["strict_accuracy"].between(0, 1).all()
    assert pointwise["macro_f1"].between(0, 1).all()
    assert "Tie rate" in (out / "pairwise" / "tables.md").read_text()
    for figure in FIGURES:
        assert (out / figure).stat().st_size > 5_000
    rewritten = pd.read_parquet(
        out / "pairwise" / "human-plus-generated" / "instances-purpose_mechanism.parquet"
    )
    assert rewritten["ideas"].map(len).eq(2).all()
    related = pd.read_parquet(out / "pairwise" / "human-plus-generated" / "related.parquet")
    # the assisted search: per idea one related-work block in the authors' format, or none
    blocks = [block for ideas in related["related"] for shown in ideas for block in shown]
    assert related["related"].map(len).eq(2).all()
    assert all(block.startswith("[metadata-1]\ntitle: ") for block in blocks)
    cells = out / "smollm2-135m" / "pairwise" / "human-plus-generated" / "standard"
    assert (cells / "reference" / "requests.parquet").exists()
    assert not (cells / "no_aggregation" / "requests.parquet").exists()


def test_the_retrieval_cells_search_the_loopback_semantic_scholar(embedded_run, loopback_s2):
    """The literature search's two LLM batches ran through the journal; its searches reached
    the stand-in with the key, and each answer is cached."""
    out = embedded_run.results / "judges" / "tiny" / "smollm2-135m" / "responses"
    contributions = pd.read_parquet(out / "search_contributions.parquet")
    queries = pd.read_parquet(out / "search_queries.parquet")
    assert len(contributions) == 2 * 2 + 2  # one call per idea: 2 pairs, 2 ideas
    assert 0 < len(queries) <= len(contributions)
    statuses = [status for path, _, status in loopback_s2.requests if "/paper/search" in path]
    assert statuses and 403 not in statuses
    # each answer is cached once in the run's cache, which the dedicated judges' searches share
    # (the session's stand-in also answers other tests' searches)
    cache = embedded_run.results / "literature" / "semantic_scholar"
    answered = [path for path, _, status in loopback_s2.requests if status == 200]
    assert 0 < len(list(cache.glob("*.json"))) <= len(answered)
    log = embedded_run.results / "logs" / "judges" / "tiny" / "pointwise"
    assert (
        "requests sent to Semantic Scholar"
        in (log / "human-plus-generated" / "related.log").read_text()
    )


def test_the_agentic_judge_searches_and_its_cost_counts_them(embedded_run):
    """gpt-5.6-sol on the loopback server: one call per idea, each with one web search; a call
    costs 1,000 input tokens at $5/M, 200 output tokens at $30/M and one search at $10/1k. The
    loopback's pairwise answer is no pointwise verdict: both calls are counted as failed."""
    out = embedded_run.results / "judges" / "tiny"
    agentic = pd.read_csv(out / "pointwise" / "metrics.csv").set_index("change").loc["agentic"]
    assert agentic["model"] == "gpt-5.6-sol"
    assert (agentic["n_calls"], agentic["n_failed_calls"], agentic["web_searches"]) == (2, 2, 2)
    assert agentic["cost_usd"] == pytest.approx(2 * (0.005 + 0.006 + 0.01))
    assert pd.isna(agentic["flip_rate"])  # its backbone has no reference run
    requests = pd.read_parquet(
        out
        / "gpt-5.6-sol"
        / "pointwise"
        / "human-plus-generated"
        / "standard"
        / "agentic"
        / "requests.parquet"
    )
    assert (
        requests["tools"].map(yaml.safe_load).tolist()
        == [[{"type": "web_search", "filters": {"allowed_domains": ["arxiv.org"]}}]] * 2
    )
    log = (
        embedded_run.results
        / "logs"
        / "judges"
        / "tiny"
        / "gpt-5.6-sol"
        / "cells"
        / "1-of-1"
        / "infer.log"
    )
    assert log.read_text().count(": 1 web searches") == 2


def test_the_novelty_checker_judges_the_ideas_with_its_calls_counted(embedded_run):
    """SmolLM2 as the checker's model with the builtin prompts: per idea its keywords and
    facets, one RankGPT window when the embedding cut holds 5 papers (the stand-in's snippet
    search finds them), and a verdict when a paper was found; its metrics row counts those
    calls, an idea without a class as failed."""
    out = embedded_run.results / "judges" / "tiny"
    metrics = pd.read_csv(out / "pointwise" / "metrics.csv").set_index("change")
    checker = metrics.loc["novelty_checker"]
    cell = (
        out / "smollm2-135m" / "pointwise" / "human-plus-generated" / "standard" / "novelty_checker"
    )
    transcript = [json.loads(line) for line in (cell / "transcript.jsonl").read_text().splitlines()]
    assert len(transcript) == 2 and all(len(t["shown"]) <= 3 for t in transcript)
    assert all(len(t["ranked"]) <= 5 for t in transcript)
    assert any(len(t["ranked"]) == 5 for t in transcript), "no idea reached a RankGPT window"
    windows = sum(len(t["ranked"]) == 5 for t in transcript)
    assert checker["model"] == "smollm2-135m" and checker["n_instances"] == 2
    assert checker["n_calls"] == sum(2 + bool(t["shown"]) for t in transcript) + windows
    assert checker["n_failed_calls"] == sum(t["decision"] is None for t in transcript)
    assert pd.notna(checker["macro_f1"]) and checker["compute_hours"] > 0
    verdicts = pd.read_parquet(cell / "verdicts.parquet")
    assert verdicts["latency_s"].gt(0).all() and not verdicts["cost_usd"].isna().any()


def sent_ids(loopback, since: int) -> list[str]:
    """The request ids of the calls the loopback providers got since call ``since``."""
    return [request_id for _, request_id, _ in loopback.bodies[since:]]


def test_no_aggregation_and_reruns_send_no_new_calls(tmp_path, loopback):
    """Plumbing of the call count: gpt-4o on the loopback provider judges."""
    release = tiny_judges_release(tmp_path, pairs=2, ideas=0)
    top = {"registry": str(loopback_registry(tmp_path / "models.yaml", loopback, "gpt-4o"))}
    common = {
        "models": ["gpt-4o"],
        "calls": {"pointwise": 1, "pairwise_per_order": 2},
        "max_tokens": 24,
        "motivation": {"model": "gpt-4o", "changes": ["reference", "no_aggregation"]},
    }
    env = snakemake_env(**LOOPBACK_KEY)
    wanted = pairwise_outputs(tmp_path)
    config = judges_config(tmp_path, release, top, changes=["reference"], **common)
    before = len(loopback.bodies)
    run_snakemake(*wanted, "--cores", "1", "--configfile", config, env=env)
    sent = sent_ids(loopback, before)
    assert len(sent) == 2 * 2 * 2 and len(set(sent)) == len(sent)  # pairs × orders × calls

    config = judges_config(
        tmp_path, release, top, changes=["reference", "no_aggregation"], **common
    )
    run_snakemake(*wanted, "--cores", "1", "--configfile", config, env=env)
    run_snakemake(
        *wanted, "--forcerun", "infer", "infer_api", "--cores", "1", "--configfile", config, env=env
    )
    assert sent_ids(loopback, before) == sent, "no_aggregation or a rerun called the model"
    metrics = pd.read_csv(tmp_path / "results" / "judges" / "tiny" / "pairwise" / "metrics.csv")
    counts = metrics.set_index("change")["n_calls"]
    assert counts["reference"] == 8 and counts["no_aggregation"] == 4


def test_ideation_comparison_reuses_generations_and_reports_flips(tmp_path, loopback):
    """Two generators (hosted models on the loopback provider, answering with an idea: the
    plumbing is under test) write ideas for the same areas; gpt-4o judges them under two
    prompts, and the generations are made once however many cells read them."""
    release = tiny_judges_release(tmp_path, pairs=2, ideas=0)
    models = ("gpt-4o", "gpt-5.1", "gpt-5.2")
    registry = loopback_registry(tmp_path / "models.yaml", loopback, *models)
    for generator in ("gpt-5.1", "gpt-5.2"):
        loopback.answers[generator] = f"An idea of {generator}: a method that " + "x" * 40
    generation = {
        "generators": [],
        "base_setup": "human-plus-generated",
        "max_tokens": 64,
        "comparisons": [{"stronger": "gpt-5.1", "weaker": "gpt-5.2"}],
    }
    config = judges_config(
        tmp_path,
        release,
        {"registry": str(registry)},
        models=["gpt-4o"],
        changes=["reference", "P3"],
        generation=generation,
        motivation={"model": "gpt-4o", "changes": ["reference", "P3"]},
    )
    out = tmp_path / "results" / "judges" / "tiny"
    wanted = [str(out / "ideation.md"), str(out / "d_minus_sources.png")]
    env = snakemake_env(**LOOPBACK_KEY)
    before = len(loopback.bodies)
    try:
        run_snakemake(*wanted, "--cores", "1", "--configfile", config, env=env)
    finally:
        for generator in ("gpt-5.1", "gpt-5.2"):
            loopback.answers.pop(generator)
    called = [body.get("model") for _, _, body in loopback.bodies[before:]]
    assert called.count("gpt-5.1") == called.count("gpt-5.2") == 2  # one idea per pair, once
    setup = "ideation-gpt-5.1-vs-gpt-5.2"
    pairs = pd.read_parquet(out / "pairwise" / setup / "instances.parquet")
    assert len(pairs) == 2 and list(pairs["label"]) == [0, 1]
    metrics = pd.read_csv(out / "pairwise" / "metrics.csv")
    assert set(metrics["setup"]) == {"human-plus-generated", setup}
    report = (out / "ideation.md").read_text()
    assert "| gpt-5.1    | gpt-5.2  |" in report  # the stronger and the weaker generator
    assert report.count("\n| gpt-4o") == 2  # the judge, under reference and P3
    assert (out / "d_minus_sources.png").stat().st_size > 5_000


def test_the_ai_scientist_check_runs_its_round_and_its_cost_counts(embedded_run):
    """SmolLM2 in one round on the 2 ideas: 2 calls through its journal, none in an inference
    batch; a verdict only where the answer decides (else a tie), its rounds in the transcript,
    its searches and cost in the log and the metrics."""
    out = embedded_run.results / "judges" / "tiny"
    metrics = pd.read_csv(out / "pointwise" / "metrics.csv")
    check = metrics[metrics["change"] == "ai_scientist"].set_index("model").loc["smollm2-135m"]
    assert (check["n_instances"], check["n_calls"]) == (2, 2)
    # a local judge is costed in compute hours (its calls' latency), not USD
    assert 0 <= check["n_failed_calls"] <= 2 and pd.isna(check["cost_usd"])
    assert check["cost_basis"] == "CPU-hours" and check["compute_hours"] > 0
    cell = out / "smollm2-135m" / "pointwise" / "human-plus-generated" / "standard" / "ai_scientist"
    verdicts = pd.read_parquet(cell / "verdicts.parquet")
    assert set(verdicts["verdict"]) <= {0, 1, TIE} and verdicts["n_calls"].tolist() == [1, 1]
    rounds = [json.loads(line) for line in (cell / "transcript.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rounds] == [1, 1]
    assert not (cell / "requests.parquet").exists()
    batch = pd.read_parquet(out / "smollm2-135m" / "responses" / "cells.parquet")
    assert not batch["cell"].str.contains("ai_scientist").any()
    log = embedded_run.results / "logs" / "judges" / "tiny" / "smollm2-135m" / "pointwise"
    assert (
        "Semantic Scholar searches"
        in (log / "human-plus-generated" / "standard" / "ai_scientist" / "check.log").read_text()
    )


def test_a_custom_judge_gets_its_card_and_the_run_its_leaderboard(embedded_run):
    """The custom judge of the shared run: its card holds every cell as a row (both setups'
    formats, the variant, both changes), its unparseable answers counted, and the leaderboard."""
    cards = embedded_run.results / "judges" / "cards"
    text = (cards / "probe.md").read_text()
    assert (cards / "probe.png").stat().st_size > 0
    measurements = pd.read_parquet(cards / "probe.parquet")
    setups = set(measurements["setup"])
    expected = {("pointwise", "reference"), ("pointwise", "retrieval")}
    expected |= {("pointwise", "low_reasoning"), ("pairwise", "wording:plain")}
    expected |= {("pairwise", c) for c in ("reference", "retrieval", "low_reasoning")}
    for setup in setups:
        rows = measurements[measurements["setup"] == setup]
        assert set(zip(rows["format"], rows["change"])) == expected
    calls = sum(
        len(pd.read_parquet(path))
        for path in (embedded_run.results / "judges").glob(
            "tiny/smollm2-135m/custom/**/calls.parquet"
        )
    )
    assert calls > 0 and measurements["unparseable"].sum() <= calls
    assert measurements["unparseable"].between(0, calls).all()
    for heading in ("strict_accuracy", "macro_f1", "order consistency", "resampling stability"):
        assert heading in text
    assert "## Changes against the judge's reference" in text and "| this run |" in text
    board = pd.read_csv(cards / "leaderboard.csv")
    assert set(board["judge"]) == {"probe"} and set(board["setup"]) == setups
