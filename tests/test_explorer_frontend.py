"""The instance explorer's front end (src/noveval/core/explorer/static) in headless Chromium, on a
synthetic explorer opened from the file system: its views, links, filters and CSV agree with the
data, an answer holding HTML shows as text and never runs, the console stays empty and the page
makes no network request."""

from __future__ import annotations

import csv
import io
import shutil
from urllib.parse import quote

import pytest
from conftest import unavailable
from explorer_browser import chromium_available, drive, run_chromium
from explorer_fixture import PWN, write_demo_explorer

INSTANCES, MODELS, CELLS = 12, 3, 4


def shown(value) -> str:
    """A number as the page shows it (three decimals at most; null as a dash)."""
    if value is None:
        return "–"
    return str(value) if isinstance(value, int) else f"{round(value, 3):g}"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    if not chromium_available():
        unavailable(
            "/usr/bin/chromium not found (Debian's chromium package)", "NOVEVAL_REQUIRE_CHROMIUM"
        )
    # 20 rows a chunk: a model's rows span several chunks with the same value
    return write_demo_explorer(
        tmp_path_factory.mktemp("explorer"),
        instances=INSTANCES,
        models=MODELS,
        cells=CELLS,
        rows_per_chunk=20,
    )


@pytest.fixture(scope="module")
def run(demo):
    steps = [
        {
            "go": "#home",
            "read": {
                "links": "a.cell-link",
                "summary": "dl.summary dd",
                "presets": "a.preset",
                "footer": "#footer",
            },
        },
        {
            "click": "a.cell-link",
            "read": {"count": "#count", "relevance": "td[data-column=relevance]"},
        },
        {
            "set": {
                "input[name='min.relevance']": "0.2",
                "input[name='max.relevance']": "0.7",
                "input[name=flag][value=flipped]": True,
            },
            "submit": "button[name=apply]",
            "read": {"count": "#count"},
        },
        {"go": "#rows?model=model-1&cell=few-none&min.relevance=0.3&sort=-relevance"},
        {"go": "#rows?q=" + quote("<script>"), "read": {"snippet": "td.text"}},
        {"go": "#rows?q=retrieved%20passage", "read": {"count": "#count"}},
        {"go": "#rows?q=retrieved%20passage&full=1", "read": {"count": "#count"}},
        {"go": "#rows?page=2"},
        {
            "go": "#instance?id=p0",
            "read": {"title": "h1", "texts": "pre.text", "sections": "section.instance-section h2"},
        },
        {
            "go": "#compare?a=model-0&b=model-2&cell=few-none",
            "read": {"count": "#count", "sides": "td.side"},
        },
        {"go": "#rows?cell=few-none&flag=flipped", "csv": True},
        {"rows": {"eq": {"model": ["model-2"]}, "range": {"relevance": [None, 0.3]}}},
    ]
    return drive(demo.folder, steps, timeout_s=120)


def test_home_links_filters_and_counts(demo, run):
    results, console, network = run
    assert not results.get("failure"), results["failure"]
    home, link, form, sorted_, *_ = results["steps"]
    assert home["read"]["summary"] == [
        str(INSTANCES),
        str(MODELS),
        str(CELLS),
        str(INSTANCES * MODELS * CELLS),
    ]
    assert home["read"]["presets"] == [p["label"] for p in demo.manifest["presets"]]
    assert "generated 2026-12-06T23:00:00Z" in home["read"]["footer"][0]
    # the first linked cell: the rows of model-0 in zero-none
    expected = demo.matching(model=["model-0"], cell=["zero-none"])
    assert link["state"]["view"] == "rows"
    assert link["location"] == "#rows?model=model-0&cell=zero-none"
    assert link["read"]["count"] == [str(len(expected))] == [str(INSTANCES)]
    assert link["state"]["shown"] == [r["id"] for r in expected]
    assert link["read"]["relevance"] == [shown(r["relevance"]) for r in expected]
    # the filter form: a range and a flag on top of the link's keys
    expected = demo.matching(model=["model-0"], cell=["zero-none"], lo=0.2, hi=0.7, flipped=True)
    assert form["state"]["filter"]["range"] == {"relevance": [0.2, 0.7]}
    assert form["read"]["count"] == [str(len(expected))] and expected
    assert form["state"]["shown"] == [r["id"] for r in expected]
    # sorted by relevance, descending
    expected = sorted(
        demo.matching(model=["model-1"], cell=["few-none"], lo=0.3), key=lambda r: -r["relevance"]
    )
    assert sorted_["state"]["matching"] == len(expected)
    assert sorted_["state"]["shown"] == [r["id"] for r in expected]


