"""The judges' paper mode against the authors' own files (shared copies, offline).

Expected prompts are rendered here independently: the constants by executing the literal block
of ``judge.py`` that assigns them, the templates with a plain ``jinja2.FileSystemLoader``.
"""

from __future__ import annotations

import json
import warnings

import jinja2
import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, shared_file
from scipy.stats import bootstrap

from noveval.core.registry import load_registry
from noveval.judges.authors import (
    AuthorsPrompts,
    apply_blocklist,
    blocked_titles,
    parse_authors_verdict,
)
from noveval.judges.instances import load_release
from noveval.judges.prompts import calls_of, judge_requests
from noveval.judges.statistics.aggregation import FAILED, TIE, Rules, aggregate, sub_runs
from noveval.judges.statistics.measures import paired_bootstrap, pairwise_metrics, pointwise_metrics
from noveval.judges.statistics.summary import metrics_table

PAIR = ["Idea zero: a byte-level curriculum.", "Idea one: majority voting over prompts."]
RELATED = [["Prior A.", "Prior B."], ["Prior C."]]
PAPER_CALLS = {"pointwise": 3, "pairwise_per_order": 3}
PAPER_BY_CHANGE = {c: {"pairwise_per_order": 1} for c in ("P3", "P4", "P5")}


@pytest.fixture(scope="module")
def upstream():
    return shared_file("novelty-eval", "upstream")


@pytest.fixture(scope="module")
def expected(upstream):
    """Render every change as judge.py does, from the shared files alone."""
    source = (upstream / "src/novelty_eval/judge.py").read_text()
    start = source.index("NOVELTY_PAIRWISE_TIP = (")
    end = source.index("# Initialize Jinja2 environment")
    constants: dict = {}
    exec(source[start:end], {}, constants)  # the block holds literal assignments only
    ablations = yaml.safe_load((upstream / "src/novelty_eval/ablation/ablations.yaml").read_text())
    vague = ablations["shared"]["vague_novelty_criterion"]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(upstream / "src/novelty_eval/templates")
    )

    def tipped(criteria, tip):
        text = criteria["novelty"]
        first = next(line for line in text.splitlines() if line.strip())
        indent = first[: len(first) - len(first.lstrip())]
        return {"novelty": text.rstrip() + "\n\n" + indent + tip}

    def render(template, format, ideas, criteria, tip, related=("", "")):
        shown = [{"text": t, "related_work": r} for t, r in zip(ideas, related)]
        if format == "pointwise":
            return env.get_template(template).render(
                idea=shown[0], evaluation_criteria=criteria, cutoff_date=None
            )
        return env.get_template(template).render(
            idea0=shown[0], idea1=shown[1], evaluation_criteria=tipped(criteria, tip)
        )

    full = constants["EVALUATION_CRITERIA"]
    tip = constants["NOVELTY_PAIRWISE_TIP"]
    templates = {
        "reference": ("pairwise_novelty.jinja2", "pointwise_novelty.jinja2", full, tip),
        "P1": ("pairwise_novelty.jinja2", "pointwise_novelty.jinja2", {"novelty": vague}, tip),
        "P2": (
            "pairwise_novelty_no_criteria.jinja2",
            "pointwise_novelty_no_criteria.jinja2",
            full,
            tip,
        ),
        "retrieval": (
            "pairwise_novelty.jinja2",
            "pointwise_novelty.jinja2",
            constants["EVALUATION_CRITERIA_RETRIEVAL"],
            constants["NOVELTY_RETRIEVAL_PAIRWISE_TIP"],
        ),
    }
    for change in ("low_reasoning", "purpose_mechanism"):
        templates[change] = templates["reference"]
    short = "ai_researcher_prompts/pairwise_ai_researcher_{}.jinja2"
    for change, name in {"P3": "variation", "P4": "no_review", "P5": "comparative"}.items():
        templates[change] = (short.format(name), None, full, tip)

    def texts(change, format, order):
        pairwise, pointwise, criteria, tip = templates[change]
        ideas = PAIR if order == 0 else PAIR[::-1]
        related = ("", "")
        if change == "retrieval":
            blocks = RELATED if order == 0 else RELATED[::-1]
            related = tuple("\n\n".join(block) for block in blocks)
        if format == "pointwise":
            return render(pointwise, format, ideas[:1], criteria, tip, related[:1])
        return render(pairwise, format, ideas, criteria, tip, related)

    return texts


@pytest.fixture(scope="module")
def spec():
    return load_registry(REPO / "config/models.yaml").model("smollm2-135m")


BOTH_FORMATS = ["reference", "P1", "P2", "retrieval", "low_reasoning", "purpose_mechanism"]


