"""The literature-search layer: the Semantic Scholar client against the loopback stand-in, and
the leakage filter on hand-made titles and dates."""

from __future__ import annotations

import pytest
from loopback_s2 import LoopbackS2

from noveval.cluster.preflight.access import searches_literature, semantic_scholar_key_check
from noveval.literature.leakage import (
    cutoff_filter,
    own_titles,
    published_by,
    same_paper,
    without_leakage,
)
from noveval.literature.semantic_scholar import SemanticScholar, SemanticScholarError, clean_query
from noveval.planning.literature import literature_note, literature_searches

FIELDS = ["title", "abstract", "year", "publicationDate"]
KEY = "s2-unit-key"


def client(server: LoopbackS2, cache_dir, key: str | None = KEY, rate: float = 1000.0):
    return SemanticScholar(server.base_url, key, cache_dir, rate, backoff_s=0.01)


@pytest.fixture
def s2():
    with LoopbackS2(api_key=KEY, requests_per_second=100.0) as server:
        yield server


def test_search_answers_the_documented_shape_and_a_rerun_asks_nothing(s2, tmp_path):
    first = client(s2, tmp_path)
    papers = first.search("byte-level language models tokenizer", 3, FIELDS)
    assert papers[0]["title"] == "Byte-Level Language Models"
    assert set(papers[0]) == {"paperId", *FIELDS}
    assert len(papers) == 3
    assert first.counts() == {"requests_made": 1, "requests_cached": 0}

    again = client(s2, tmp_path)
    assert again.search("byte-level  language models\ttokenizer", 3, FIELDS) == papers
    assert again.counts() == {"requests_made": 0, "requests_cached": 1}
    assert len(s2.requests) == 1
    assert s2.searches() == ["byte-level language models tokenizer"]


def test_rate_limited_and_failed_requests_are_retried(s2, tmp_path):
    s2.requests_per_second = 5.0  # the client below asks far faster: the second search gets 429
    fast = client(s2, tmp_path)
    fast.search("debate", 2, FIELDS)
    s2.fail_next = [500, 503]
    assert fast.paper("CorpusId:250000004", ["title"])["title"] == "AI Safety via Debate"
    statuses = [status for _, _, status in s2.requests]
    assert statuses[0] == 200 and statuses[1:3] == [500, 503] and statuses[-1] == 200
    assert 429 in statuses
    assert fast.requests_made == len(statuses)


def test_the_client_paces_itself_to_the_rate_limit(s2, tmp_path):
    s2.requests_per_second = 10.0
    paced = client(s2, tmp_path, rate=8.0)
    for query in ("debate", "reward", "subword"):
        paced.search(query, 1, FIELDS)
    assert [status for _, _, status in s2.requests] == [200, 200, 200]


def test_clients_sharing_a_cache_folder_share_the_pace(s2, tmp_path):
    s2.requests_per_second = 10.0
    first, second = client(s2, tmp_path, rate=8.0), client(s2, tmp_path, rate=8.0)
    for query in ("debate", "reward", "subword", "tokenizer"):
        first.search(query, 1, FIELDS)
        second.search(query + " models", 1, FIELDS)
    assert [status for _, _, status in s2.requests] == [200] * 8


def test_a_wrong_key_and_a_bad_request_are_clear_errors(s2, tmp_path):
    with pytest.raises(SemanticScholarError, match="403"):
        client(s2, tmp_path, key="wrong").search("debate", 1, FIELDS)
    with pytest.raises(SemanticScholarError, match="Unrecognized or unsupported fields"):
        client(s2, tmp_path / "other").search("debate", 1, ["novelty"])
    assert client(s2, tmp_path / "third").paper("CorpusId:1", ["title"]) == {}


