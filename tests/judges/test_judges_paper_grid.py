"""The judges' paper grid: the declared release, its download, the grid and the judge plan."""

from __future__ import annotations

import hashlib
import http.server
import re
import shutil
import threading
from collections import Counter
from functools import partial

import pandas as pd
import pytest
import yaml
from conftest import REPO, config_schema, shared_file
from snakemake.utils import update_config, validate

from noveval.core.registry import load_registry
from noveval.inference.workloads import PROMPT_ONLY, PlanSettings, prompt_tokens
from noveval.judges import release
from noveval.judges.grid.build import judges_grid
from noveval.judges.instances import load_release
from noveval.judges.prompts import judge_requests
from noveval.planning.judges import judges_workloads
from noveval.planning.table import plan_table

REGISTRY = load_registry(REPO / "config" / "models.yaml")
BACKBONES = ["gpt-5.1", "gpt-5.2", "gpt-5.4", "claude-sonnet-4-5", "claude-opus-4-5",
             "claude-opus-4-6"]  # fmt: skip
DATA_COMMIT = "f022bc3823a1f0ec693c7e7bb873aa680a495923"
SAMPLE = REPO / "data" / "sample" / "judges"


def paper_config() -> dict:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    return config


def test_the_declared_release_lists_every_file_at_its_commit():
    entry = paper_config()["judges"]["datasets"]["novelty-eval"]
    files = release.release_files("novelty-eval", entry, "dl")
    assert len(files) == 17 and entry["commit"] == DATA_COMMIT
    by_path = {file.path: file for file in files}
    reference = by_path["human-only/pairwise.yaml"]
    assert reference.url == (
        f"https://raw.githubusercontent.com/noy-sternlicht/novelty-eval/{DATA_COMMIT}"
        "/data/human-only/pairwise.yaml"
    )
    assert (reference.local, reference.instances) == (
        "dl/novelty-eval/human-only/pairwise.yaml",
        154,
    )
    assert by_path["human-only/pointwise_plan.yaml"].instances == 299
    backbone = by_path["human-plus-generated/backbone-opus-4-5/pointwise.yaml"]
    assert backbone.setup == "human-plus-generated.backbone-opus-4-5"
    claude = by_path["ai-only/claude/pairwise.yaml"]
    assert claude.setup == "ideation-claude-opus-4-5-vs-claude-sonnet-4-5"
    assert claude.instances == 161 and "/0acda240cc9a0317a0f6a8e96367ac3a3b8c6de8/" in claude.url
    assert by_path["expert-annotations/judge_errors.csv"].kind == "other"
    with pytest.raises(ValueError, match="no file list recorded for commit 0000"):
        release.release_files("x", {**entry, "commit": "0" * 40}, "dl")
    with pytest.raises(ValueError, match=r"'x': the release declaration lacks \['pairs'\]"):
        release.release_files("x", {k: v for k, v in entry.items() if k != "pairs"}, "dl")


def test_paper_grid_has_every_backbone_and_change_with_the_searched_retrieval(caplog):
    config = paper_config()
    validate(config, config_schema())
    grid = judges_grid(config, REGISTRY)  # no file, no network
    per_model = Counter(cell.model for cell in grid.cells)
    # 12 (setup, format) files, 7 of them pairwise: reference, P1, P2, no_aggregation on 12;
    # P3-P5 on 7; low_reasoning on 12 where the model has 'low'; purpose_mechanism on the 4 with
    # _plan files, P3-P5 on the 2 pairwise ones of them; retrieval on 12; the agentic judge
    # on the Human+Generated ideas; the AI-Scientist check and the Idea Novelty Checker with
    # gpt-5.4 and claude-opus-4-6 on both pointwise files; claude-sonnet-4-5 (retired, no
    # substitution) runs none of its 91
    assert per_model == {m: 103 for m in BACKBONES if m != "claude-sonnet-4-5"} | {
        "gpt-5.6-sol": 1, "gpt-5.4": 107, "claude-opus-4-6": 107
    }  # fmt: skip
    assert grid.not_runnable == {"claude-sonnet-4-5": ("not runnable: retired on 2026-11-30", 91)}
    # the release's ai-only ideas were written already: no generator runs, the retired one neither
    assert grid.generators() == [] and "claude-sonnet-4-5" not in grid.models_used()
    retired = [line for line in grid.omitted if "/claude-sonnet-4-5/" in line and "retired" in line]
    assert len(retired) == 91 and retired[0].endswith(
        ": left out, not runnable: retired on 2026-11-30 (judges.substitutions names none)"
    )
    config["judges"]["substitutions"] = {"claude-sonnet-4-5": "claude-opus-4-5"}
    config["judges"]["models"] = [m for m in BACKBONES if m != "claude-opus-4-5"]
    substituted = judges_grid(config, REGISTRY)
    assert substituted.not_runnable == {}
    assert Counter(cell.model for cell in substituted.cells)["claude-opus-4-5"] == 103
    changes = {cell.label for cell in grid.cells}
    assert {cell.ideas for cell in grid.cells} == {"standard", "purpose_mechanism"}
    assert changes == {"reference", "P1", "P2", "P3", "P4", "P5", "low_reasoning", "retrieval",
                       "purpose_mechanism", "no_aggregation", "P3+purpose_mechanism",
                       "P4+purpose_mechanism", "P5+purpose_mechanism", "agentic",
                       "ai_scientist", "novelty_checker"}  # fmt: skip
    checks = [cell for cell in grid.cells if cell.change == "ai_scientist"]
    assert not any(cell.batched for cell in checks)  # its own rule, no inference batch
    assert not any(
        "/ai_scientist/" in path
        for model in ("gpt-5.4", "claude-opus-4-6")
        for path in grid.batch_requests("results", "novelty-eval", model, "cells")
    )
    assert not [line for line in grid.omitted if "/retrieval:" in line and "retired" not in line]
    assert grid.search_model == "claude-opus-4-6" and len(grid.searches("novelty-eval")) == 12
    setups = {cell.setup for cell in grid.cells}
    assert {"human-plus-generated.backbone-gpt-5.1", "ideation-gpt-5.4-vs-gpt-5.1"} <= setups
    paths = grid.outputs(str(REPO / "results"))
    assert any(p.endswith("novelty-eval/ideation.md") for p in paths)
    assert any(p.endswith("expert-annotations/judge_errors.csv") for p in paths)


