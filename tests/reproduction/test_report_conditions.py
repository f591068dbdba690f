"""The reproduction report compares a number only when it was produced under the paper's
conditions: each differing condition turns a would-be match into "not comparable" naming it."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
import yaml
from conftest import REPO, SAMPLE, config_schema, shared_file

from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.novbench import generation, records
from noveval.reproduction import report
from noveval.reproduction.conditions import (
    AUTHORS_CHECKER_ENCODER,
    CHECKER_WINDOWS,
    Conditions,
    config_conditions,
    differences,
    paper_conditions,
    paper_config,
)
from noveval.reproduction.novbench import cell_requests, release_digest
from noveval.reproduction.render import summary
from noveval.reproduction.targets import INPUTS
from noveval.reproduction.verdicts import judged

SHA = "a" * 64
WIRE = {"reference": "gpt-4o-2024-08-06", "api": "chat", "token_field": "max_tokens",
        "reasoning_effort": None, "options": {}}  # fmt: skip
JUDGE_WIRE = {**WIRE, "reference": "gpt-5.4-2026-03-05", "api": "responses"}
NOVBENCH = {
    "prompts": "authors",
    "decoding": {"mode": "authors", "max_tokens": 4096},
    "models": {"gpt-4o": WIRE},
    "settings": {
        "few_shot_examples": 2,
        "seed": 2025,
        "keep_fraction": 0.8,
        "paraphrase_model": "gpt-4o-mini",
    },  # fmt: skip
    "scoring": {
        "relevance_encoder": "spiced",
        "coverage_encoder": "all-minilm-l6-v2",
        "fluency_lm": "distilgpt2",
    },  # fmt: skip
    "datasets": {
        "emnlp2023": {"sha256": None, "papers": 1684},
        "coling2020": {"sha256": SHA, "papers": 73},
    },  # fmt: skip
}
JUDGES = {
    "prompts": "authors",
    "requests": {"temperature": 0.0, "seed": 0, "max_tokens": 8192},
    "models": {"gpt-5.4": JUDGE_WIRE},
    "datasets": {"novelty-eval": {"commit": "f022bc38", "blocklist": True}},
    "calls": {
        "calls": {"pointwise": 3, "pairwise_per_order": 3},
        "calls_by_change": {"P4": {"pairwise_per_order": 1}},
    },  # fmt: skip
    "aggregation": {"no_aggregation": "first_call", "even_split": "not_novel"},
}
PAPER = {"novbench": NOVBENCH, "judges": JUDGES}
LIMITS = {"max_empty_share": 0.1, "max_failed_share": 0.05}
GRID = {
    "novbench": {
        "datasets": {"emnlp2023": {"name": "emnlp2023", "models": ["gpt-4o"]}},
        "strategies": ["zero"],
        "perturbations": ["none"],
    },
    "judges": {
        "datasets": {"novelty-eval": {"name": "novelty-eval"}},
        "models": ["gpt-5.4"],
        "changes": ["reference", "P4"],
    },
}
SCORERS = {"relevance_encoder": "spiced", "coverage_encoder": "all-minilm-l6-v2",
           "fluency_lm": "distilgpt2"}  # fmt: skip


def emnlp_table(papers: int = 1684, **gpt4o) -> pd.DataFrame:
    """Table 2's printed GPT-4o zero-shot row (3.6983, 0.2332, 0.6595, 0.6979) and a human row."""
    counts = {"n_papers": papers, "n_empty": 0, "n_failed": 0}
    printed = {"relevance": 3.6983, "coverage": 0.2332, "clarity": 0.6595, "dist_acc": 0.6979}
    model = {"model": "gpt-4o", "strategy": "zero", "perturbation": "none"} | printed
    model |= counts | SCORERS
    human = {"model": "human", "strategy": "-", "perturbation": "-", "relevance": 2.79} | counts
    return pd.DataFrame([model | gpt4o, human | SCORERS])


def judge_metrics(**cell) -> pd.DataFrame:
    row = {"model": "gpt-5.4", "substitutes_for": None, "setup": "human-only", "change": "P4",
           "strict_accuracy": 0.7597, "n_calls": 300, "n_failed_calls": 0}  # fmt: skip
    return pd.DataFrame([row | cell])


def report_rows(run=None, table=None, metrics=None, digests=None) -> pd.DataFrame:
    conditions = Conditions(run or copy.deepcopy(PAPER), PAPER, LIMITS)
    rows = report.rows(
        GRID,
        {"emnlp2023": emnlp_table() if table is None else table},
        {("novelty-eval", "pairwise"): judge_metrics() if metrics is None else metrics},
        conditions,
        digests=digests or {"emnlp2023": SHA},
    )
    return rows.set_index(["study", "table", "cell", "metric"]).sort_index()


