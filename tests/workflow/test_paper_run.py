"""config/paper.yaml as a lab runs it (the ``paper_run`` fixture): the judges' paper settings over
the authors' Human-Only and Human+Generated copies, blocklist on, and NovBench's paper section on
the COLING-2020 copy, every hosted call answered by the loopback providers."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import PAPER_COLING_PAPERS, PAPER_HOSTED_NOVBENCH, shared_file

from noveval.judges.authors import BLOCKLIST
from noveval.judges.instances import read_instances

pytestmark = [pytest.mark.workflow]

COPIES = {  # (format, setup): instances in the shipped copy of the release
    ("pairwise", "human-only"): 10,
    ("pairwise", "human-plus-generated"): 13,
    ("pointwise", "human-only"): 21,
    ("pointwise", "human-plus-generated"): 26,
}
# The paper grid's changes that the copies allow, per format (P3-P5 are pairwise prompts; the
# purpose-mechanism form needs the release's _plan files).
CHANGES = {
    "pointwise": {"reference", "P1", "P2", "retrieval", "low_reasoning", "no_aggregation"},
    "pairwise": {"reference", "P1", "P2", "P3", "P4", "P5", "retrieval", "low_reasoning",
                 "no_aggregation"},
}  # fmt: skip
JUDGES = {"gpt-5.1", "gpt-5.2", "gpt-5.4", "claude-opus-4-5", "claude-opus-4-6"}


def metrics(paper_run, format: str) -> pd.DataFrame:
    return pd.read_csv(paper_run.results / "judges" / "novelty-eval" / format / "metrics.csv")


@pytest.mark.parametrize("format", ["pointwise", "pairwise"])
def test_the_judges_paper_settings_reach_metrics_on_both_setups(paper_run, format):
    table = metrics(paper_run, format)
    assert set(table["model"]) == JUDGES  # claude-sonnet-4-5 is retired: its cells are skipped
    for setup in ("human-only", "human-plus-generated"):
        count = COPIES[format, setup]
        rows = table[table["setup"] == setup].set_index(["model", "change"])
        for model in JUDGES:
            assert set(rows.loc[model].index) == CHANGES[format], (model, setup)
            reference = rows.loc[(model, "reference")]
            # the authors' protocol: 3 calls per idea, 3 per order of a pair
            assert reference["n_instances"] == count
            assert reference["n_calls"] == count * (6 if format == "pairwise" else 3)
            assert rows.loc[(model, "no_aggregation"), "n_instances"] == count
    # P3-P5 at one call per order (ablations.yaml: the ai_researcher prompts at mec_k 1)
    if format == "pairwise":
        p3 = table[(table["change"] == "P3") & (table["setup"] == "human-only")]
        assert set(p3["n_calls"]) == {COPIES["pairwise", "human-only"] * 2}


def test_the_release_copies_are_read_whole_with_the_blocklist_on(paper_run):
    """The copies hold released (already filtered) instances: the blocklist keeps all of them."""
    out = paper_run.results / "judges" / "novelty-eval"
    fetched = paper_run.results / "downloads" / "upstream" / "judges" / BLOCKLIST
    assert fetched.read_bytes() == shared_file("novelty-eval", "upstream", BLOCKLIST).read_bytes()
    for (format, setup), count in COPIES.items():
        assert len(read_instances(out / format / setup / "instances.parquet")) == count
    for name in ("tables.md", "controlled_study.png"):
        assert (out / "pairwise" / name).is_file() and (out / "pointwise" / name).is_file()
    for name in ("cost_quality.png", "motivation.png", "d_minus_sources.png", "flip_rates.md"):
        assert (out / name).stat().st_size > 1_000


def test_novbench_paper_section_on_the_coling_copy(paper_run):
    table = pd.read_csv(paper_run.results / "novbench" / "coling2020" / "table.csv")
    models = table[table["model"] != "human"]
    cells = set(zip(models["model"], models["strategy"], models["perturbation"], strict=True))
    assert cells == {
        (model, strategy, perturbation)
        for model in PAPER_HOSTED_NOVBENCH
        for strategy in ("zero", "few")  # COLING has no retrieved papers: no RAG
        for perturbation in ("none", "change", "del")
    }
    assert (models["n_papers"] == PAPER_COLING_PAPERS).all()
    requests = paper_run.results / "novbench" / "coling2020" / "gpt-4o" / "zero-none"
    sent = pd.read_parquet(requests / "requests.parquet")
    # decoding.mode authors: no temperature, seed or token cap for a hosted model
    assert sent["temperature"].isna().all() and sent["max_tokens"].isna().all()
    # the authors' API_model_zero.py prompt: one user message, the descriptions as a list literal
    first = json.loads(shared_file("novbench", "coling2020_pairs.json").read_text())[0]
    (message,) = json.loads(sent.set_index("item_id").loc[first["id"], "messages"])
    assert message["role"] == "user" and str(first["paper_novelty"]) in message["content"]
    assert message["content"].startswith("\nYou are a peer-review expert")


def test_the_tables_regenerate_from_cached_scores_without_a_model(paper_run):
    """The README's table-only rerun on the paper config: the two rules run again, nothing else
    (no key: no inference job is pending)."""
    env = {name: value for name, value in paper_run.env.items() if name != "NOVEVAL_TEST_KEY"}
    done = paper_run.snakemake(
        "--cores", "2", "novbench", "--forcerun", "novbench_table", "novbench_radar", env=env
    )
    ran = re.findall(r"^(?:local)?rule (\w+):", done.stdout + done.stderr, re.M)
    assert sorted(ran) == ["novbench", "novbench_radar", "novbench_table"]
