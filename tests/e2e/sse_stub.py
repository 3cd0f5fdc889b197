"""A stand-in for an OpenAI-compatible chat completions API that streams server-sent events.

It listens on 127.0.0.1, answers ``POST /v1/chat/completions`` with a
``text/event-stream`` of ``data: {"choices":[{"delta":{"content": ...}}]}``
chunks and ``data: [DONE]``, sends CORS headers (the preflight included, since
the browser asks before sending an ``Authorization`` header) and records every
request it gets.
"""

from __future__ import annotations

import http.server
import json
import threading
from dataclasses import dataclass, field
from typing import Any

DEFAULT_CHUNKS = ("Sure", ": I will ", "send daily reports", " every morning.")


@dataclass
class Recorded:
    """One request the stub got."""

    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class SSEStub:
    """The stub server; ``start`` binds a free port of 127.0.0.1 and serves in a thread."""

    chunks: tuple[str, ...] = DEFAULT_CHUNKS
    requests: list[Recorded] = field(default_factory=list)
    _server: http.server.ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The API root to configure, such as ``http://127.0.0.1:PORT/v1``."""
        assert self._server is not None, "start() the stub first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> SSEStub:
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _record(self, body: str = "") -> None:
                stub.requests.append(
                    Recorded(self.command, self.path, dict(self.headers.items()), body)
                )

            def _cors(self) -> None:
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
                self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type")
                self.send_header("Access-Control-Max-Age", "600")

            def do_OPTIONS(self) -> None:
                self._record()
                self.send_response(204)
                self._cors()
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace")
                self._record(body)
                if self.path.split("?", 1)[0] != "/v1/chat/completions":
                    self.send_response(404)
                    self._cors()
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                events = [
                    json.dumps({"choices": [{"index": 0, "delta": {"content": chunk}}]})
                    for chunk in stub.chunks
                ]
                parts = [f"data: {event}\n\n".encode() for event in [*events, "[DONE]"]]
                self.send_response(200)
                self._cors()
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(sum(map(len, parts))))
                self.end_headers()
                for part in parts:  # one event per write, as a streaming API sends them
                    self.wfile.write(part)
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def completions(self) -> list[Recorded]:
        """The POST requests to the chat completions endpoint."""
        return [r for r in self.requests if r.method == "POST"]
