"""Routing in the agent server (pyctx_web.server.app): the table, unknown paths, failures."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import CheckpointStorageError, InvalidUpdateError
from pyctx_web.server import AgentServer, Request, Response
from pyctx_web.server._core import ServerStorageError
from pyctx_web.server.app import Route
from tests.unit.server.server_support import call_json, counter_graph, make_server


def test_ok() -> None:
    """``GET /ok`` answers as the real server does."""
    assert call_json(make_server(), "GET", "/ok") == (200, {"ok": True, "services": {}})


def test_info_names_features() -> None:
    """``GET /info`` answers 200 with the server's version and feature flags."""
    status, info = call_json(make_server(), "GET", "/info")
    assert status == 200
    assert info["flags"] == {"assistants": True, "crons": False, "langsmith": False}


def test_unknown_path_is_404() -> None:
    """A path no route has gets 404 ``Not Found``."""
    assert call_json(make_server(), "GET", "/nowhere") == (404, {"detail": "Not Found"})


def test_known_path_other_method_is_405() -> None:
    """A path a route has, asked with another method, gets 405."""
    expected = (405, {"detail": "Method Not Allowed"})
    assert call_json(make_server(), "PUT", "/threads/search") == expected


def test_literal_segments_win_over_parameters() -> None:
    """``POST /threads/search`` goes to the search, not to a thread called ``search``."""
    status, found = call_json(make_server(), "POST", "/threads/search", {})
    assert (status, found) == (200, [])


def test_trailing_slash_is_another_path() -> None:
    """A path with a trailing slash is not the route without it: 404, as on the real server."""
    assert call_json(make_server(), "GET", "/ok/") == (404, {"detail": "Not Found"})


def test_handler_failure_is_500_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    """An unexpected exception gives the real server's plain 500 and a logged traceback."""

    async def broken(server: Any, request: Request) -> Response:
        raise RuntimeError("boom")

    server = make_server()
    server.routes.insert(0, Route("GET", "/broken", broken))
    with caplog.at_level(logging.ERROR, logger="pyctx_web.server.app"):
        answer = asyncio.run(server.handle(Request("GET", "/broken")))
    assert (answer.status, answer.body) == (500, b"Internal Server Error")
    assert answer.headers == {"content-type": "text/plain; charset=utf-8"}
    assert [r.getMessage() for r in caplog.records] == ["GET /broken failed"]


@pytest.mark.parametrize(
    "error",
    [
        ServerStorageError("store run 'r'", "QuotaExceededError: the quota has been exceeded"),
        CheckpointStorageError("write checkpoint 'c' of thread 't'", "QuotaExceededError: full"),
    ],
)
def test_storage_failure_is_500_naming_it(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    """A failure of the server's storage is a 500 whose detail names the error and its cause."""

    async def storing(server: Any, request: Request) -> Response:
        raise error

    server = make_server()
    server.routes.insert(0, Route("POST", "/store", storing))
    with caplog.at_level(logging.ERROR, logger="pyctx_web.server.app"):
        answer = asyncio.run(server.handle(Request("POST", "/store")))
    detail = f"{type(error).__name__}: {error}"
    assert isinstance(answer.body, bytes)
    assert (answer.status, json.loads(answer.body)) == (500, {"detail": detail})
    assert [r.getMessage() for r in caplog.records] == ["POST /store: storage failed"]


def test_value_error_is_400(caplog: pytest.LogCaptureFixture) -> None:
    """A ValueError from a handler is a bad request: 400 with its message, and logged."""

    async def refusing(server: Any, request: Request) -> Response:
        raise InvalidUpdateError("no such channel")

    server = make_server()
    server.routes.insert(0, Route("POST", "/refuse", refusing))
    with caplog.at_level(logging.ERROR, logger="pyctx_web.server.app"):
        answer = asyncio.run(server.handle(Request("POST", "/refuse")))
    assert (answer.status, answer.body) == (400, b'{"detail":"no such channel"}')
    assert [r.getMessage() for r in caplog.records] == ["POST /refuse refused"]


def test_route_pattern_must_be_absolute() -> None:
    """A route pattern without a leading slash is refused."""

    async def handler(server: Any, request: Request) -> Response:
        return Response(204)

    with pytest.raises(ValueError, match=r"^route pattern 'ok' must start with '/'$"):
        Route("GET", "ok", handler)


def test_graphs_without_checkpointer_get_the_servers() -> None:
    """A graph compiled without a checkpointer is given the server's; one with its own keeps it."""
    own = InMemorySaver()
    bare, kept = counter_graph(), counter_graph()
    kept.checkpointer = own
    server = AgentServer({"a": bare, "b": kept})
    assert server.graphs["a"].checkpointer is server.checkpointer
    assert server.graphs["b"].checkpointer is own


def test_a_server_needs_graphs() -> None:
    """A server without graphs is refused."""
    with pytest.raises(ValueError, match=r"^an agent server needs at least one graph$"):
        AgentServer({})


def test_a_graph_must_be_compiled() -> None:
    """A StateGraph given uncompiled is refused with the fix."""
    with pytest.raises(
        TypeError,
        match=r"^graph 'g' is a str, not a compiled graph: call \.compile\(\) on its StateGraph$",
    ):
        AgentServer({"g": "graph"})  # type: ignore[dict-item]
