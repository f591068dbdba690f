"""The Idea Novelty Checker's searches on Semantic Scholar, as their client made them
(baselines/_shared/s2_client.py): keywords and titles, the snippet search, the papers' details."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from noveval.literature.leakage import cutoff_filter, is_own_paper, without_leakage
from noveval.literature.semantic_scholar import CLIENT_FIELDS, SemanticScholar

log = logging.getLogger(__name__)


# Their Semantic Scholar requests (baselines/_shared/s2_client.py).
SEARCH_LIMIT = 100

SEARCH_FIELDS = CLIENT_FIELDS

DETAIL_FIELDS = [
    "corpusId",
    "paperId",
    "url",
    "title",
    "year",
    "abstract",
    "authors.name",
    "fieldsOfStudy",
    "citationCount",
    "venue",
    "publicationDate",
]

DETAIL_BATCH = 100


@dataclass(frozen=True)
class Literature:
    """The checker's Semantic Scholar searches for one cutoff."""

    client: SemanticScholar
    cutoff: str | None

    def keyword(self, query: str, titles: list[str]) -> list[dict]:
        """A keyword search's papers (not the idea's own), a missing title or abstract as an
        empty text, as their client reshapes them."""
        papers = self.client.search(query, SEARCH_LIMIT, SEARCH_FIELDS, cutoff_filter(self.cutoff))
        return [
            {**p, "title": p.get("title") or "", "abstract": p.get("abstract") or ""}
            for p in without_leakage(papers, titles)[0]
        ]

    def snippet(self, idea: str, titles: list[str]) -> list[dict]:
        """The snippet search's papers (not the idea's own), their details fetched by corpus id."""
        entries = self.client.snippet_search(idea, SEARCH_LIMIT, cutoff_filter(self.cutoff))
        corpus_ids = [
            (entry.get("paper") or {}).get("corpusId")
            for entry in entries
            if not is_own_paper((entry.get("paper") or {}).get("title"), titles)
        ]
        corpus_ids = [f"CorpusId:{c}" for c in corpus_ids if c]
        details = []
        for start in range(0, len(corpus_ids), DETAIL_BATCH):
            details += self.client.papers(corpus_ids[start : start + DETAIL_BATCH], DETAIL_FIELDS)
        return [p for p in details if isinstance(p, dict) and p.get("corpusId")]

    def papers(self, idea: str, queries: list[str], titles: list[str]) -> list[dict]:
        """Snippet papers first, then keyword papers they do not hold, once each by corpus id,
        each with its ``source``."""
        found: dict[str, dict] = {}
        for paper in self.snippet(idea, titles):
            found[str(paper["corpusId"])] = {**paper, "source": "snippet"}
        keyword = {}
        for query in queries:
            for paper in self.keyword(query, titles):
                if paper.get("corpusId"):
                    keyword[str(paper["corpusId"])] = paper
        for corpus_id, paper in keyword.items():
            if corpus_id in found:
                found[corpus_id]["source"] = "keyword+title+snippet"
            else:
                found[corpus_id] = {**paper, "source": "keyword+title"}
        return list(found.values())
