"""The reproduction report: the project's reference tables against the shared result files,
verdicts and reasons on hand-made outputs, and the COLING acceptance run of the workflow."""

from __future__ import annotations

import csv
import json
import re

import pandas as pd
import pytest
import yaml
from conftest import REPO, run_snakemake, shared_file, write_yaml
from report_conditions import COLING_SHA, CONDITIONS

from noveval.core.published import published
from noveval.reproduction import report
from noveval.reproduction.targets import RELEASE_SUBSET, configured
from noveval.reproduction.verdicts import verdict

NOVBENCH_RESULTS = ("novbench", "paper-results")


def published_value(study: str, table: str, cell: str, metric: str) -> float:
    frame = published(study)
    found = frame[(frame["table"] == table) & (frame["cell"] == cell) & (frame["metric"] == metric)]
    assert len(found) == 1, (table, cell, metric)
    return float(found.iloc[0]["paper_value"])


def test_reference_tables_hold_every_published_number_with_its_source():
    novbench, judges = published("novbench"), published("judges")
    counts = novbench.groupby("table").size().to_dict()
    # Table 2: 57 configurations x 4 metrics + Human Relevance and Clarity; Table 8: high, low
    # and Diff of 57 configurations; Section 4.3: agreement, Fleiss' kappa, Spearman's rho
    assert counts == {"2": 230, "3": 12, "4": 20, "4.3": 3, "5": 38, "6": 228, "7": 228, "8": 171}
    assert len(judges) == 613
    sources = ("NovBench Table", "NovBench Section", "spec/novbench.md")
    assert (novbench["source"].str.startswith(sources)).all()
    # the spec's COLING KC and LS are our own regression values, not published numbers
    own = novbench[novbench["source_kind"] == "own regression value"]
    assert list(own["metric"]) == ["kc", "ls"]
    assert set(novbench.loc[novbench["table"].isin(["6", "7", "8"]), "decimals"]) == {4}
    # Section 4.3's 0.72, 78% and 0.61 as printed; Table 8's Diff from the authors' file
    section = novbench[novbench["table"] == "4.3"]
    assert set(section["source_kind"]) == {"printed"} and set(section["decimals"]) == {2}
    diff = novbench[novbench["metric"] == "similarity_diff"]
    assert set(diff["source_file"]) == {"review_confidence_result.json"}
    # a notebook at its commit, the paper's text, or the release's own files
    cited = r"\.ipynb.*\(commit [0-9a-f]{8}\)|paper text|release, data/README\.md \(commit"
    assert judges["source"].str.contains(cited).all()
    assert judges.groupby("table").size().to_dict() == {
        "D- source figure": 60,
        "cost-efficiency figure": 126,
        "dataset sizes": 4,
        "expert study": 4,
        "ideation comparison": 3,
        "motivation figure": 7,
        "plan-format figure": 2,
        "retrieval face-off figure": 7,
        "soft-accuracy figure": 106,
        "tie-rate figure": 118,
        "two-track figure": 176,
    }


def test_novbench_reference_values_equal_the_authors_result_files():
    clarity = json.loads(shared_file(*NOVBENCH_RESULTS, "result_Clarity_updated.json").read_text())
    assert published_value("novbench", "2", "qwen3-8b zero", "clarity") == pytest.approx(
        clarity["Qwen3-8B_zero_shot"]["model_clarity"], abs=1e-6
    )
    with shared_file(*NOVBENCH_RESULTS, "table2_emnlp2023_reconstructed.csv").open() as f:
        table2 = {row["config"]: row for row in csv.DictReader(f)}
    assert published_value("novbench", "2", "qwen3-8b few", "dist_acc") == float(
        table2["Qwen3-8B_few_shot"]["DistAcc_approx"]
    )
    # a cell the paper prints: its printed value and decimals, not the reconstruction
    printed = table2["gpt-4o_zero"]["paper_value(Rel,Cov,Cla,Dist) if known"]
    assert published_value("novbench", "2", "gpt-4o zero", "relevance") == float(
        printed.strip("()").split(", ")[0]
    )
    frame = published("novbench").set_index(["table", "cell", "metric"])
    assert tuple(frame.loc[("2", "gpt-4o zero", "relevance"), ["decimals", "source_kind"]]) == (
        4,
        "printed",
    )
    coling = json.loads(shared_file(*NOVBENCH_RESULTS, "result_dict_coling.json").read_text())
    assert published_value("novbench", "4", "gpt-4o zero", "relevance") == pytest.approx(
        coling["gpt-4o_zero"]["model_relevance"], abs=1e-6
    )
    change = json.loads(shared_file(*NOVBENCH_RESULTS, "result_dict_change.json").read_text())
    assert published_value("novbench", "5", "gpt-4o rag del", "dist_acc") == pytest.approx(
        change["gpt-4o_rag_del"]["model_dist_acc"], abs=1e-6
    )
    assert published_value("novbench", "5", "human", "clarity") == pytest.approx(
        change["gpt-4o_rag_del"]["exp_clarity"], abs=1e-6
    )
    method = json.loads(shared_file(*NOVBENCH_RESULTS, "result_dict_method.json").read_text())
    assert published_value("novbench", "6", "reviewer2 rag", "coverage") == pytest.approx(
        method["Reviewer2_Mr_rag"]["Coverage"], abs=1e-6
    )
    confidence = json.loads(
        shared_file(*NOVBENCH_RESULTS, "review_confidence_result.json").read_text()
    )
    sea_s = next(entry["SEA-S_zero"] for entry in confidence if "SEA-S_zero" in entry)
    assert published_value(
        "novbench", "8", "sea-s zero confidence=low", "similarity"
    ) == pytest.approx(sea_s["low"], abs=1e-6)