def relevance(rows: pd.DataFrame) -> pd.Series:
    return rows.loc[("novbench", "2", "gpt-4o zero", "relevance")]


def p4(rows: pd.DataFrame) -> pd.Series:
    return rows.loc[("judges", "motivation figure", "gpt-5.4 pairwise human-only P4")].iloc[0]


def changed(study: str, key: str, value) -> dict:
    run = copy.deepcopy(PAPER)
    run[study][key] = value
    return run


def assert_not_comparable(row: pd.Series, *named: str) -> None:
    assert row["verdict"] == "not comparable", row["reason"]
    for text in named:
        assert text in row["reason"]


def test_like_for_like_printed_numbers_match():
    rows = report_rows()
    assert relevance(rows)["verdict"] == "match" and relevance(rows)["source_kind"] == "printed"
    assert p4(rows)["verdict"] == "match"


def test_builtin_prompts_are_not_comparable():
    row = relevance(report_rows(run=changed("novbench", "prompts", "builtin")))
    assert_not_comparable(row, "prompts builtin (paper: authors)")


def test_greedy_decoding_is_not_comparable():
    greedy = {"mode": "greedy", "temperature": 0.0, "seed": 0, "max_tokens": 4096}
    row = relevance(report_rows(run=changed("novbench", "decoding", greedy)))
    assert_not_comparable(
        row, "decoding.mode greedy (paper: authors)", "decoding.temperature 0.0 (paper: not set)"
    )


def test_another_model_reference_is_not_comparable():
    other = {"gpt-4o": {**WIRE, "reference": "gpt-4o"}}
    row = relevance(report_rows(run=changed("novbench", "models", other)))
    assert_not_comparable(row, "model.reference gpt-4o (paper: gpt-4o-2024-08-06)")


def test_another_few_shot_draw_is_not_comparable():
    grid = copy.deepcopy(GRID)
    grid["novbench"]["strategies"] = ["zero", "few"]
    run = copy.deepcopy(PAPER)
    run["novbench"]["settings"]["few_shot_examples"] = 3
    conditions = Conditions(run, PAPER, LIMITS)
    table = pd.concat([emnlp_table(strategy="few"), emnlp_table().iloc[:1]], ignore_index=True)
    rows = report.rows(grid, {"emnlp2023": table}, {}, conditions, digests={"emnlp2023": SHA})
    by_cell = rows.set_index(["table", "cell", "metric"])
    assert_not_comparable(
        by_cell.loc[("2", "gpt-4o few", "relevance")], "settings.few_shot_examples 3 (paper: 2)"
    )
    assert by_cell.loc[("2", "gpt-4o zero", "relevance"), "verdict"] == "match"  # no draw


def test_a_dataset_that_is_not_the_release_is_not_comparable():
    row = relevance(report_rows(table=emnlp_table(papers=7)))
    assert_not_comparable(row, "dataset.papers 7 (paper: 1684)")


def test_a_release_file_of_another_digest_is_not_comparable():
    paper = copy.deepcopy(PAPER)
    paper["novbench"]["datasets"]["emnlp2023"]["sha256"] = "b" * 64
    conditions = Conditions(copy.deepcopy(PAPER), paper, LIMITS)
    rows = report.rows(
        GRID, {"emnlp2023": emnlp_table()}, {}, conditions, digests={"emnlp2023": SHA}
    )
    human = rows[(rows["table"] == "2") & (rows["cell"] == "human")].iloc[0]
    assert_not_comparable(human, f"dataset.sha256 {SHA} (paper: {'b' * 64})")


def test_another_scorer_is_not_comparable():
    row = relevance(report_rows(table=emnlp_table(relevance_encoder="all-minilm-l6-v2")))
    assert_not_comparable(row, "scorer all-minilm-l6-v2 (paper: spiced)")
    assert row["our_value"] == 3.6983  # shown, not compared


def test_empty_answers_over_the_threshold_are_not_comparable():
    row = relevance(report_rows(table=emnlp_table(n_empty=200)))
    assert_not_comparable(row, "empty_share 0.119 over reproduction.max_empty_share 0.1")


def test_failed_calls_over_the_threshold_are_not_comparable():
    row = p4(report_rows(metrics=judge_metrics(n_failed_calls=30)))
    assert_not_comparable(row, "failed_share 0.100 over reproduction.max_failed_share 0.05")


def test_another_aggregation_is_not_comparable():
    run = changed("judges", "aggregation", {"no_aggregation": "sub_runs", "even_split": "tie"})
    row = p4(report_rows(run=run))
    assert_not_comparable(
        row,
        "aggregation.no_aggregation sub_runs (paper: first_call)",
        "aggregation.even_split tie (paper: not_novel)",
    )


