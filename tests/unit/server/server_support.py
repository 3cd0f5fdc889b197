"""Helpers of the agent server's tests: a small graph, a server over it, a call and its JSON."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server import AgentServer, Request, Response


class Counter(TypedDict):
    """The test graph's state."""

    count: int


def counter_graph() -> CompiledStateGraph:
    """A one-node graph that adds one to ``count``, compiled without a checkpointer."""

    def add(state: Counter) -> dict[str, Any]:
        return {"count": state["count"] + 1}

    builder = StateGraph(Counter)
    builder.add_node("add", add)
    builder.add_edge(START, "add")
    return builder.compile()


def make_server() -> AgentServer:
    """A server with two graphs, ``agent`` and ``counter``."""
    return AgentServer({"agent": counter_graph(), "counter": counter_graph()})


def call(
    server: AgentServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    raw: bytes | None = None,
    query: dict[str, list[str]] | None = None,
) -> Response:
    """The server's response to one request (``body`` sent as JSON, or ``raw`` bytes)."""
    data = raw if raw is not None else b"" if body is None else json.dumps(body).encode()
    request = Request(method, path, query or {}, {"content-type": "application/json"}, data)
    return asyncio.run(server.handle(request))


def call_json(server: AgentServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """The status and parsed JSON body of the server's response."""
    response = call(server, method, path, body)
    assert isinstance(response.body, bytes)
    return response.status, json.loads(response.body) if response.body else None
