"""A loopback stand-in for the Hugging Face hub: what ``huggingface_hub.snapshot_download`` calls.

Endpoints on 127.0.0.1 (``HF_ENDPOINT`` points the client at it), as huggingface_hub 2.x calls
them (hf_api.py, file_download.py, utils/_http.py):

- ``GET /api/models/{repo}/revision/{revision}``: the repository's info; ``sha`` is the commit a
  branch resolves to (``HfApi.model_info``, ``repo_info``).
- ``GET /api/models/{repo}/tree/{revision}?recursive=...``: every file with its size and blob id
  (``HfApi.list_repo_tree``; one page, no ``Link`` header).
- ``HEAD`` and ``GET /{repo}/resolve/{revision}/{path}``: a file, with the headers the client
  requires: ``X-Repo-Commit`` (the commit) and ``ETag`` (the blob's name in the cache), and
  ``Content-Length``.

A gated repository answers every request with 403 and ``X-Error-Code: GatedRepo`` (the hub's
answer to a token without access); an unknown revision 404 ``RevisionNotFound``, an unknown file
404 ``EntryNotFound``. Every request is recorded as (method, path) in ``hub.requests``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


class Repository:
    """One model repository: its commits (commit -> {path: bytes}) and its main branch."""

    def __init__(self, commits: dict[str, dict[str, bytes]], main: str, gated: bool = False):
        self.commits, self.main, self.gated = commits, main, gated

    def commit(self, revision: str) -> str | None:
        """The commit a revision names (main or a commit of the repository)."""
        commit = self.main if revision == "main" else revision
        return commit if commit in self.commits else None


class LoopbackHub(ThreadingHTTPServer):
    """Serves ``repositories`` (repo id -> Repository) until the ``with`` block ends."""

    daemon_threads = True

    def __init__(self, repositories: dict[str, Repository]):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.repositories = repositories
        self.requests: list[tuple[str, str]] = []
        self.endpoint = f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> LoopbackHub:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()

    def file_requests(self) -> list[str]:
        """The paths of the files sent (GET on /resolve/)."""
        return [path for method, path in self.requests if method == "GET" and "/resolve/" in path]


def _blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackHub

    def log_message(self, *args) -> None:
        pass

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        self.server.requests.append((self.command, path))
        parts = path.strip("/").split("/")
        api = parts[:2] == ["api", "models"]
        repo_id = "/".join(parts[2:4] if api else parts[:2])
        repository = self.server.repositories.get(repo_id)
        if repository is None:
            return self._error(404, "RepoNotFound", f"Repository {repo_id} not found", body)
        if repository.gated:
            message = (
                f"Access to model {repo_id} is restricted and you are not in the authorized "
                "list. Visit the model page to ask for access."
            )
            return self._error(403, "GatedRepo", message, body)
        # /api/models/{org}/{name}/{kind}/{revision}, or /{org}/{name}/resolve/{revision}/{file}
        kind, revision = (parts[4], parts[5]) if api else (parts[2], parts[3])
        rest = "/".join(parts[4:]) if not api else ""
        commit = repository.commit(revision)
        if commit is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}", body)
        files = repository.commits[commit]
        if api and kind == "revision":
            info = {
                "id": repo_id,
                "sha": commit,
                "private": False,
                "gated": False,
                "siblings": [{"rfilename": name} for name in files],
            }
            return self._json(info, body)
        if api and kind == "tree":
            tree = [
                {"type": "file", "path": name, "size": len(data), "oid": _blob_id(data)}
                for name, data in files.items()
            ]
            return self._json(tree, body)
        if not api and kind == "resolve" and rest in files:
            data = files[rest]
            headers = {
                "X-Repo-Commit": commit,
                "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                "Content-Type": "application/octet-stream",
            }
            return self._send(200, headers, data, body)
        return self._error(404, "EntryNotFound", f"{path} does not exist", body)

    def _json(self, value, body: bool) -> None:
        data = json.dumps(value).encode()
        self._send(200, {"Content-Type": "application/json"}, data, body)

    def _error(self, status: int, code: str, message: str, body: bool) -> None:
        data = json.dumps({"error": message}).encode()
        headers = {"X-Error-Code": code, "X-Error-Message": message}
        self._send(status, {**headers, "Content-Type": "application/json"}, data, body)

    def _send(self, status: int, headers: dict[str, str], data: bytes, body: bool) -> None:
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(data))}.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)
