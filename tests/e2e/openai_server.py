"""A scripted OpenAI-compatible chat completions server on loopback, for the e2e and Pyodide tests.

Each ``POST /v1/chat/completions`` takes the next response of the script:
a :class:`Stream` of raw event-stream text pieces (so a test can send CR,
CRLF, comments or split lines) with :class:`Pause` between them, a
:class:`JSONResponse` (a plain completion, or an error status with headers
such as ``Retry-After``, sent at once or after a ``delay``) or a :class:`Stall` that sends
nothing at all.
:func:`text_reply`, :func:`tool_call_reply` and :func:`error_reply` build the usual ones;
:func:`huge_text_reply` and :func:`comments_only` the abusive ones. The server records every
request, and for every scripted response whether the client closed the connection before it was all
sent. It sends CORS headers (the preflight too, since a browser asks before sending an
``Authorization`` header) and exposes ``Retry-After`` to the page.
"""

from __future__ import annotations

import http.server
import json
import select
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "JSONResponse",
    "OpenAIServer",
    "Pause",
    "Recorded",
    "Served",
    "Stall",
    "Stream",
    "comments_only",
    "completion",
    "error_reply",
    "huge_text_reply",
    "sse",
    "text_reply",
    "tool_call_reply",
]

COMPLETIONS_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Pause:
    """Inside a :class:`Stream`: send nothing for ``seconds`` (less if the client goes away)."""

    seconds: float


@dataclass(frozen=True)
class Stream:
    """An event-stream answer: each piece is written (and flushed) as it comes; ``bytes`` as
    they are (a compressed body, say), text as UTF-8."""

    pieces: Sequence[str | bytes | Pause]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"


@dataclass(frozen=True)
class JSONResponse:
    """One JSON body with a status and headers."""

    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to send nothing first, not even the status line (less if the client goes away)."""


@dataclass(frozen=True)
class Stall:
    """Send nothing, not even a status line, for ``seconds``; then close the connection."""

    seconds: float


Response = Stream | JSONResponse | Stall


@dataclass
class Recorded:
    """One request the server got."""

    method: str
    path: str
    headers: dict[str, str]
    body: str
    at: float
    """``time.monotonic()`` when the request's body had been read."""

    @property
    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


@dataclass
class Served:
    """What became of one scripted response."""

    response: Response
    request: Recorded
    closed_early: bool = False
    """Whether the client closed the connection before the response was all sent."""
    finished: threading.Event = field(default_factory=threading.Event)


def sse(*events: Any) -> list[str]:
    """``data: <JSON>`` events, each ended by a blank line (text is sent as it is)."""
    return [f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events]