def test_search_pages_instance_compare_csv(demo, run):
    results, console, network = run
    steps = results["steps"]
    script, context, full, page2, instance, compare, csv_step, rows = steps[4:]
    assert script["state"]["matching"] == 1
    assert script["read"]["snippet"][0].startswith(PWN)  # shown as text
    assert context["state"]["matching"] == 0  # only in the full texts
    assert full["state"]["matching"] == INSTANCES * MODELS * CELLS // 2  # the context cells
    total = INSTANCES * MODELS * CELLS
    assert page2["state"]["matching"] == total and len(page2["state"]["shown"]) == total - 100
    assert instance["read"]["title"] == ["Paper p0: A synthetic study number 0"]
    assert instance["read"]["sections"] == ["Novelty claims", "Gold label"]
    assert instance["state"]["matching"] == MODELS * CELLS
    assert any(text.startswith(PWN) for text in instance["read"]["texts"])
    assert compare["state"]["matching"] == INSTANCES == int(compare["read"]["count"][0])
    assert len(compare["read"]["sides"]) == 2 * INSTANCES
    table = list(csv.DictReader(io.StringIO(csv_step["csv"])))
    expected = demo.matching(cell=["few-none"], flipped=True)
    assert [r["id"] for r in table] == [r["id"] for r in expected]
    assert [float(r["relevance"]) if r["relevance"] else None for r in table] == [
        r["relevance"] for r in expected
    ]
    assert [r["model"] for r in table] == [r["model"] for r in expected]  # decoded keys
    assert list(table[0]) == [
        "id",
        "paper",
        "model",
        "cell",
        "relevance",
        "score",
        "flipped",
        "snippet",
    ]
    assert rows["rows"]["count"] == len(demo.matching(model=["model-2"], hi=0.3))


def test_safe_and_offline(run):
    results, console, network = run
    assert all(step["pwned"] is None for step in results["steps"])
    assert all(step["error_shown"] is None for step in results["steps"])
    assert results["violations"] == [] and results["pageErrors"] == []
    assert console == []  # no error, no CSP violation, nothing logged
    assert network == []
    assert results["styled"]  # the stylesheet loaded under the CSP


def test_missing_data_file_is_shown(demo, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(demo.folder, broken)
    (broken / "data" / "rows-1.js").unlink()
    results, console, network = drive(broken, [{"go": "#rows?model=model-0"}], timeout_s=60)
    step = results["steps"][0]
    assert "data/rows-1.js could not be loaded" in step["error_shown"]
    assert step["state"]["error"] and network == []


def test_net_log_sees_page_requests(tmp_path):
    """The network check works: a page that fetches over http shows in the URLs."""
    if not chromium_available():
        unavailable("/usr/bin/chromium not found", "NOVEVAL_REQUIRE_CHROMIUM")
    (tmp_path / "probe.js").write_text('fetch("http://127.0.0.1:9/probe").catch(() => 0);\n')
    page = tmp_path / "probe.html"
    page.write_text(
        '<!doctype html><html><head><meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; script-src 'self'; connect-src "
        'http://127.0.0.1:9"><script src="probe.js"></script></head><body></body>'
        "</html>"
    )
    _, _, network, _ = run_chromium(page, budget_ms=3000, timeout_s=60)
    assert network == ["http://127.0.0.1:9/probe"]
