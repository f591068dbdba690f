"""Semantic Scholar's Academic Graph API (v1): paper search and paper details, paced, retried and
cached.

Requests follow the API's documentation (api.semanticscholar.org/api-docs/graph): ``GET
/paper/search`` (``query``, ``limit`` up to 100, ``fields``, optional ``publicationDateOrYear``)
``GET /paper/{paper_id}`` (``fields``), ``GET /snippet/search`` (``query``, ``limit``, optional
``publicationDateOrYear``) and ``POST /paper/batch`` (``fields``; body ``{"ids": [...]}``, at most
500), the key in the ``x-api-key`` header. A key allows one
request per second; 429 (rate limited) and 5xx answers are retried with exponential backoff.

Every answer is cached in ``cache_dir``, one JSON file per request named by the request's hash,
written as it arrives: a rerun asks the API nothing it has already answered. Processes sharing
the folder share the pace (a locked file holds when the next request may leave).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import threading
import time
from pathlib import Path

import requests
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

log = logging.getLogger(__name__)

API_KEY_ENV = "S2_API_KEY"
DEFAULT_BASE_URL = "https://api.semanticscholar.org/graph/v1"
# The fields the judge study's S2 client asks for (baselines/_shared/s2_client.py).
CLIENT_FIELDS = [
    "title",
    "authors",
    "abstract",
    "paperId",
    "corpusId",
    "year",
    "venue",
    "citationCount",
    "publicationDate",
    "externalIds",
]
MAX_SEARCH_LIMIT = 100
MAX_BATCH_IDS = 500
MAX_QUERY_CHARS = 256
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
PACE_FILE = ".next_request_at"  # in the cache folder: when the next request may leave


class SemanticScholarError(RuntimeError):
    """An answer the API will not change on retry (a bad key, a malformed request)."""


class _Retryable(Exception):
    """A 429 or 5xx answer, or a connection failure: worth another try."""


def api_key_from_environment() -> str | None:
    """The key the authors' client reads (``S2_API_KEY``), or None when unset."""
    return os.environ.get(API_KEY_ENV) or None


# The rules whose jobs search Semantic Scholar: the retrieval change's related work and the two
# dedicated judges that search while they judge.
SEARCHING_RULES = {"judges_related", "judges_ai_scientist", "judges_novelty_checker"}


def require_api_key(settings: dict, searching: list[str]) -> None:
    """Fail when ``searching`` (what will search: rule names, or a job's name) needs the key and
    it is unset, unless ``settings['anonymous']`` (literature.semantic_scholar.anonymous) allows
    the shared unauthenticated pool."""
    if not searching or api_key_from_environment():
        return
    if settings.get("anonymous"):
        log.warning(
            "%s is not set: %s search Semantic Scholar unauthenticated, in the shared pool that "
            "the API throttles hard (literature.semantic_scholar.anonymous)",
            API_KEY_ENV,
            ", ".join(searching),
        )
        return
    raise SemanticScholarError(
        f"missing API key environment variable: {API_KEY_ENV} (Semantic Scholar, searched by "
        f"{', '.join(searching)}); set it, or set literature.semantic_scholar.anonymous: true "
        "to search unauthenticated (a shared pool that the API throttles hard)"
    )


def require_api_key_for(jobs, settings: dict) -> None:
    """The check before a run's first job: its pending jobs that search need the key."""
    require_api_key(settings, sorted({job.rule.name for job in jobs} & SEARCHING_RULES))


def clean_query(query: str) -> str:
    """Whitespace collapsed, unprintable characters dropped, at most 256 characters: the search
    endpoint answers 400 to longer or unprintable queries."""
    collapsed = " ".join(query.split())
    return "".join(ch for ch in collapsed if ch.isprintable())[:MAX_QUERY_CHARS]


