"""The judge study's LLM-assisted search: parsing the LLM's answers, the candidates' selection and
the prompt block, worked by hand; the search against the loopback Semantic Scholar."""

from __future__ import annotations

import yaml
from conftest import REPO, shared_file
from loopback_s2 import LoopbackS2

from noveval.core.registry import load_registry
from noveval.core.upstream import UpstreamSource
from noveval.judges.grid.build import judges_grid
from noveval.literature.assisted_search import (
    TEMPLATES,
    AssistedSearchPrompts,
    before_cutoff,
    contributions_summary,
    format_papers_for_prompt,
    read_contributions,
    read_queries,
    search_candidates,
    select_candidates,
)
from noveval.literature.semantic_scholar import SemanticScholar

REGISTRY = load_registry(REPO / "config" / "models.yaml")


def paper(pid, query, title=None, abstract=None, year=2020, publication_date=None):
    return {
        "paperId": pid,
        "title": title or f"Paper {pid}",
        "abstract": abstract or f"Abstract of {pid}.",
        "year": year,
        "publication_date": publication_date,
        "source_query": query,
    }


def test_contributions_are_summarised_as_theirs():
    answer = (
        'Sure.\n```json\n{"Methodology": ["A new loss."], "Data": [],'
        ' "Findings": ["X > Y.", "Z."]}\n```'
    )
    summary = contributions_summary(read_contributions(answer))
    assert summary == "Methodology:\n  - A new loss.\nFindings:\n  - X > Y.\n  - Z."
    assert read_contributions("no json here") == {}
    assert contributions_summary({"Data": "not a list"}) == ""


def test_queries_are_read_from_the_queries_key():
    assert read_queries('{"queries": ["Papers about debate", "", 3]}') == ["Papers about debate"]
    assert read_queries('{"query": ["x"]}') == []
    assert read_queries(None) == []


def test_their_date_rule_drops_the_cutoff_year_without_a_day():
    candidates = [
        paper("a", "q", publication_date="2025-02-28", year=2025),  # before the day: kept
        paper("b", "q", publication_date="2025-03-01", year=2025),  # on the day: dropped
        paper("c", "q", year=2024),  # year before: kept
        paper("d", "q", year=2025),  # the cutoff's year, no day: dropped
        paper("e", "q", year=None),  # neither: dropped
        paper("f", "q", publication_date="2025-03", year=2023),  # unreadable date: by year
    ]
    assert [c["paperId"] for c in before_cutoff(candidates, "2025-03-01")] == ["a", "c", "f"]


def test_selection_drops_own_and_repeated_papers_then_fills_per_query():
    idea = "We propose debate between agents."
    candidates = [
        paper("1", "q1", title="  Our Own Paper "),  # the idea's own title
        paper("2", "q1", abstract="we propose debate between agents."),  # the idea's text
        paper("3", "q1"),
        paper("4", "q1"),
        paper("5", "q1"),
        paper("3", "q2", abstract="A second abstract of 3."),  # id seen: dropped
        paper("6", "q2", abstract="Abstract of 4."),  # abstract seen: dropped
        paper("7", "q2"),
        paper("8", "q3", year=2026),  # after the cutoff
    ]
    chosen = select_candidates(candidates, 4, idea, "our own paper", "2025-03-01")
    # two queries left: a quota of 2 each (3, 4 from q1; 7 from q2), then round-robin: 5
    assert [c["paperId"] for c in chosen] == ["3", "4", "7", "5"]


def test_the_prompt_block_is_theirs():
    block = format_papers_for_prompt(
        [paper("1", "q one", title="T1", abstract="A1."), {"title": "T2", "text": "A2."}]
    )
    assert block == (
        "[metadata-1]\ntitle: T1\nretrieval_query: q one\nwhy_relevant: \n[abstract-1]\nA1.\n"
        "\n[metadata-2]\ntitle: T2\nretrieval_query: \nwhy_relevant: \n[abstract-2]\nA2.\n"
    )


def test_search_candidates_shape_semantic_scholar_papers(tmp_path):
    with LoopbackS2(api_key="k", requests_per_second=100.0) as server:
        s2 = SemanticScholar(server.base_url, "k", tmp_path, 1000.0, backoff_s=0.01)
        found = search_candidates(s2, ["debate judge", "reward interventions robot"], 2)
    assert [c["source_query"] for c in found] == ["debate judge"] * 2 + [
        "reward interventions robot"
    ] * 2
    assert found[0]["title"] == "AI Safety via Debate"
    assert found[0]["text"] == found[0]["abstract"] and found[0]["corpus_id"] == found[0]["paperId"]
    assert server.requests[0][1]["fields"] == "title,authors,abstract,paperId,year"


def test_their_templates_render_one_user_message():
    shared_file("novelty-eval", "upstream", TEMPLATES)  # the retrieval templates are there
    source = UpstreamSource("judges", shared_file("novelty-eval", "upstream"))
    prompts = AssistedSearchPrompts(source)
    (message,) = prompts.queries("An idea.", "Methodology:\n  - X.", 5)
    assert message["role"] == "user"
    assert "Generate up to 5 search queries." in message["content"]
    assert message["content"].endswith(
        "Contributions:\nMethodology:\n  - X.\n\n"
        "Return a JSON object with a single key 'queries' which is a list of strings.\n"
    )


def test_the_grid_runs_searched_retrieval_cells_with_a_search_model():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["judges"]["changes"] = ["reference", "retrieval"]
    config["judges"]["retrieval"].update(search="semantic_scholar", model=None, corpus=None)
    unsearched = judges_grid(config, REGISTRY)
    assert not any(c.change == "retrieval" for c in unsearched.cells)
    assert any("no judges.retrieval.model" in line for line in unsearched.omitted)

    config["judges"]["retrieval"]["model"] = "smollm2-135m"
    grid = judges_grid(config, REGISTRY)
    assert sum(c.change == "retrieval" for c in grid.cells) == 4  # 2 setups x 2 formats
    assert ("sample", "smollm2-135m", "search_queries") in grid.batches()
    assert grid.batch_requests("r", "sample", "smollm2-135m", "search_contributions") == [
        f"r/judges/sample/smollm2-135m/{f}/{s}/search_contributions/requests.parquet"
        for f, s in grid.searches("sample")
    ]
    assert grid.search_responses("r", "sample", "search_queries") == (
        "r/judges/sample/smollm2-135m/responses/search_queries.parquet"
    )