@pytest.mark.parametrize(
    "format, change",
    [(f, c) for f in ("pairwise", "pointwise") for c in BOTH_FORMATS]
    + [("pairwise", c) for c in ("P3", "P4", "P5")],  # P3-P5 are pairwise prompts only
)
def test_every_change_renders_the_authors_prompt(change, format, upstream, expected, spec):
    instance = {
        "instance_id": "7",
        "format": format,
        "area": "unused by the authors' prompts",
        "ideas": PAIR if format == "pairwise" else PAIR[:1],
    }
    related = {"7": RELATED if format == "pairwise" else RELATED[:1]}
    rows = judge_requests(
        [instance],
        change,
        spec,
        {"seed": 0, "temperature": 0.0, "max_tokens": 64},
        calls_of(change, PAPER_CALLS, PAPER_BY_CHANGE),
        related=related if change == "retrieval" else None,
        authors=AuthorsPrompts(upstream),
    )
    orders = (0, 1) if format == "pairwise" else (0,)
    per_order = 1 if change in ("P3", "P4", "P5") else 3
    assert len(rows) == len(orders) * per_order
    for row in rows:
        order = int(row["item_id"].split("|")[1])
        messages = (
            json.loads(row["messages"]) if isinstance(row["messages"], str) else row["messages"]
        )
        assert messages == [{"role": "user", "content": expected(change, format, order)}]
        assert row["response_format"] in (None, "null") or pd.isna(row["response_format"])


def test_a_tampered_upstream_file_is_refused(upstream, tmp_path):
    copy = tmp_path / "src/novelty_eval/judge.py"
    copy.parent.mkdir(parents=True)
    copy.write_text((upstream / "src/novelty_eval/judge.py").read_text() + "\n# edited\n")
    with pytest.raises(ValueError, match="SHA-256"):
        AuthorsPrompts(tmp_path).prompt("pairwise", "reference", PAIR)


@pytest.mark.parametrize(
    ("text", "format", "vote"),
    [
        ('<thinking>{"novelty": 0}</thinking>\n```json\n{\n  "novelty": 1\n}\n```', "pairwise", 1),
        ("{'novelty': 0}", "pairwise", 0),  # a Python literal, as the short prompts ask
        ('{"novelty": "1"}', "pairwise", 1),  # int("1")
        ('{"novelty": 2}', "pairwise", None),
        ('{"more_novel": 1}', "pairwise", None),
        ('{"novelty": 1, "other": 0}', "pointwise", 0),  # even split of 0/1 values: 0
        ('{"novelty": true}', "pointwise", 1),  # a bool is an int in Python
        ('{"novelty": "1"}', "pointwise", None),  # strings are not votes pointwise
        ("no JSON at all", "pointwise", None),
    ],
)
def test_their_verdict_semantics(text, format, vote):
    assert parse_authors_verdict(text, format) == vote


def _instances(format, titles_by_key):
    return pd.DataFrame(
        {
            "instance_id": list(titles_by_key),
            "format": format,
            "area": "a",
            "ideas": [[f"the idea of {t}" for t in titles] for titles in titles_by_key.values()],
            "titles": list(titles_by_key.values()),
        }
    )


def test_blocklist_removes_the_titles_and_their_partners(upstream):
    titles = blocked_titles(upstream)
    assert len(titles) == 13
    blocked = "DFCA: Decentralized Federated Clustering Algorithm"
    pairs = _instances(
        "pairwise",
        {"0": ["A", "B"], "1": ["C", blocked.upper()], "2": ["D", "E"], "3": [blocked, "F"]},
    )
    assert apply_blocklist(pairs, titles)["instance_id"].tolist() == ["0", "2"]
    points = _instances(
        "pointwise", {"0": ["A"], "1": ["B"], "2": ["C"], "3": [blocked], "5": ["G"], "6": ["H"]}
    )
    # key 3 is blocked; key 2 holds the text of its partner in pair 1 and goes with it
    assert apply_blocklist(points, titles, pairs)["instance_id"].tolist() == ["0", "1", "5", "6"]


@pytest.mark.parametrize("setup", ["human-only", "human-plus-generated"])
@pytest.mark.parametrize("format", ["pairwise", "pointwise"])
def test_blocklist_removes_nothing_from_the_release(setup, format, upstream):
    table = load_release(shared_file("novelty-eval", setup, f"{format}.yaml"), setup, format)
    assert len(apply_blocklist(table, blocked_titles(upstream))) == len(table) > 0