class SemanticScholar:
    """A client for one API endpoint, pacing its requests to ``requests_per_second``."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        cache_dir: Path,
        requests_per_second: float,
        *,
        attempts: int = 6,
        backoff_s: float = 1.0,
        timeout_s: float = 60.0,
    ):
        if requests_per_second <= 0:
            raise ValueError("requests_per_second must be positive")
        self.base_url = base_url.rstrip("/")
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.min_interval_s = 1.0 / requests_per_second
        self.timeout_s = timeout_s
        self.requests_made = 0
        self.requests_cached = 0
        self._session = requests.Session()
        if api_key:
            self._session.headers["x-api-key"] = api_key
        self._lock = threading.Lock()
        self._get = retry(
            retry=retry_if_exception(lambda error: isinstance(error, _Retryable)),
            wait=wait_exponential(multiplier=backoff_s, max=64 * backoff_s),
            stop=stop_after_attempt(attempts),
            reraise=True,
        )(self._get_once)

    def search(
        self,
        query: str,
        limit: int,
        fields: list[str],
        publication_date_or_year: str | None = None,
    ) -> list[dict]:
        """Relevance search: up to ``limit`` papers (at most 100) with ``fields``; an empty list
        when the cleaned query is empty. ``publication_date_or_year`` is the API's range filter
        (``:2025-03-01`` = on or before that day)."""
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise ValueError(f"search limit {limit} is outside 1..{MAX_SEARCH_LIMIT}")
        cleaned = clean_query(query)
        if not cleaned:
            return []
        params = {"query": cleaned, "limit": limit, "fields": ",".join(fields)}
        if publication_date_or_year:
            params["publicationDateOrYear"] = publication_date_or_year
        return self._cached("/paper/search", params).get("data") or []

    def paper(self, paper_id: str, fields: list[str]) -> dict:
        """One paper's ``fields`` by any id the API takes (``paperId``, ``CorpusId:…``,
        ``arXiv:…``); an empty dict when the API does not know it (404)."""
        return self._cached(f"/paper/{paper_id}", {"fields": ",".join(fields)})

    def snippet_search(
        self, query: str, limit: int, publication_date_or_year: str | None = None
    ) -> list[dict]:
        """Snippet search: up to ``limit`` entries ``{score, snippet, paper}`` (the paper with its
        ``corpusId`` and ``title``); an empty list when the cleaned query is empty."""
        cleaned = clean_query(query)
        if not cleaned:
            return []
        params = {"query": cleaned, "limit": limit}
        if publication_date_or_year:
            params["publicationDateOrYear"] = publication_date_or_year
        return self._cached("/snippet/search", params).get("data") or []

    def papers(self, paper_ids: list[str], fields: list[str]) -> list[dict | None]:
        """Many papers' ``fields`` in one request (at most 500 ids), in the order asked; None
        for an id the API does not know."""
        if not 1 <= len(paper_ids) <= MAX_BATCH_IDS:
            raise ValueError(f"{len(paper_ids)} ids in one batch, outside 1..{MAX_BATCH_IDS}")
        return self._cached("/paper/batch", {"fields": ",".join(fields)}, {"ids": paper_ids})

    def counts(self) -> dict[str, int]:
        """Requests sent to the API and requests answered from the cache."""
        return {"requests_made": self.requests_made, "requests_cached": self.requests_cached}

    def _cached(self, path: str, params: dict, body: dict | None = None):
        asked = {"path": path, "params": params, **({"body": body} if body else {})}
        request = json.dumps(asked, sort_keys=True)
        file = self.cache_dir / f"{hashlib.sha256(request.encode()).hexdigest()}.json"
        if file.exists():
            self.requests_cached += 1
            return json.loads(file.read_text(encoding="utf-8"))["answer"]
        try:
            answer = self._get(path, params, body)
        except _Retryable as error:
            raise SemanticScholarError(
                f"Semantic Scholar gave no answer to {path} {params}: {error}"
            ) from error
        partial = file.with_suffix(f".{os.getpid()}.part")
        partial.write_text(json.dumps({"request": json.loads(request), "answer": answer}))
        os.replace(partial, file)
        return answer

    def _pace(self) -> None:
        """Wait for this request's slot: one per ``min_interval_s`` across every process that
        shares the cache folder (parallel jobs share one key and one rate limit)."""
        with self._lock, open(self.cache_dir / PACE_FILE, "a+") as pace:
            fcntl.flock(pace, fcntl.LOCK_EX)
            pace.seek(0)
            recorded = pace.read().strip()
            now = time.time()
            wait_s = float(recorded) - now if recorded else 0.0
            if wait_s > 0:
                time.sleep(wait_s)
            pace.seek(0)
            pace.truncate()
            pace.write(str(max(now, now + wait_s) + self.min_interval_s))
            pace.flush()

    def _get_once(self, path: str, params: dict, body: dict | None = None):
        self._pace()
        self.requests_made += 1
        try:
            response = self._session.request(
                "POST" if body else "GET",
                self.base_url + path,
                params=params,
                json=body,
                timeout=self.timeout_s,
            )
        except requests.ConnectionError as error:
            raise _Retryable(str(error)) from error
        if response.status_code in RETRIED_STATUSES:
            raise _Retryable(f"{response.status_code} from {path}")
        if (
            response.status_code == 404
            and path.startswith("/paper/")
            and not path.endswith(("/search", "/batch"))
        ):
            return {}
        if response.status_code != 200:
            raise SemanticScholarError(
                f"Semantic Scholar answered {response.status_code} to {path} "
                f"{params}: {response.text[:300]}"
            )
        return response.json()


def from_settings(settings: dict, cache_dir: Path) -> SemanticScholar:
    """A client from the config's ``literature.semantic_scholar`` settings, with the key from
    the environment."""
    require_api_key(settings, ["this job"])
    return SemanticScholar(
        settings.get("base_url", DEFAULT_BASE_URL),
        api_key_from_environment(),
        cache_dir,
        settings.get("requests_per_second", 1.0),
    )