def test_judge_reference_values_equal_the_published_figure_values():
    text = shared_file("novelty-eval", "paper-results", "figure_values.md").read_text()
    hg_p4 = re.search(r"HG P4: (.*)", text).group(1).split()
    assert published_value(
        "judges",
        "two-track figure",
        "claude-opus-4-6 pairwise human-plus-generated P4",
        "strict_accuracy",
    ) == float(hg_p4[2].rstrip("*"))
    assert (
        published_value(
            "judges", "motivation figure", "gpt-5.4 pairwise human-only P4", "strict_accuracy"
        )
        == 75.97
    )
    ties = re.search(r"^Plan (.*) \| (.*)$", text, re.M)
    assert published_value(
        "judges",
        "tie-rate figure",
        "claude-opus-4-5 pairwise human-plus-generated purpose_mechanism",
        "tie_rate",
    ) == float(ties.group(2).split()[1])
    assert (
        published_value(
            "judges", "cost-efficiency figure", "gpt-5.4 pointwise human-only retrieval", "cost_usd"
        )
        == 19.36
    )
    # the omitted row of the cost figure: opus-4-6, Human-Only, pairwise reference
    omitted = re.search(r"hvh current opus46 k3: soft (\S+) strict (\S+) noties (\S+)", text)
    cell = "claude-opus-4-6 pairwise human-only reference"
    for metric, value in zip(["soft_accuracy", "strict_accuracy", "accuracy_without_ties"],
                             omitted.groups()):  # fmt: skip
        assert published_value("judges", "cost-efficiency figure", cell, metric) == float(value)
    # the pointwise panel's changes less their printed deltas give the D- source figure's
    # reference strip (sampling_depth_figure.ipynb prints acc3 and d3; one decimal each)
    panel = [("human-only", "P1", "gpt-5.4", 10.0),
             ("human-plus-generated", "P2", "claude-opus-4-6", 3.6)]  # fmt: skip
    for setup, change, model, delta in panel:
        cell = f"{model} pointwise {setup}"
        ablated = published_value("judges", "two-track figure", f"{cell} {change}", "macro_f1")
        reference = published_value("judges", "D- source figure", f"{cell} reference", "macro_f1")
        assert ablated - delta == pytest.approx(reference, abs=0.11)
    # the soft-accuracy figure's reference strip is the cost figure's soft accuracy, in points
    for model, setup, soft in [("claude-opus-4-6", "human-only", 0.8279),
                               ("gpt-5.4", "human-plus-generated", 0.8052)]:  # fmt: skip
        cell = f"{model} pairwise {setup} reference"
        assert published_value("judges", "soft-accuracy figure", cell, "soft_accuracy") == (
            pytest.approx(soft * 100)
        )


def test_verdicts_at_printed_precision_and_tolerance():
    assert verdict(0.705, 0.70453, 3, 0.005) == "match"
    assert verdict(0.5327, 0.5349, 4, 0.01) == "within"
    assert verdict(3.698, 3.5, 3, 0.05) == "outside"
    assert verdict(40.91, 40.914, 2, 2.0) == "match"