def test_other_calls_per_decision_are_not_comparable():
    run = changed("judges", "calls", {"calls": {"pointwise": 1, "pairwise_per_order": 1},
                                      "calls_by_change": {}})  # fmt: skip
    row = p4(report_rows(run=run))
    assert_not_comparable(row, "calls.P4.pointwise 1 (paper: 3)")
    # P4's pairwise calls are 1 per order in both: not named
    assert "pairwise_per_order" not in row["reason"]


def test_builtin_judge_prompts_and_other_request_settings_are_not_comparable():
    run = changed("judges", "prompts", "builtin")
    run["judges"]["requests"] = {**JUDGES["requests"], "max_tokens": 96}
    row = p4(report_rows(run=run))
    assert_not_comparable(row, "prompts builtin (paper: authors)", "requests.max_tokens 96")


def test_a_substitute_judge_is_not_comparable():
    row = p4(report_rows(metrics=judge_metrics(substitutes_for="claude-sonnet-4-5")))
    assert_not_comparable(row, "substitutes_for claude-sonnet-4-5 (paper: none)")


def test_a_reconstructed_paper_value_is_within_at_best_and_an_authors_file_is_named():
    numbers = published("novbench").set_index(["table", "cell", "metric"])
    assert numbers.loc[("2", "gpt-4o few", "relevance"), "source_kind"] == "printed"
    row = numbers.loc[("2", "qwen3-8b zero", "coverage")]
    assert row["source_kind"] == "authors' file" and float(row["reconstruction_error"]) > 0
    verdict = judged(
        row_of(row), float(row["paper_value"]), 0.01, {}, {}, LIMITS
    )  # exactly the reconstructed value
    assert verdict["verdict"] == "within"
    assert "against the authors' file result_dict_method.json" in verdict["reason"]
    assert "reconstructed paper value" in verdict["reason"]


def row_of(series: pd.Series):
    return pd.DataFrame([series]).itertuples(index=False).__next__()


def test_the_default_config_is_not_the_papers_conditions():
    paper = paper_conditions(
        REPO / "config" / "config.yaml",
        REPO / "config" / "paper.yaml",
        config_schema(),
        REPO / "config" / "models.yaml",
    )
    assert paper["novbench"]["prompts"] == "authors"
    assert paper["novbench"]["decoding"] == {"mode": "authors", "max_tokens": 4096}
    assert paper["judges"]["aggregation"]["even_split"] == "not_novel"
    assert paper["judges"]["requests"]["reasoning_chars"] == "null"


def test_the_checker_rows_differ_from_the_paper_in_embedder_and_window_order():
    files = [REPO / "config" / name for name in ("config.yaml", "paper.yaml")]
    schema, registry = (
        config_schema(),
        REPO / "config" / "models.yaml",
    )
    paper = paper_conditions(*files, schema, registry)["judges"]["novelty_checker"]
    run = config_conditions(paper_config(*files, schema), load_registry(registry))
    assert paper["encoder"] == AUTHORS_CHECKER_ENCODER
    assert run["judges"]["novelty_checker"] == {
        "encoder": "allenai/specter2_base",
        "reranker": load_registry(registry).model("gpt-5.4-mini").wire(),
        "windows": CHECKER_WINDOWS,
    }
    found = differences(run["judges"]["novelty_checker"], paper)
    assert len(found) == 2 and found[0].startswith("encoder allenai/specter2_base (paper: ")
    config = yaml.safe_load(files[0].read_text())
    assert config_conditions(config, load_registry(registry))["judges"]["novelty_checker"] == {}


def test_summary_counts_every_table_and_names_the_largest_differences():
    rows = report_rows(table=emnlp_table(relevance=3.5, n_empty=200)).reset_index()
    text = summary(rows)
    for table in ["2", "3", "4", "5", "6", "7", "8", "motivation figure"]:
        assert f"| {table} " in text
    assert "not comparable" in text and "empty_share 0.119" in text
    counts = rows.groupby("verdict").size()
    assert counts["not comparable"] == 4 and counts["match"] == 2  # gpt-4o zero; P4 twice
    # the human row has no Clarity in the table: not run, not "outside"
    human = rows.set_index(["table", "cell", "metric"]).loc[("2", "human", "clarity")]
    assert (human["verdict"], human["reason"]) == (
        "not run",
        "no value of 'clarity' in emnlp2023/table.csv",
    )


@pytest.mark.parametrize("kind", ["printed", "authors' file", "own regression value"])
def test_every_published_row_says_where_its_number_comes_from(kind):
    novbench, judges = published("novbench"), published("judges")
    kinds = set(novbench["source_kind"]) | set(judges["source_kind"])
    assert kind in kinds
    files = pd.concat([novbench, judges])
    assert (files.loc[files["source_kind"] == "authors' file", "source_file"] != "").all()


