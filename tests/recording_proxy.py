"""A loopback reverse proxy that records the request id of every call reaching the model."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests


class RecordingProxy:
    """Forwards ``/v1/...`` to ``upstream`` with the key it demands (``upstream_key``) and records
    each call's ``X-Request-Id``."""

    def __init__(self, upstream: str, upstream_key: str):
        self.upstream = upstream.rstrip("/")
        self.request_ids: list[str] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if method == "POST":
                    proxy.request_ids.append(self.headers.get("X-Request-Id", ""))
                path = self.path.removeprefix("/v1")
                answer = requests.request(
                    method,
                    f"{proxy.upstream}{path}",
                    data=body,
                    headers={
                        "Content-Type": "application/json",
                        "Authorization": f"Bearer {upstream_key}",
                    },
                    timeout=300,
                )
                self.send_response(answer.status_code)
                self.send_header("Content-Type", answer.headers.get("content-type", "text/plain"))
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            def do_GET(self):  # noqa: N802 (http.server's naming)
                self._forward("GET")

            def do_POST(self):  # noqa: N802
                self._forward("POST")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> RecordingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