def test_release_download_from_a_loopback_server(tmp_path):
    source = shared_file("novelty-eval", "human-only", "pairwise.yaml")
    served = tmp_path / "served" / DATA_COMMIT / "data" / "human-only"
    served.mkdir(parents=True)
    shutil.copy(source, served / "pairwise.yaml")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=tmp_path / "served")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # declared as the shared excerpts' counts: a download is checked against them
        entry = {"url": f"http://127.0.0.1:{server.server_port}/", "commit": DATA_COMMIT,
                 "pairs": 10, "ideas": 21}  # fmt: skip
        file = release.release_files("ne", entry, tmp_path / "dl")[0]
        release.download(file, file.local)
        assert load_release(file.local, "human-only", "pairwise").shape[0] == 10
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        wrong = release.ReleaseFile(**{**file.__dict__, "sha256": "0" * 64})
        with pytest.raises(ValueError, match=f"has SHA-256 {digest}"):
            release.download(wrong, str(tmp_path / "wrong.yaml"))
        assert not (tmp_path / "wrong.yaml").exists()
    finally:
        server.shutdown()


def test_judge_workloads_count_calls_and_tokens_by_hand():
    settings = PlanSettings()
    files = {"d": {"human-only": {"pairwise": str(SAMPLE / "human-only" / "pairwise.yaml"),
                                  "pointwise": "not-downloaded/pointwise.yaml"}}}  # fmt: skip
    cells = [
        {"dataset": "d", "model": "gpt-5.4", "format": "pairwise", "setup": "human-only",
         "ideas": "standard", "change": change} for change in ("reference", "P3", "no_aggregation")
    ] + [{"dataset": "d", "model": "claude-opus-4-6", "format": "pointwise",
          "setup": "human-only", "ideas": "standard", "change": "reference"}]  # fmt: skip
    judges = {"calls": {"pointwise": 3, "pairwise_per_order": 3}, "max_tokens": 16000,
              "calls_by_change": {"P3": {"pairwise_per_order": 1}}}  # fmt: skip
    decoding = {"max_tokens": 4096, "temperature": 0.0, "seed": 0}
    workloads = judges_workloads(
        cells, files, {"not-downloaded/pointwise.yaml": 299}, judges, decoding, REGISTRY, None,
        settings,
    )  # fmt: skip
    by_step = {(w.model, w.step): w for w in workloads}
    assert set(by_step) == {("gpt-5.4", "reference"), ("gpt-5.4", "P3"),
                            ("claude-opus-4-6", "reference")}  # fmt: skip
    pairs = load_release(files["d"]["human-only"]["pairwise"], "human-only", "pairwise")
    assert len(pairs) == 8
    assert by_step["gpt-5.4", "reference"].calls == 8 * 2 * 3  # both orders, 3 calls each
    assert by_step["gpt-5.4", "P3"].calls == 8 * 2 * 1
    pointwise = by_step["claude-opus-4-6", "reference"]
    assert pointwise.calls == 299 * 3 and pointwise.stand_in  # the declared ideas
    assert pointwise.output_tokens == 299 * 3 * (700 + 1000)  # reasoning model, under the cap
    # input tokens: the rendered prompts of one call per order, times 3 calls
    one_call = judge_requests(
        pairs.to_dict("records"), "reference", PROMPT_ONLY, {**decoding, "max_tokens": 16000},
        {"pointwise": 1, "pairwise_per_order": 1}, structured_output=False,
    )  # fmt: skip
    assert len(one_call) == 16
    assert by_step["gpt-5.4", "reference"].input_tokens == 3 * prompt_tokens(one_call, settings)
    table = plan_table(workloads, REGISTRY, 16, settings).set_index(["model", "step"])
    row = table.loc[("gpt-5.4", "P3")]
    w = by_step["gpt-5.4", "P3"]
    assert row["api_cost_usd"] == round((w.input_tokens * 2.5 + w.output_tokens * 15) / 1e6, 2)
    assert table.loc[("all", "")]["requests"] == 48 + 16 + 897


