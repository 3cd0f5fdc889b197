"""The agent server behind the page's ``fetch``: a request from JavaScript answered over a channel.

``serveAgentServer`` (``pyctx_web/js/agentfetch.mjs``) calls :func:`open_exchange`
once for each request that ``createAgentServerFetch`` sends it, with a ``post``
function that forwards to that request's ``MessagePort``. The
:class:`Exchange` drives the server's ASGI application (:mod:`.asgi`) as an
HTTP server would: the request's body in one message, then
``http.disconnect`` once the page's fetch is aborted
(:meth:`Exchange.disconnect`). So a streamed body is cancelled exactly as when
an HTTP client leaves, and a run's ``on_disconnect`` decides what becomes of it.

``post`` is called with, in this order:

- ``("head", status, headers)``, ``headers`` a JSON array of ``[name, value]``;
- ``("text", text)`` for each part of the body that is UTF-8 (every part of a JSON or
  event-stream body), as ``str``: handing JavaScript a string costs a fraction of
  reading a ``bytes`` object's buffer; ``("chunk", data)`` (``bytes``) for any other part.
  Neither is ever empty;
- ``("end",)`` once the body is complete, or ``("error", message)`` when the
  server failed before or after the head. Nothing follows either.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Protocol
from urllib.parse import unquote

from pyctx_web.server.app import AgentServer
from pyctx_web.server.asgi import Message, Scope, asgi_app

__all__ = ["Exchange", "Post", "open_exchange"]

_log = logging.getLogger(__name__)


class Post(Protocol):
    """Where an exchange sends its answer: ``post(kind, *args)`` (see the module's docstring)."""

    def __call__(self, kind: str, *args: Any) -> object: ...


class Exchange:
    """One request being answered: the server's ASGI application run as an HTTP server runs it."""

    def __init__(self, server: AgentServer, scope: Scope, body: bytes, post: Post) -> None:
        self._body: bytes | None = body
        self._post = post
        self._left = asyncio.Event()
        self._started = False
        self._ended = False
        self.task = asyncio.ensure_future(self._run(server, scope))
        """The task answering the request: done once ``end`` or ``error`` was posted."""

    def disconnect(self) -> None:
        """The page aborted the request: the application receives ``http.disconnect``.

        As on an HTTP server, this cancels the iteration of a streamed body (at the
        ``await`` it was at) and closes it; a body already sent is unaffected.
        """
        self._left.set()

    async def _receive(self) -> Message:
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self._left.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self._started = True
            headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in message["headers"]]
            self._post("head", message["status"], json.dumps(headers))
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            if chunk:
                self._post_part(chunk)
            if not message.get("more_body", False):
                self._ended = True
                self._post("end")

    def _post_part(self, chunk: bytes) -> None:
        try:
            text = chunk.decode()
        except UnicodeDecodeError:
            self._post("chunk", chunk)
        else:
            self._post("text", text)

    async def _run(self, server: AgentServer, scope: Scope) -> None:
        try:
            await asgi_app(server)(scope, self._receive, self._send)
        except Exception as error:
            # The page's fetch rejects (or its body errors) with this message; the
            # traceback is the worker's to log.
            _log.exception("%s %s failed for the page's fetch", scope["method"], scope["path"])
            self._post("error", f"{type(error).__name__}: {error}")
            return
        if not self._ended:
            where = "after its head" if self._started else "before answering"
            self._post("error", f"the agent server stopped {where}")


def open_exchange(
    server: AgentServer,
    method: str,
    path: str,
    query: str,
    headers: str,
    body: Any,
    post: Post,
) -> Exchange:
    """Start answering one request of the page's fetch; the answer goes to ``post``.

    ``path`` and ``query`` are the URL's, percent-encoded (``query`` without its
    ``?``); ``headers`` is a JSON array of ``[name, value]``; ``body`` is bytes or
    a JavaScript ``Uint8Array`` (anything with ``to_bytes()``).
    """
    pairs = json.loads(headers)
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "scheme": "http",
        "method": method.upper(),
        "path": unquote(path),
        "raw_path": path.encode("latin-1"),
        "root_path": "",
        "query_string": query.encode("latin-1"),
        "headers": [(str(k).lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in pairs],
        "client": None,
        "server": None,
    }
    data = body if isinstance(body, bytes) else bytes(body.to_bytes())
    return Exchange(server, scope, data, post)