def test_the_share_limits_are_a_validated_config_key():
    from snakemake.utils import validate

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    config["reproduction"] = {"max_empty_share": 0.2}
    validate(config, config_schema())
    assert config["reproduction"] == {"max_empty_share": 0.2, "max_failed_share": 0.05}
    config["reproduction"] = {"max_failed_share": 2}
    with pytest.raises(Exception, match="2 is greater than the maximum of 1"):
        validate(config, config_schema())


def sent_requests(tmp_path, prompts: str) -> list[dict]:
    """Zero-shot GPT-4o requests of three sample papers, in paper mode but for ``prompts``; the
    cell's requests table written as the run writes it."""
    papers = records.load_release(SAMPLE).head(3)
    papers_path = tmp_path / "papers.parquet"
    records.write_papers(papers, papers_path)
    rows = generation.generation_requests(
        papers,
        papers,
        "zero",
        load_registry(REPO / "config" / "models.yaml").model("gpt-4o"),
        NOVBENCH["decoding"],
        {"prompts": prompts, **NOVBENCH["settings"]},
        prompts=prompts,
        upstream_root=str(shared_file("novbench", "upstream")),
    )
    requests_path = tmp_path / f"{prompts}.parquet"
    pd.DataFrame(rows).to_parquet(requests_path)
    cell = {"dataset": "emnlp2023", "model": "gpt-4o", "strategy": "zero", "perturbation": "none"}
    return [cell | {"requests": requests_path, "inputs": papers_path, "papers": papers_path}]


def test_requests_that_are_not_the_authors_are_not_comparable(tmp_path):
    conditions = Conditions(copy.deepcopy(PAPER), PAPER, LIMITS)
    registry, root = REPO / "config" / "models.yaml", str(shared_file("novbench", "upstream"))
    key = ("emnlp2023", "gpt-4o", "zero", "none")
    authors = cell_requests(sent_requests(tmp_path, "authors"), conditions, registry, root)
    assert authors[key]["run"] == authors[key]["paper"]
    # the run says it used the authors' prompts, but its requests are not theirs
    builtin = cell_requests(sent_requests(tmp_path, "builtin"), conditions, registry, root)
    assert builtin[key]["run"] != builtin[key]["paper"] == authors[key]["paper"]
    grid_tables = {"emnlp2023": emnlp_table()}
    for requests, expected in [(authors, "match"), (builtin, "not comparable")]:
        rows = report.rows(GRID, grid_tables, {}, conditions, digests={"emnlp2023": SHA},
                           requests=requests)  # fmt: skip
        row = rows.set_index(["table", "cell", "metric"]).loc[("2", "gpt-4o zero", "relevance")]
        assert row["verdict"] == expected
    assert f"requests {builtin[key]['run']} (paper: {authors[key]['paper']})" in row["reason"]


def test_write_opens_the_report_with_the_summary_and_writes_it_as_its_own_file(tmp_path):
    folder = tmp_path / "novbench" / "coling2020"
    folder.mkdir(parents=True)
    human = {"model": "human", "strategy": "-", "perturbation": "-", "kc": 0.7045, "ls": 0.8871,
             "n_papers": 73, "n_empty": 0, "n_failed": 0} | SCORERS  # fmt: skip
    pd.DataFrame([human]).to_csv(folder / "table.csv", index=False)
    grid = {"novbench": {"datasets": {"coling2020": {"name": "coling2020", "models": []}},
                         "strategies": [], "perturbations": []},
            "judges": {"datasets": {}, "models": [], "changes": []}}  # fmt: skip
    paper = copy.deepcopy(PAPER)
    paper["novbench"]["datasets"]["coling2020"]["sha256"] = release_digest(
        shared_file("novbench", "coling2020_pairs.json")
    )
    paths = dict.fromkeys(INPUTS, []) | {
        "tables": [str(folder / "table.csv")],
        "releases": [str(shared_file("novbench", "coling2020_pairs.json"))],
    }
    out = {name: tmp_path / name for name in ("report.csv", "report.md", "summary.md")}
    report.write(paths, grid, Conditions(paper, paper, LIMITS), *(str(p) for p in out.values()))
    rows = pd.read_csv(out["report.csv"], keep_default_na=False)
    assert list(rows.columns) == report.COLUMNS
    kc = rows[(rows["table"] == "4") & (rows["metric"] == "kc")].iloc[0]
    assert kc["verdict"] == "match" and '"dataset.papers": 73' in kc["conditions"]
    text = out["report.md"].read_text()
    assert text.index("## Summary") < text.index("## Compared numbers")
    assert out["summary.md"].read_text().startswith("# Reproduction summary\n\n## Summary")