def _chunk(delta: dict[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def text_reply(*pieces: str, finish: str = "stop") -> Stream:
    """A streamed text answer, one chunk per piece, then the finish reason and ``[DONE]``."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": piece}) for piece in pieces]
    return Stream(sse(*chunks, _chunk({}, finish), "[DONE]"))


def tool_call_reply(
    name: str,
    arguments: dict[str, Any],
    *more: tuple[str, dict[str, Any]],
    fragments: int = 3,
    content: str = "",
) -> Stream:
    """A streamed answer calling ``name`` (and each ``(name, arguments)`` of ``more``).

    Each call's id and name come in its first fragment; its JSON arguments follow
    in ``fragments`` pieces, the calls' pieces interleaved, each naming its index.
    """
    chunks = [_chunk({"role": "assistant", "content": content or None})]
    calls = [(name, arguments), *more]
    texts = [json.dumps(args) for _, args in calls]
    for index, (call_name, _) in enumerate(calls):
        first = {
            "index": index,
            "id": f"call_{index + 1}",
            "type": "function",
            "function": {"name": call_name, "arguments": ""},
        }
        chunks.append(_chunk({"tool_calls": [first]}))
    for step in range(fragments):
        for index, text in enumerate(texts):
            size = -(-len(text) // fragments)
            piece = text[step * size : (step + 1) * size]
            if piece:
                fragment = {"index": index, "function": {"arguments": piece}}
                chunks.append(_chunk({"tool_calls": [fragment]}))
    return Stream(sse(*chunks, _chunk({}, "tool_calls"), "[DONE]"))


def huge_text_reply(
    total_chars: int = 10_000_000, piece_chars: int = 100, *, end: bool = True
) -> Stream:
    """A streamed text answer of ``total_chars`` characters in pieces of ``piece_chars``, sent as
    fast as the connection takes it; without ``end``, the stream then stalls (no finish, no
    ``[DONE]``) until the client goes away."""
    piece = ("All work and no play. " * (piece_chars // 22 + 1))[:piece_chars]
    line = f"data: {json.dumps(_chunk({'content': piece}))}\n\n"
    # Many events per write: what a fast server's TCP segments carry.
    batch = line * max(1, 64_000 // len(line))
    count = -(-total_chars // piece_chars)
    per_batch = max(1, 64_000 // len(line))
    pieces: list[str | Pause] = [batch] * (count // per_batch)
    pieces.append(line * (count % per_batch))
    if end:
        pieces += sse(_chunk({}, "stop"), "[DONE]")
    else:
        pieces.append(Pause(3600))
    return Stream(pieces)


def comments_only(seconds: float, every: float = 0.05) -> Stream:
    """An event stream of only ``: keep-alive`` comments, one every ``every`` s for ``seconds``."""
    pieces: list[str | Pause] = []
    for _ in range(max(1, round(seconds / every))):
        pieces += [": keep-alive\n\n", Pause(every)]
    return Stream(pieces)


def completion(content: str | None = "", tool_calls: Sequence[dict[str, Any]] = ()) -> JSONResponse:
    """A plain (not streamed) ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return JSONResponse({"id": "chatcmpl-1", "object": "chat.completion", "choices": [choice]})


def error_reply(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """An error status with OpenAI's ``{"error": {"message", "type"}}`` body."""
    body = {"error": {"message": message, "type": "scripted_error", "code": None}}
    return JSONResponse(body, status, dict(headers or {}))


def _peer_closed(connection: socket.socket) -> bool:
    """Whether the client has closed its end (it sends nothing else while awaiting the answer)."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class OpenAIServer:
    """The server; :meth:`start` binds a free port of 127.0.0.1 and serves in threads."""

    def __init__(self, *responses: Response, host: str = "127.0.0.1") -> None:
        self.host = host
        """The loopback address to listen on (127.0.0.2 is another origin than 127.0.0.1)."""
        self._lock = threading.Lock()
        self._script: list[Response] = list(responses)
        self.requests: list[Recorded] = []
        """Every request, preflights included, in order."""
        self.served: list[Served] = []
        """Every scripted response given, in order."""
        self._stopping = threading.Event()
        self._server: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The API root to configure, such as ``http://127.0.0.1:PORT/v1``."""
        assert self._server is not None, "start() the server first"
        return f"http://{self.host}:{self._server.server_address[1]}/v1"

    def script(self, *responses: Response) -> None:
        """Answer the next requests with ``responses``, forgetting what was recorded."""
        with self._lock:
            self._script = list(responses)
            self.requests.clear()
            self.served.clear()

    def completions(self) -> list[Recorded]:
        """The POST requests to the chat completions endpoint."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def wait_served(self, count: int, timeout: float = 15) -> list[Served]:
        """The first ``count`` scripted responses, once each is finished (sent or cut short)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                served = list(self.served[:count])
            if len(served) == count:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(served)} of {count} scripted responses were asked for")
            time.sleep(0.02)
        for item in served:
            if not item.finished.wait(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"the response to {item.request.path} did not finish")
        return served

    def take(self, request: Recorded) -> Served | None:
        """Record a POST; the scripted response it gets, ``None`` for another path."""
        with self._lock:
            self.requests.append(request)
            if request.method != "POST" or request.path.split("?", 1)[0] != COMPLETIONS_PATH:
                return None
            response: Response = (
                self._script.pop(0)
                if self._script
                else error_reply(500, "openai_server: the script has no response left")
            )
            served = Served(response, request)
            self.served.append(served)
            return served

    def record(self, method: str, path: str, headers: dict[str, str], body: str) -> None:
        """Record a request that takes no scripted response."""
        with self._lock:
            self.requests.append(Recorded(method, path, headers, body, time.monotonic()))

    def start(self) -> OpenAIServer:
        """Bind and serve; returns the server."""
        self._server = _HTTPServer(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pauses and stalls still running end at once."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait(self, seconds: float, connection: socket.socket) -> bool:
        """Sleep ``seconds``; ``False`` (at once) when the client closes or the server stops."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._stopping.is_set() or _peer_closed(connection):
                return False
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
        return not _peer_closed(connection)


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers as the script of its server's :class:`OpenAIServer` says."""

    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type")
        self.send_header("Access-Control-Expose-Headers", "Retry-After")
        self.send_header("Access-Control-Max-Age", "600")

    def do_OPTIONS(self) -> None:
        self.server.scripted.record("OPTIONS", self.path, dict(self.headers.items()), "")
        self.send_response(204)
        self._cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        request = Recorded("POST", self.path, dict(self.headers.items()), body, time.monotonic())
        served = self.server.scripted.take(request)
        if served is None:
            self._json(error_reply(404, f"Unknown path {self.path}"))
            return
        try:
            self._answer(served)
        except (BrokenPipeError, ConnectionResetError):
            served.closed_early = True
            self.close_connection = True
        finally:
            served.finished.set()

    def _answer(self, served: Served) -> None:
        response = served.response
        if isinstance(response, Stall):
            served.closed_early = not self.server.scripted.wait(response.seconds, self.connection)
            self.close_connection = True
        elif isinstance(response, JSONResponse):
            if response.delay and not self.server.scripted.wait(response.delay, self.connection):
                served.closed_early = self.close_connection = True
                return
            self._json(response)
        else:
            served.closed_early = not self._stream(response)

    def _json(self, response: JSONResponse) -> None:
        data = json.dumps(response.body).encode()
        self.send_response(response.status)
        self._cors()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, response: Stream) -> bool:
        """Send the pieces in HTTP chunks; ``False`` if the client went away first."""
        self.send_response(response.status)
        self._cors()
        self.send_header("Content-Type", response.content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for piece in response.pieces:
            if isinstance(piece, Pause):
                if not self.server.scripted.wait(piece.seconds, self.connection):
                    self.close_connection = True
                    return False
            elif piece:
                data = piece if isinstance(piece, bytes) else piece.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")
        return True

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, scripted: OpenAIServer) -> None:
        self.scripted = scripted
        super().__init__((scripted.host, 0), _Handler)
