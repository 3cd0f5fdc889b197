"""The Python side of the page's fetch (pyctx_web.server._jsfetch), with a Python ``post``.

The JavaScript side (pyctx_web/js/agentfetch.mjs) is tested where it runs, in
tests/pyodide/test_agent_fetch*.py; here the exchange's messages and its disconnect.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from pyctx_web.server import Request, Response
from pyctx_web.server._jsfetch import open_exchange
from pyctx_web.server.app import Route
from tests.unit.server.server_support import make_server


class Posts:
    """What an exchange posted, in order, and an event set once it posted ``end`` or ``error``."""

    def __init__(self) -> None:
        self.items: list[tuple[Any, ...]] = []
        self.done = asyncio.Event()
        self.chunks = asyncio.Event()

    def __call__(self, kind: str, *args: Any) -> None:
        self.items.append((kind, *args))
        if kind in ("text", "chunk"):
            self.chunks.set()
        if kind in ("end", "error"):
            self.done.set()


def _echo_server() -> Any:
    async def echo(server: Any, request: Request, name: str) -> Response:
        seen = {
            "method": request.method,
            "path": request.path,
            "name": name,
            "query": request.query,
            "headers": dict(request.headers),
            "body": request.body.decode(),
        }
        return Response(200, {"content-type": "application/json"}, json.dumps(seen).encode())

    server = make_server()
    server.routes.insert(0, Route("POST", "/echo/{name}", echo))
    return server


def test_a_request_is_answered_with_head_chunk_and_end() -> None:
    """The server gets the decoded path, the query, lower-case headers and the body; the
    answer is posted as its head (headers as JSON pairs, the ASGI adapter's ``vary``
    included), its body (as text: it is UTF-8), then ``end``."""

    async def exchange() -> list[tuple[Any, ...]]:
        posts = Posts()
        headers = json.dumps([["X-Trace", "t1"]])
        open_exchange(_echo_server(), "post", "/echo/a%20b", "x=1&x=2&y=", headers, b"hi", posts)
        await asyncio.wait_for(posts.done.wait(), 10)
        return posts.items

    head, body, end = asyncio.run(exchange())
    pairs = [["content-type", "application/json"], ["vary", "Origin"]]
    assert head == ("head", 200, json.dumps(pairs))
    assert json.loads(body[1]) == {
        "method": "POST",
        "path": "/echo/a b",
        "name": "a b",
        "query": {"x": ["1", "2"], "y": [""]},
        "headers": {"x-trace": "t1"},
        "body": "hi",
    }
    assert (body[0], end) == ("text", ("end",))


def _streaming_server(closed: list[str], fail: bool = False) -> Any:
    async def stream(server: Any, request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            try:
                yield b"first"
                yield b"\xff\xfe"  # not UTF-8
                if fail:
                    raise RuntimeError("the body broke")
                await asyncio.Event().wait()  # a stream that waits for more, forever
            except asyncio.CancelledError:
                closed.append("cancelled")
                raise
            finally:
                closed.append("closed")

        return Response(200, {"content-type": "text/event-stream"}, body())

    server = make_server()
    server.routes.insert(0, Route("GET", "/stream", stream))
    return server


def test_disconnect_cancels_the_streamed_body() -> None:
    """disconnect() cancels the body's iteration at its await and closes it, as an HTTP
    client leaving does; the exchange then posts an error and nothing else. A part that is
    not UTF-8 is posted as bytes."""
    closed: list[str] = []

    async def exchange() -> list[tuple[Any, ...]]:
        posts = Posts()
        opened = open_exchange(_streaming_server(closed), "GET", "/stream", "", "[]", b"", posts)
        await asyncio.wait_for(posts.chunks.wait(), 10)
        opened.disconnect()
        await asyncio.wait_for(opened.task, 10)
        return posts.items

    items = asyncio.run(exchange())
    stopped = ("error", "the agent server stopped after its head")
    assert items[1:] == [("text", "first"), ("chunk", b"\xff\xfe"), stopped]
    assert closed == ["cancelled", "closed"]


def test_a_body_that_raises_posts_an_error() -> None:
    """A streamed body that raises after its head ends the exchange with its error."""
    closed: list[str] = []

    async def exchange() -> list[tuple[Any, ...]]:
        posts = Posts()
        server = _streaming_server(closed, fail=True)
        opened = open_exchange(server, "GET", "/stream", "", "[]", b"", posts)
        await asyncio.wait_for(opened.task, 10)
        return posts.items

    items = asyncio.run(exchange())
    broke = ("error", "RuntimeError: the body broke")
    assert items[1:] == [("text", "first"), ("chunk", b"\xff\xfe"), broke]
    assert closed == ["closed"]
