"""The agent server as an ASGI application (pyctx_web.server.asgi), over httpx and raw ASGI."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import httpx
import pytest

from pyctx_web.server import Request, Response, asgi_app
from pyctx_web.server.app import Route
from pyctx_web.server.asgi import ASGIApp
from tests.unit.server.server_support import make_server


async def _run(app: ASGIApp, scope: dict[str, Any], receive: Any, send: Any) -> None:
    await app(scope, receive, send)


async def _client_call(server: Any, method: str, path: str, **kwargs: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=asgi_app(server))
    async with httpx.AsyncClient(transport=transport, base_url="http://server") as client:
        return await client.request(method, path, **kwargs)


def test_json_round_trip_over_http() -> None:
    """A thread created over HTTP is found by a search over HTTP, with the total header."""
    server = make_server()
    created = asyncio.run(_client_call(server, "POST", "/threads", json={"metadata": {"k": "v"}}))
    assert (created.status_code, created.headers["content-type"]) == (200, "application/json")
    found = asyncio.run(
        _client_call(server, "POST", "/threads/search", json={"metadata": {"k": "v"}})
    )
    assert [t["thread_id"] for t in found.json()] == [created.json()["thread_id"]]
    assert found.headers["x-pagination-total"] == "1"


def test_errors_over_http() -> None:
    """Errors keep their status and ``{"detail": ...}`` body over HTTP; 204 has no body."""
    server = make_server()
    bad = asyncio.run(_client_call(server, "POST", "/threads", content=b"not json"))
    assert (bad.status_code, bad.json()) == (422, {"detail": "Invalid JSON in request body"})
    tid = asyncio.run(_client_call(server, "POST", "/threads", json={})).json()["thread_id"]
    gone = asyncio.run(_client_call(server, "DELETE", f"/threads/{tid}"))
    assert (gone.status_code, gone.content) == (204, b"")


def test_query_and_headers_reach_the_handler() -> None:
    """Query parameters (repeated ones whole) and lower-case headers reach the request."""
    seen: list[Request] = []

    async def echo(server: Any, request: Request) -> Response:
        seen.append(request)
        return Response(204)

    server = make_server()
    server.routes.insert(0, Route("GET", "/echo", echo))
    headers = {"Last-Event-ID": "5-0"}
    asyncio.run(_client_call(server, "GET", "/echo?m=a&m=b&e=", headers=headers))
    assert seen[0].query == {"m": ["a", "b"], "e": [""]}
    assert seen[0].headers["last-event-id"] == "5-0"


def _streaming_server(chunks: list[bytes], closed: list[str]) -> Any:
    async def stream(server: Any, request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            try:
                for chunk in chunks:
                    yield chunk
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


async def _raw_stream_call(server: Any) -> list[dict[str, Any]]:
    """Run the ASGI app on ``GET /stream``, the client leaving once two body chunks are in."""
    sent: list[dict[str, Any]] = []
    left = asyncio.Event()
    incoming = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop(0)
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))
        if len([m for m in sent if m["type"] == "http.response.body"]) == 2:
            left.set()

    scope = {"type": "http", "method": "GET", "path": "/stream", "headers": [], "query_string": b""}
    await asyncio.wait_for(asgi_app(server)(scope, receive, send), 10)
    return sent


def test_disconnect_cancels_the_stream() -> None:
    """When the client disconnects, the streamed body's iterator is cancelled and closed."""
    closed: list[str] = []
    sent = asyncio.run(_raw_stream_call(_streaming_server([b"a", b"b"], closed)))
    assert sent[0] == {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"text/event-stream"), (b"vary", b"Origin")],
    }
    assert [m["body"] for m in sent[1:]] == [b"a", b"b"]
    assert closed == ["cancelled", "closed"]


def test_finished_stream_ends_the_body() -> None:
    """A streamed body that ends sends its chunks, then an empty last chunk."""

    async def stream(server: Any, request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b"x"
            yield b"y"

        return Response(200, {"content-type": "text/plain"}, body())

    server = make_server()
    server.routes.insert(0, Route("GET", "/finite", stream))
    answer = asyncio.run(_client_call(server, "GET", "/finite"))
    assert (answer.status_code, answer.content) == (200, b"xy")


def test_lifespan_is_answered() -> None:
    """The lifespan scope's startup and shutdown are acknowledged."""
    sent: list[str] = []
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message["type"])

    asyncio.run(_run(asgi_app(make_server()), {"type": "lifespan"}, receive, send))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


def test_websocket_scope_is_refused() -> None:
    """A scope the adapter does not serve is refused naming it."""

    async def never() -> dict[str, Any]:
        raise AssertionError("not called")

    async def ignore(message: MutableMapping[str, Any]) -> None:
        raise AssertionError("not called")

    with pytest.raises(
        ValueError, match=r"^unsupported ASGI scope type 'websocket': expected http$"
    ):
        asyncio.run(_run(asgi_app(make_server()), {"type": "websocket"}, never, ignore))


def test_cross_origin_request_gets_cors_headers() -> None:
    """A request naming its origin may read the response and its paging headers; any has Vary."""
    server = make_server()
    headers = {"origin": "http://page.example"}
    answer = asyncio.run(_client_call(server, "POST", "/threads/search", json={}, headers=headers))
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["access-control-expose-headers"] == (
        "x-pagination-total, x-pagination-next, content-location"
    )
    same_origin = asyncio.run(_client_call(server, "POST", "/threads/search", json={}))
    assert "access-control-allow-origin" not in same_origin.headers
    assert same_origin.headers["vary"] == "Origin"


def test_preflight_is_answered() -> None:
    """A CORS preflight is allowed for any method and the headers it asks for."""
    headers = {
        "origin": "http://page.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,last-event-id",
    }
    answer = asyncio.run(_client_call(make_server(), "OPTIONS", "/threads", headers=headers))
    assert (answer.status_code, answer.text) == (200, "OK")
    assert answer.headers["access-control-allow-headers"] == "content-type,last-event-id"
    assert answer.headers["access-control-allow-methods"] == (
        "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, QUERY"
    )


def test_private_network_preflight_is_refused() -> None:
    """A preflight asking for private-network access is refused, as the LangGraph Server does."""
    headers = {
        "origin": "http://page.example",
        "access-control-request-method": "GET",
        "access-control-request-private-network": "true",
    }
    answer = asyncio.run(_client_call(make_server(), "OPTIONS", "/ok", headers=headers))
    assert (answer.status_code, answer.text) == (400, "Disallowed CORS private-network")