def test_authors_tie_rules():
    paper = Rules(even_split="not_novel", all_failed="wrong")
    calls = pd.DataFrame(
        {
            "instance_id": ["even", "even", "dead", "dead"],
            "order": 0,
            "call": [0, 1, 0, 1],
            "choice": pd.array([1, 0, None, None], dtype="Int64"),
            "input_tokens": 1,
            "output_tokens": 1,
            "cost_usd": 0.0,
        }
    )
    verdicts = aggregate(calls, "pointwise", paper).set_index("instance_id")["verdict"]
    assert verdicts.to_dict() == {"even": 0, "dead": FAILED}
    assert aggregate(calls, "pointwise")["verdict"].tolist() == [TIE, TIE]
    # failed = wrong: not a tie, no half point
    metrics = pairwise_metrics([0, 1, 0, 1], [0, FAILED, TIE, 1])
    assert metrics["soft_accuracy"] == pytest.approx(2.5 / 4)
    assert metrics["strict_accuracy"] == 0.5 and metrics["tie_rate"] == 0.25
    assert metrics["failed_rate"] == 0.25
    assert metrics["accuracy_without_ties"] == pytest.approx(2 / 3)
    assert pointwise_metrics([1, 0], [FAILED, 0])["recall_novel"] == 0.0


def _pairwise_calls(choices_by_instance):
    rows = []
    for instance_id, per_order in choices_by_instance.items():
        for order, choices in enumerate(per_order):
            for call, choice in enumerate(choices):
                rows.append((instance_id, order, call, choice))
    frame = pd.DataFrame(rows, columns=["instance_id", "order", "call", "choice"])
    frame["choice"] = frame["choice"].astype("Int64")
    return frame.assign(input_tokens=10, output_tokens=2, cost_usd=0.03)


def test_no_aggregation_is_the_mean_of_three_single_call_runs():
    # labels: the expected winner of pairs a, b, c is idea 0, 0, 1
    calls = _pairwise_calls(
        {
            # run 0: (0, shown 1 → idea 0) correct; run 1: idea 1 twice, wrong; run 2: tie
            "a": [[0, 1, 0], [1, 0, 0]],
            "b": [[0, 0, 0], [1, 1, 1]],  # correct in every run
            "c": [[1, 0, 1], [0, 1, None]],  # run 0 correct, run 1 wrong, run 2 correct
        }
    )
    labels = {"a": 0, "b": 0, "c": 1}
    frames = []
    for change, table in {
        "reference": calls.assign(run=0),
        "no_aggregation": sub_runs(calls, 3),
    }.items():
        verdicts = aggregate(table, "pairwise")
        verdicts["label"] = verdicts["instance_id"].map(labels)
        frames.append(verdicts.assign(model="m", setup="s", ideas="standard", change=change))
    runs = frames[1].pivot(index="instance_id", columns="run", values="verdict")
    assert runs.loc["a"].tolist() == [0, 1, TIE]
    assert runs.loc["c"].tolist() == [1, 0, 1]
    table = metrics_table(pd.concat(frames), "pairwise", 2000, 42).set_index("change")
    # strict accuracy per run: 3/3, 1/3, 2/3 → mean 2/3; ties 0, 0, 1/3 → 1/9
    assert table.loc["no_aggregation", "quality"] == pytest.approx(2 / 3)
    assert table.loc["no_aggregation", "tie_rate"] == pytest.approx(1 / 9)
    assert table.loc["no_aggregation", "n_runs"] == 3
    # the run's total: 3 pairs × 2 orders × 3 calls × $0.03; no aggregation: a third of it
    assert table.loc["reference", "cost_usd"] == pytest.approx(0.54)
    assert table.loc["no_aggregation", "cost_usd"] == pytest.approx(0.18)


def test_bca_bootstrap_equals_scipy_on_the_paired_differences():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 120)
    reference = np.where(rng.random(120) < 0.85, labels, 1 - labels)
    changed = np.where(rng.random(120) < 0.65, labels, 1 - labels)
    result = paired_bootstrap(
        "pairwise", labels, reference, changed, resamples=5000, seed=42, method="BCa"
    )
    differences = (changed == labels).astype(float) - (reference == labels)
    direct = bootstrap(
        (differences,), np.mean, n_resamples=5000, method="BCa", rng=np.random.default_rng(42)
    )
    assert result["difference"] == pytest.approx(differences.mean())
    assert result["ci_low"] == pytest.approx(direct.confidence_interval.low)
    assert result["ci_high"] == pytest.approx(direct.confidence_interval.high)
    assert result["reliable"] and result["significant"] == (result["ci_high"] < 0)


def test_a_degenerate_bca_interval_is_not_reliable():
    labels = np.array([0, 1] * 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = paired_bootstrap(
            "pairwise", labels, labels, 1 - labels, resamples=1000, seed=42, method="BCa"
        )
    assert result["difference"] == -1.0
    assert not result["reliable"] and not result["significant"]