GRID = {
    "novbench": {
        "datasets": {"coling2020": {"name": "coling2020", "models": ["gpt-4o"]}},
        "strategies": ["zero", "few"],
        "perturbations": ["none"],
    },
    "judges": {
        "datasets": {"novelty-eval": {"name": "novelty-eval"}},
        "models": ["gpt-5.4"],
        "changes": ["reference", "P4"],
    },
}


def test_configured_maps_datasets_to_paper_tables_by_name_or_released_perturbations():
    novbench = {
        "datasets": {
            "sample": "data/sample/novbench_sample.json",
            "emnlp2023": None,
            "coling2020": {"url": "https://example.org/c.json", "papers": 73},
            "subset": {"path": "s.json", "perturbations_release": {"del": "d.json"}},
        },
        "models": ["gpt-4o", "qwen3-8b"],
        "strategies": ["zero"],
        "perturbations": ["none", "del"],
    }
    judges = {"datasets": {"novelty-eval": "x", "sample": "y"}, "models": [], "changes": []}
    grid = configured({"novbench": novbench, "judges": judges})
    assert grid["novbench"]["datasets"] == {
        "coling2020": {"name": "coling2020", "models": ["gpt-4o", "qwen3-8b"]},
        RELEASE_SUBSET: {"name": "subset", "models": ["gpt-4o", "qwen3-8b"]},
    }
    assert grid["judges"]["datasets"] == {"novelty-eval": {"name": "novelty-eval"}}


def coling_table(**human) -> pd.DataFrame:
    row = {"model": "human", "strategy": "-", "perturbation": "-", "relevance": 2.5}
    row |= {"n_papers": 73, "n_empty": 0, "n_failed": 0}
    row |= {"coverage": 1.0, "dist_acc": 1.0, "relevance_encoder": "all-minilm-l6-v2"}
    row |= {"coverage_encoder": "all-minilm-l6-v2", "fluency_lm": "smollm2-135m"}
    return pd.DataFrame([row | human])


def test_rows_compare_configured_outputs_and_give_every_other_row_a_reason():
    tables = {"coling2020": coling_table(kc=0.70453, ls=0.88706, clarity=0.531)}
    metrics = pd.DataFrame(
        [
            {"model": "gpt-5.4", "setup": "human-only", "change": "P4", "strict_accuracy": 0.7597},
            {"model": "gpt-5.4", "setup": "human-only", "change": "P3", "strict_accuracy": 0.5},
        ]
    ).assign(substitutes_for=None)
    metrics = {("novelty-eval", "pairwise"): metrics}
    rows = report.rows(GRID, tables, metrics, CONDITIONS, digests={"coling2020": COLING_SHA})
    assert list(rows.columns) == report.COLUMNS
    assert len(rows) == 930 + 4 + 613  # NovBench, its extraction validation, the judge study
    by_cell = rows.set_index(["study", "table", "cell", "metric"]).sort_index()
    kc = by_cell.loc[("novbench", "4", "human", "kc")]
    assert (kc["verdict"], kc["our_value"]) == ("match", 0.70453)
    assert kc["difference"] == pytest.approx(0.70453 - 0.705)
    assert kc["source_kind"] == "own regression value" and "not a published one" in kc["reason"]
    assert by_cell.loc[("novbench", "4", "human", "ls"), "verdict"] == "match"
    clarity = by_cell.loc[("novbench", "4", "human", "clarity")]
    # another scorer than the paper's: the value is shown, the verdict says it is no reproduction
    assert clarity["verdict"] == "not comparable" and clarity["our_value"] == 0.531
    assert "scorer smollm2-135m (paper: distilgpt2)" in clarity["reason"]
    assert "against the authors' file result_dict_coling.json" in clarity["reason"]
    relevance = by_cell.loc[("novbench", "4", "human", "relevance")]
    assert relevance["verdict"] == "not comparable" and "spiced" in relevance["reason"]
    assert by_cell.loc[("novbench", "4", "gpt-4o zero", "coverage"), "reason"] == (
        "no row in coling2020/table.csv (cell left out; see the run's log)"
    )
    assert by_cell.loc[("novbench", "4", "gpt-3.5-turbo zero", "coverage"), "reason"] == (
        "model 'gpt-3.5-turbo' not in the config (novbench.models)"
    )
    assert by_cell.loc[("novbench", "2", "gpt-4o zero", "clarity"), "reason"].startswith(
        "dataset 'emnlp2023' not in the config (novbench.datasets)"
    )
    assert by_cell.loc[("novbench", "7", "gpt-4o zero", "clarity"), "reason"].startswith(
        "dataset 'emnlp2023' not in the config (novbench.datasets)"
    )
    p4 = by_cell.loc[("judges", "motivation figure", "gpt-5.4 pairwise human-only P4")].iloc[0]
    assert (p4["verdict"], p4["our_value"]) == ("match", pytest.approx(75.97))
    assert (
        by_cell.loc[
            ("judges", "motivation figure", "gpt-5.4 pairwise human-only P3"), "reason"
        ].iloc[0]
        == "change 'P3' not in the config (judges.changes)"
    )
    compared = rows[rows["verdict"] == "match"]
    # KC and LS of the COLING human row; gpt-5.4 P4 in two figures
    assert len(compared) == 4
    assert rows.loc[rows["verdict"] == "not run", "reason"].str.len().gt(0).all()
    assert set(rows["verdict"]) == {"match", "not comparable", "not run"}


