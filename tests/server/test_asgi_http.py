"""The tier's HTTP adapter serves an ASGI app over a real socket, with streaming and disconnects."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx

from tests.server.asgi_http import AsgiHttpServer

Message = MutableMapping[str, Any]


class _App:
    """Echoes the request, or streams chunks until the client leaves (and records that)."""

    def __init__(self) -> None:
        self.left = threading.Event()

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        request = await receive()
        headers = [(b"content-type", b"text/plain")]
        await send({"type": "http.response.start", "status": 201, "headers": headers})
        if scope["path"] != "/forever":
            echo = f"{scope['method']} {scope['path']}?{scope['query_string'].decode()} "
            await send({"type": "http.response.body", "body": echo.encode() + request["body"]})
            return
        disconnect = asyncio.ensure_future(receive())
        while not disconnect.done():
            await send({"type": "http.response.body", "body": b"tick\n", "more_body": True})
            await asyncio.sleep(0.01)
        assert disconnect.result() == {"type": "http.disconnect"}
        self.left.set()


def test_request_and_response_cross_a_real_socket() -> None:
    """Method, path, query and body reach the app; its status, headers and body reach the client."""
    app = _App()
    with AsgiHttpServer(app) as base_url:
        response = httpx.post(f"{base_url}/threads/search?limit=2", content=b"{}")
    assert (response.status_code, response.headers["content-type"]) == (201, "text/plain")
    assert response.text == "POST /threads/search?limit=2 {}"


def test_a_client_that_leaves_is_an_http_disconnect() -> None:
    """Closing the connection mid-stream gives the app http.disconnect."""
    app = _App()
    server = AsgiHttpServer(app)
    with server as base_url:
        with httpx.stream("GET", f"{base_url}/forever") as response:
            assert next(response.iter_lines()) == "tick"
        assert app.left.wait(timeout=30)
    assert server.errors == []
