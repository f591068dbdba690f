"""A loopback stand-in for Semantic Scholar's Academic Graph API (v1), enforcing its documented
rules (api.semanticscholar.org/api-docs/graph, /product/api).

Endpoints on 127.0.0.1 under ``/graph/v1`` over a fixed list of papers (by default
``tests/fixtures/s2_papers.yaml``):

- ``GET /paper/search``: ``query`` required (400 ``Missing required parameter``), ``limit`` 1 to
  100 (400 otherwise), ``offset``, ``fields`` (comma list of known paper fields, 400
  ``Unrecognized or unsupported fields``), ``publicationDateOrYear`` (``:YYYY[-MM[-DD]]`` on or
  before, ``YYYY[-MM[-DD]]:`` on or after, ``-YYYY`` up to that year; a paper without a date is
  judged by its year, one with neither never matches a range). Answers ``{total, offset, next,
  data}``, papers with ``paperId`` plus the fields asked for; relevance is the number of query
  words in the title and abstract, papers without any left out.
- ``GET /paper/{id}``: a paperId or ``CorpusId:N``; 404 ``Paper with id … not found``.
- ``GET /snippet/search``: ``query`` required, ``limit`` 1 to 1000, ``publicationDateOrYear``;
  answers ``{data, retrievalVersion}``, each entry ``{score, snippet: {text, snippetKind},
  paper: {corpusId (a string), title, authors (names)}}``, the abstract as the snippet, ranked
  like the paper search.
- ``POST /paper/batch``: ``fields`` (``authors.name`` too), body ``{"ids": [...]}`` (1 to 500,
  400 otherwise); answers one entry per id in order, ``null`` for an unknown id.

``api_key``: when set, a request without that ``x-api-key`` gets 403 ``Forbidden``.
``requests_per_second``: a request sooner than allowed after the last one gets 429 ``Too Many
Requests``. ``fail_next``: statuses to answer the next requests with (e.g. ``[500]``), first
first. Every request is recorded as (path, query parameters, status) in ``server.requests``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

PAPERS = Path(__file__).parent / "fixtures" / "s2_papers.yaml"
SUBFIELDS = {"authors.name": "authors"}
PAPER_FIELDS = {
    "paperId",
    "corpusId",
    "externalIds",
    "url",
    "title",
    "abstract",
    "venue",
    "year",
    "publicationDate",
    "citationCount",
    "authors",
    "fieldsOfStudy",
}
TOO_MANY = (
    "Too Many Requests. Please wait and try again or apply for a key for higher rate limits. "
    "https://www.semanticscholar.org/product/api#api-key-form"
)


class LoopbackS2(ThreadingHTTPServer):
    """Serves ``papers`` until the ``with`` block ends (or ``shutdown``)."""

    daemon_threads = True

    def __init__(
        self,
        papers: list[dict] | None = None,
        api_key: str | None = "s2-test-key",
        requests_per_second: float = 1.0,
    ):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.papers = papers if papers is not None else yaml.safe_load(PAPERS.read_text())
        self.api_key = api_key
        self.requests_per_second = requests_per_second
        self.fail_next: list[int] = []
        self.requests: list[tuple[str, dict, int]] = []
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/graph/v1"
        self._lock = threading.Lock()
        self._last_at = -float("inf")

    def __enter__(self) -> LoopbackS2:
        threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()

    def searches(self) -> list[str]:
        """The queries of the searches answered with 200."""
        return [
            params["query"]
            for path, params, status in self.requests
            if path.endswith("/paper/search") and status == 200
        ]

    def admit(self, key: str | None) -> tuple[int, dict] | None:
        """The error answer for a request with this key at this moment, or None."""
        with self._lock:
            if self.fail_next:
                return self.fail_next.pop(0), {"message": "Internal Server Error"}
            if self.api_key and key != self.api_key:
                return 403, {"message": "Forbidden"}
            now = time.monotonic()
            if now - self._last_at < 1.0 / self.requests_per_second:
                return 429, {"message": TOO_MANY, "code": "429"}
            self._last_at = now
        return None


def _in_range(paper: dict, selector: str) -> bool:
    """Whether a paper falls in a ``publicationDateOrYear`` range."""
    date = paper.get("publicationDate") or (str(paper["year"]) if paper.get("year") else "")
    if not date:
        return False
    if selector.startswith("-"):
        selector = ":" + selector[1:]
    start, _, end = selector.partition(":") if ":" in selector else (selector, "", selector)
    # Compare as far as each bound is given: "2025-03" covers every day of March.
    if start and date[: len(start)] < start[: len(date)]:
        return False
    return not end or date[: len(end)] <= end[: len(date)]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackS2

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.do_GET(json.loads(self.rfile.read(length) or b"{}"))

    def do_GET(self, sent: dict | None = None) -> None:
        url = urlsplit(self.path)
        params = {key: values[-1] for key, values in parse_qs(url.query).items()}
        status, body = self.server.admit(self.headers.get("x-api-key")) or self._answer(
            unquote(url.path), params, sent
        )
        self.server.requests.append((url.path, params, status))
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _answer(self, path: str, params: dict, sent: dict | None) -> tuple[int, dict]:
        fields = [f for f in params.get("fields", "").split(",") if f]
        unknown = [f for f in fields if f not in PAPER_FIELDS | SUBFIELDS.keys()]
        if unknown:
            return 400, {"error": f"Unrecognized or unsupported fields: {unknown}"}
        if path == "/graph/v1/snippet/search":
            return self._snippets(params)
        if sent is not None:
            if path != "/graph/v1/paper/batch":
                return 404, {"error": "Not found"}
            return self._batch(sent.get("ids") or [], fields)
        if path == "/graph/v1/paper/search":
            return self._search(params, fields)
        if path.startswith("/graph/v1/paper/"):
            paper_id = path.removeprefix("/graph/v1/paper/")
            for paper in self.server.papers:
                if paper_id in (paper["paperId"], f"CorpusId:{paper['corpusId']}"):
                    return 200, self._shape(paper, fields)
            return 404, {"error": f"Paper with id {paper_id} not found"}
        return 404, {"error": "Not found"}

    def _search(self, params: dict, fields: list[str]) -> tuple[int, dict]:
        if not params.get("query"):
            return 400, {"error": "Missing required parameter: 'query'"}
        limit, offset = int(params.get("limit", 100)), int(params.get("offset", 0))
        if not 1 <= limit <= 100:
            return 400, {"error": "Requested limit must be between 1 and 100"}
        ranked = self._ranked(params["query"], params.get("publicationDateOrYear"))
        page = ranked[offset : offset + limit]
        body = {"total": len(ranked), "offset": offset}
        if offset + limit < len(ranked):
            body["next"] = offset + limit
        body["data"] = [self._shape(p, fields) for p in page]
        return 200, body

    def _ranked(self, query: str, selector: str | None) -> list[dict]:
        words = _words(query)
        scored = [
            (len(words & _words(f"{p['title']} {p.get('abstract') or ''}")), index, p)
            for index, p in enumerate(self.server.papers)
            if not selector or _in_range(p, selector)
        ]
        return [p for score, _, p in sorted(scored, key=lambda s: (-s[0], s[1])) if score]

    def _snippets(self, params: dict) -> tuple[int, dict]:
        if not params.get("query"):
            return 400, {"error": "Missing required parameter: 'query'"}
        limit = int(params.get("limit", 10))
        if not 1 <= limit <= 1000:
            return 400, {"error": "Requested limit must be between 1 and 1000"}
        ranked = self._ranked(params["query"], params.get("publicationDateOrYear"))[:limit]
        data = [
            {
                "score": 1.0 / (rank + 1),
                "snippet": {"text": paper.get("abstract") or "", "snippetKind": "abstract"},
                "paper": {
                    "corpusId": str(paper["corpusId"]),
                    "title": paper["title"],
                    "authors": [a["name"] for a in paper.get("authors") or []],
                },
            }
            for rank, paper in enumerate(ranked)
        ]
        return 200, {"data": data, "retrievalVersion": "loopback"}

    def _batch(self, ids: list, fields: list[str]) -> tuple[int, dict]:
        if not 1 <= len(ids) <= 500:
            return 400, {"error": "Number of ids must be between 1 and 500"}
        known = {}
        for paper in self.server.papers:
            known[paper["paperId"]] = known[f"CorpusId:{paper['corpusId']}"] = paper
        return 200, [self._shape(known[i], fields) if i in known else None for i in ids]

    @staticmethod
    def _shape(paper: dict, fields: list[str]) -> dict:
        shaped = {"paperId": paper["paperId"]}
        for field in fields:
            if field == "authors.name":
                shaped["authors"] = [{"name": a["name"]} for a in paper.get("authors") or []]
            else:
                shaped[field] = paper.get(field)
        return shaped
