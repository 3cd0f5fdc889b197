"""The agent server as an ASGI 3 application, to serve it over real HTTP on CPython.

``asgi_app(server)`` answers ``http`` scopes with :meth:`AgentServer.handle`
and the ``lifespan`` scope with its startup and shutdown replies. A streamed
body (an async iterator, as a run's event stream) is sent chunk by chunk while
the adapter listens for ``http.disconnect``: when the client goes away the
task iterating the body is cancelled, so the body's iterator sees a
``CancelledError`` at the ``await`` it was at, and the iterator is then closed
(its ``finally`` blocks run). That cancellation is how a stream learns that
its client left.

Requests from a browser page of another origin get the CORS headers the
LangGraph Server sends (any origin; ``x-pagination-*`` and ``content-location``
readable), so a page elsewhere can use the server as it uses a LangGraph Server.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from pyctx_web.errors import ArgumentValueError
from pyctx_web.server._http import Request, Response
from pyctx_web.server.app import AgentServer

__all__ = [
    "CORS_EXPOSED",
    "CORS_METHODS",
    "ASGIApp",
    "Message",
    "Receive",
    "Scope",
    "Send",
    "asgi_app",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def asgi_app(server: AgentServer) -> ASGIApp:
    """An ASGI 3 application serving ``server``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
        elif scope["type"] == "http":
            request = await _request(scope, receive)
            if request is not None:
                await _respond(await _answer(server, request), receive, send)
        else:
            raise ArgumentValueError(
                f"unsupported ASGI scope type {scope['type']!r}: expected http"
            )

    return app


CORS_EXPOSED = "x-pagination-total, x-pagination-next, content-location"
"""The response headers a cross-origin page may read, the LangGraph Server's."""

CORS_METHODS = "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, QUERY"

_PREFLIGHT_VARY = (
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers,"
    " Access-Control-Request-Private-Network"
)


async def _answer(server: AgentServer, request: Request) -> Response:
    """The server's response, with the CORS headers the LangGraph Server gives any origin.

    A request that names its ``origin`` may read the response; a preflight
    (``OPTIONS`` asking ``access-control-request-method``) is answered here,
    and refused (400) when it asks for private-network access, as there.
    """
    origin = request.headers.get("origin")
    asked = request.headers.get("access-control-request-method")
    if origin is not None and asked is not None and request.method.upper() == "OPTIONS":
        return _preflight(request)
    response = await server.handle(request)
    if origin is not None:
        response.headers["access-control-allow-origin"] = "*"
        response.headers["access-control-expose-headers"] = CORS_EXPOSED
    response.headers["vary"] = "Origin"
    return response


def _preflight(request: Request) -> Response:
    headers = {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": CORS_METHODS,
        "access-control-allow-private-network": "true",
        "access-control-max-age": "600",
        "content-type": "text/plain; charset=utf-8",
        "vary": _PREFLIGHT_VARY,
    }
    if request.headers.get("access-control-request-private-network") == "true":
        return Response(400, headers, b"Disallowed CORS private-network")
    if "access-control-request-headers" in request.headers:
        headers["access-control-allow-headers"] = request.headers["access-control-request-headers"]
    return Response(200, headers, b"OK")


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _request(scope: Scope, receive: Receive) -> Request | None:
    """The request of an ``http`` scope, its body read whole; None if the client left first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    return Request(scope["method"], scope["path"], query, headers, b"".join(chunks))


async def _respond(response: Response, receive: Receive, send: Send) -> None:
    headers = [
        (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.items()
    ]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    if isinstance(response.body, bytes):
        await send({"type": "http.response.body", "body": response.body, "more_body": False})
    else:
        await _stream(response.body, receive, send)


async def _stream(body: AsyncIterator[bytes], receive: Receive, send: Send) -> None:
    """Send ``body`` chunk by chunk; cancel its iteration when the client disconnects."""

    async def pump() -> None:
        async for chunk in body:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    pumping, watching = asyncio.ensure_future(pump()), asyncio.ensure_future(watch())
    try:
        await asyncio.wait({pumping, watching}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (pumping, watching):
            if not task.done():
                task.cancel()
                # The task was cancelled here: its CancelledError is the expected outcome.
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        closer = getattr(body, "aclose", None)
        if closer is not None:
            await closer()
    if pumping.done() and not pumping.cancelled():
        pumping.result()