def test_the_cutoff_is_sent_as_the_api_filter(s2, tmp_path):
    titles = [
        p["title"]
        for p in client(s2, tmp_path).search(
            "byte level language models", 10, FIELDS, ":2025-03-01"
        )
    ]
    assert "Byte-Level Language Models" in titles
    assert "Tokenizer-Free Language Models at Scale" not in titles
    assert s2.requests[0][1]["publicationDateOrYear"] == ":2025-03-01"


def test_clean_query_collapses_and_truncates():
    assert clean_query("  a\n b\x00c ") == "a bc"
    assert len(clean_query("x" * 300)) == 256


@pytest.mark.parametrize(
    ("retrieved", "own", "same"),
    [
        ("AI Safety via Debate", "ai safety  via debate!", True),
        ("Attention", "Attention Is All You Need", False),  # short titles: exact only
        (
            "Debate Helps Weak Judges Supervise Strong Models: A Study",
            "Debate Helps Weak Judges Supervise Strong Models",
            True,
        ),
        ("Reward learning – from corrections", "Reward learning - from corrections", True),
        ("", "Anything", False),
    ],
)
def test_own_paper_by_title(retrieved, own, same):
    assert same_paper(retrieved, own) is same


@pytest.mark.parametrize(
    ("paper", "kept"),
    [
        ({"publicationDate": "2025-03-01", "year": 2025}, True),  # on the day: kept
        ({"publicationDate": "2025-03-02", "year": 2025}, False),
        ({"publicationDate": None, "year": 2024}, True),
        ({"publicationDate": None, "year": 2026}, False),
        ({"publicationDate": None, "year": 2025}, True),  # a year only: compared by year
        ({}, True),  # neither: kept
        ({"publicationDate": "soon"}, True),  # unreadable: kept
    ],
)
def test_published_by_the_cutoff(paper, kept):
    assert published_by(paper, "2025-03-01") is kept


def test_cutoff_filter_and_own_titles():
    assert cutoff_filter("2025-03-01") == ":2025-03-01"
    assert cutoff_filter("2025") == "-2025"
    assert cutoff_filter("2020:2024") == "2020:2024"
    assert cutoff_filter(None) is None
    metadata = {"title": "A Paper", "paper_title": "a paper", "aliases": ["Its Preprint"]}
    assert own_titles(metadata) == ["A Paper", "Its Preprint"]


def test_without_leakage_drops_own_papers_and_late_ones():
    papers = [
        {"title": "AI Safety via Debate", "publicationDate": "2018-05-02"},
        {"title": "Other", "publicationDate": "2026-01-01"},
        {"title": "Kept", "year": 2020},
    ]
    kept, dropped = without_leakage(papers, ["AI safety via debate"], "2025-03-01")
    assert [p["title"] for p in kept] == ["Kept"] and dropped == 2


def test_the_plan_counts_searches_and_their_time_at_the_rate():
    searches = literature_searches(ideas=720, n_queries=5, requests_per_second=1.0)
    assert (searches.searches, searches.hours) == (3600, 1.0)
    assert "3,600 Semantic Scholar searches for 720 ideas, about 1.0 h" in literature_note(searches)


@pytest.mark.parametrize(
    ("config", "env", "ok"),
    [
        (
            {"judges": {"changes": ["retrieval"], "retrieval": {"search": "semantic_scholar"}}},
            {},
            False,
        ),
        (
            {"judges": {"changes": ["retrieval"], "retrieval": {"search": "semantic_scholar"}}},
            {"S2_API_KEY": "k"},
            True,
        ),
        ({"judges": {"changes": ["retrieval"], "retrieval": {"search": "embedding"}}}, {}, None),
        (
            {"judges": {"changes": ["reference"], "retrieval": {"search": "semantic_scholar"}}},
            {},
            None,
        ),
    ],
)
def test_preflight_checks_the_key_only_when_the_grid_searches(config, env, ok):
    check = semantic_scholar_key_check(searches_literature(config), env)
    assert check.name == "key S2_API_KEY" and check.ok is ok