@pytest.mark.workflow
def test_paper_grid_dry_run_lists_every_judge_and_plan_writes_judge_rows(paper_grid):
    planned = paper_grid.dry_run
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", planned, re.MULTILINE))
    # the five runnable backbones' 91 cells each and their 12 retrieval cells (claude-sonnet-4-5
    # is retired), and the agentic judge's one
    assert jobs["judges_download"] == "17" and jobs["judges_verdicts"] == str(5 * (91 + 12) + 1)
    assert jobs["judges_novelty_checker"] == "4"  # 2 backbones x 2 pointwise files
    assert (
        "novelty-eval/gpt-5.6-sol/pointwise/human-plus-generated/standard/agentic/verdicts"
        in planned
    )
    assert jobs["judges_ai_scientist"] == "4"  # 2 backbones x 2 pointwise files
    for model in ("gpt-5.4", "claude-opus-4-6"):
        for setup in ("human-only", "human-plus-generated"):
            assert (
                f"novelty-eval/{model}/pointwise/{setup}/standard/ai_scientist/transcript"
                in planned
            )
    runnable = [model for model in BACKBONES if model != "claude-sonnet-4-5"]  # retired
    for model in runnable:  # each cell's folder: {ideas}/{change}, one field a segment
        for cell in (
            *(f"standard/{c}" for c in ("reference", "P1", "P2", "P3", "P4", "P5")),
            *("purpose_mechanism/reference", "purpose_mechanism/P4", "standard/no_aggregation"),
        ):
            assert f"novelty-eval/{model}/pairwise/human-only/{cell}/verdicts" in planned
    assert not re.search(r"/\w+\+purpose_mechanism/", planned)  # a label is never a path
    assert "novelty-eval/claude-sonnet-4-5/" not in planned
    table = pd.read_csv(paper_grid.plan / "compute_plan.csv")
    judges = table[(table["track"] == "judges") & (table["model"] != "all")]
    assert set(judges["model"]) == {*runnable, "gpt-5.6-sol", "gpt-5.4-mini"}  # the reranker
    agentic = judges[judges["model"] == "gpt-5.6-sol"].iloc[0]
    # 308 Human+Generated ideas, one call each, 5 searches a call (the plan's assumption)
    assert (agentic["step"], agentic["requests"], agentic["web_searches"]) == (
        "agentic",
        308,
        308 * 5,
    )
    assert agentic["api_cost_usd"] > 308 * 5 * 10 / 1e3  # the searches and the tokens
    assert set(judges[judges["model"] == "gpt-5.4"]["step"]) == {
        "reference", "P1", "P2", "P3", "P4", "P5", "low_reasoning", "purpose_mechanism",
        "P3+purpose_mechanism", "P4+purpose_mechanism", "P5+purpose_mechanism", "ai_scientist",
        "retrieval", "novelty_checker",
    }  # fmt: skip
    checker = judges[judges["step"].str.startswith("novelty_checker")].set_index(["model", "step"])
    assert set(checker.index) == {
        ("gpt-5.4", "novelty_checker"), ("claude-opus-4-6", "novelty_checker"),
        ("gpt-5.4-mini", "novelty_checker rerank"),
    }  # fmt: skip
    assert (checker["rule"] == "judges_novelty_checker").all()
    # the AI-Scientist check at its most: 299 + 308 ideas x 10 rounds, one search a round
    check = judges[(judges["model"] == "gpt-5.4") & (judges["step"] == "ai_scientist")].iloc[0]
    assert (check["requests"], check["web_searches"], check["jobs"]) == (6070, 0, 2)
    assert check["rule"] == "judges_ai_scientist"
    assert check["api_cost_usd"] > 0
    markdown = (paper_grid.plan / "compute_plan.md").read_text()
    assert "AI-Scientist check: at most 12,140 Semantic Scholar searches" in markdown
    # both tracks: a subtotal per track, then the total of both
    subtotal = table[(table["track"] == "judges") & (table["model"] == "all")].iloc[0]
    assert subtotal["requests"] == judges["requests"].sum()
    assert subtotal["api_cost_usd"] == pytest.approx(judges["api_cost_usd"].sum(), abs=0.05)
    total = table.iloc[-1]
    assert (
        total["track"] == "total"
        and total["requests"]
        == table.loc[(table["model"] == "all") & (table["track"] != "total"), "requests"].sum()
    )
    markdown = (paper_grid.plan / "compute_plan.md").read_text()
    usd = judges["api_cost_usd"].sum()
    assert f"Total {usd:,.0f} USD against the paper's about 15,000 USD" in markdown
    # output tokens calibrated on the published costs, scored on the held-out ones
    assert "## Judge output tokens" in markdown and "Held out of the calibration" in markdown
