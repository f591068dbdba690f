"""A loopback stand-in for the OpenReview API v2 routes that the construction uses.

``POST /login`` (``{id, password, expiresIn}``) answers ``{token, user: {profile: {id}}}`` for the
configured account and a 400 otherwise. ``GET /notes`` filters the served notes by every
``content.<field>`` parameter (the field's ``value``), sorts them by ``sort`` (only ``id``),
starts after the note ``after``, returns at most ``limit`` (1 to 1000) notes, adds ``count``
when ``count=true`` and each note's ``details.replies`` only with ``details=replies``. Any other
parameter, or a request without the bearer token once logged in, is a 400 (the API's
``ValidationError`` shape: ``{name, message}``). Requests are recorded in ``server.requests``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

TOKEN = "loopback-token"
NOTE_PARAMS = {"details", "sort", "limit", "after", "count", "offset"}
MAX_LIMIT = 1000


class LoopbackOpenReview:
    """Serve ``notes`` (API JSON, with ``details.replies``) on 127.0.0.1 for one account."""

    def __init__(self, notes: list[dict], username: str = "~Loop_Back1", password: str = "pw"):
        self.notes = sorted(notes, key=lambda note: note["id"])
        self.account = (username, password)
        self.requests: list[tuple[str, dict]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> LoopbackOpenReview:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def notes_page(self, query: dict[str, str]) -> tuple[int, dict]:
        unknown = [k for k in query if k not in NOTE_PARAMS and not k.startswith("content.")]
        if unknown:
            return 400, _error(f"unknown query parameters {unknown}")
        if query.get("sort", "id") != "id":
            return 400, _error("this stand-in sorts by id only")
        if query.get("details") not in (None, "replies"):
            return 400, _error("details: only 'replies' is served")
        limit = int(query.get("limit", MAX_LIMIT))
        if not 1 <= limit <= MAX_LIMIT:
            return 400, _error(f"limit must be 1 to {MAX_LIMIT}")
        wanted = {
            k.removeprefix("content."): v for k, v in query.items() if k.startswith("content.")
        }
        found = [
            note
            for note in self.notes
            if all(
                str(note.get("content", {}).get(field, {}).get("value")) == value
                for field, value in wanted.items()
            )
        ]
        total = len(found)
        if "after" in query:
            found = [note for note in found if note["id"] > query["after"]]
        found = found[int(query.get("offset", 0)) :][:limit]
        if query.get("details") != "replies":
            found = [{k: v for k, v in note.items() if k != "details"} for note in found]
        answer = {"notes": found}
        if query.get("count") == "true":
            answer["count"] = total
        return 200, answer


def _error(message: str) -> dict:
    return {"name": "ValidationError", "message": message}


def _handler(api: LoopbackOpenReview):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def _reply(self, status: int, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
            api.requests.append((self.path, body))
            if urlparse(self.path).path != "/login":
                return self._reply(404, _error(f"no route POST {self.path}"))
            if (body.get("id"), body.get("password")) != api.account:
                return self._reply(400, _error("Invalid username or password"))
            self._reply(
                200, {"token": TOKEN, "user": {"id": body["id"], "profile": {"id": body["id"]}}}
            )

        def do_GET(self) -> None:
            parsed = urlparse(self.path)
            query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
            api.requests.append((parsed.path, query))
            if parsed.path != "/notes":
                return self._reply(404, _error(f"no route GET {parsed.path}"))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self._reply(403, {"name": "ForbiddenError", "message": "log in first"})
            self._reply(*api.notes_page(query))

    return Handler