def test_the_embedded_default_compares_nothing_and_says_why():
    grid = configured(yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8")))
    assert grid["novbench"]["datasets"] == {} and grid["judges"]["datasets"] == {}
    rows = report.rows(grid, {}, {}, CONDITIONS)
    assert (rows["verdict"] == "not run").all() and rows["reason"].str.len().gt(0).all()


@pytest.fixture(scope="module")
def coling_run(tmp_path_factory):
    """The acceptance run: the default config plus COLING 2020, human row only, no judges."""
    tmp = tmp_path_factory.mktemp("reproduction")
    coling = shared_file("novbench", "coling2020_pairs.json")
    overlay = write_yaml(
        tmp / "coling.yaml",
        {
            "results": str(tmp / "results"),
            "novbench": {"datasets": {"sample": None, "coling2020": str(coling)}, "models": []},
            "judges": {"models": []},
        },
    )
    result = run_snakemake(
        "--cores", "2", "reproduction", "--configfile", "config/config.yaml", str(overlay)
    )
    assert not re.search(r"rule infer(_api)?:", result.stdout + result.stderr)
    return tmp / "results"


@pytest.mark.workflow
@pytest.mark.model
def test_coling_acceptance_report(coling_run):
    rows = pd.read_csv(coling_run / "reproduction" / "report.csv", keep_default_na=False)
    assert list(rows.columns) == report.COLUMNS and len(rows) == 930 + 4 + 613
    human = rows[(rows["table"] == "4") & (rows["cell"] == "human")].set_index("metric")
    assert human.loc["kc", "verdict"] == "match" and human.loc["ls", "verdict"] == "match"
    assert float(human.loc["kc", "our_value"]) == pytest.approx(0.7045, abs=0.0005)
    # Other scorers than the paper's: our value is shown, the verdict is "not comparable" with why
    assert human.loc["clarity", "verdict"] == "not comparable"
    assert float(human.loc["clarity", "our_value"]) == pytest.approx(0.5327, abs=0.005)
    assert "(paper: spiced)" in human.loc["relevance", "reason"]
    rest = rows[~((rows["table"] == "4") & (rows["cell"] == "human"))]
    assert (rest["verdict"] == "not run").all() and rest["reason"].str.len().gt(0).all()
    text = (coling_run / "reproduction" / "report.md").read_text()
    assert "## NovBench uncertainty on coling2020" in text and "| human" in text
    assert text.index("## Summary") < text.index("## Compared numbers")
    summary = (coling_run / "reproduction" / "summary.md").read_text()
    assert all(f"| {table} " in summary for table in ["2", "3", "4", "5", "6", "7", "8"])


@pytest.mark.workflow
@pytest.mark.model
def test_coling_human_row_matches_paper(coling_run):
    table = pd.read_csv(coling_run / "novbench" / "coling2020" / "table.csv")
    assert list(table["model"]) == ["human"]
    human = table.iloc[0]
    assert human["n_papers"] == 73
    assert human["kc"] == pytest.approx(0.7045, abs=0.001)
    assert human["ls"] == pytest.approx(0.8871, abs=0.001)
    assert human["clarity"] == pytest.approx(0.5327, abs=0.005)
    assert human["coverage"] == pytest.approx(1.0) and human["dist_acc"] == pytest.approx(1.0)


@pytest.mark.workflow
@pytest.mark.model
def test_coling_table_md_holds_the_bootstrap_intervals(coling_run):
    text = (coling_run / "novbench" / "coling2020" / "table.md").read_text()
    assert "95% bootstrap intervals of the means over papers" in text
