"""Assistants of the agent server (pyctx_web.server.assistants): ids, search, get, resolve."""

from __future__ import annotations

import json
import operator
import re
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.server import AgentServer
from pyctx_web.server._http import ApiError
from pyctx_web.server.assistants import assistant_id_of, resolve_assistant
from tests.unit.server.server_support import call, call_json, make_server

AGENT_ID = "fe096781-5601-53d2-b2f6-0d3403f7e9ca"
"""The assistant id LangGraph Server gives a graph called ``agent``."""


def test_assistant_id_is_langgraph_servers() -> None:
    """A graph's assistant id is the one LangGraph Server derives from the same graph id."""
    assert assistant_id_of("agent") == AGENT_ID


def test_search_lists_one_assistant_per_graph() -> None:
    """``/assistants/search`` lists each graph's assistant, the last registered first."""
    status, found = call_json(make_server(), "POST", "/assistants/search", {})
    assert status == 200
    assert [(a["graph_id"], a["name"]) for a in found] == [
        ("counter", "counter"),
        ("agent", "agent"),
    ]
    agent = found[1]
    assert agent["assistant_id"] == AGENT_ID
    assert {k: agent[k] for k in ("config", "context", "metadata", "version", "description")} == {
        "config": {},
        "context": {},
        "metadata": {"created_by": "system"},
        "version": 1,
        "description": None,
    }
    assert agent["created_at"] == agent["updated_at"]


def test_search_filters_and_counts() -> None:
    """Search filters by graph id and metadata; the total is in ``x-pagination-total``."""
    server = make_server()
    by_graph = call_json(server, "POST", "/assistants/search", {"graph_id": "counter"})
    assert [a["graph_id"] for a in by_graph[1]] == ["counter"]
    none = call_json(server, "POST", "/assistants/search", {"metadata": {"created_by": "x"}})
    assert none == (200, [])
    paged = call(server, "POST", "/assistants/search", {"limit": 1})
    assert (paged.headers["x-pagination-total"], paged.headers["x-pagination-next"]) == ("2", "1")
    by_name = call_json(server, "POST", "/assistants/search", {"name": "COUNT"})
    assert [a["graph_id"] for a in by_name[1]] == ["counter"]
    assert call_json(server, "POST", "/assistants/count", {"graph_id": "agent"}) == (200, 1)


def test_search_selects_fields() -> None:
    """``select`` cuts each assistant to the named fields."""
    body = {"select": ["graph_id"], "sort_by": "graph_id", "sort_order": "asc"}
    found = call_json(make_server(), "POST", "/assistants/search", body)
    assert found == (200, [{"graph_id": "agent"}, {"graph_id": "counter"}])


def test_get_by_uuid() -> None:
    """``GET /assistants/{id}`` answers the assistant with that UUID."""
    status, assistant = call_json(make_server(), "GET", f"/assistants/{AGENT_ID}")
    assert (status, assistant["graph_id"]) == (200, "agent")


def test_get_by_graph_name_is_422() -> None:
    """``GET /assistants/{id}`` takes only a UUID: a graph name gets 422."""
    expected = (422, {"detail": "Invalid assistant ID: must be a UUID"})
    assert call_json(make_server(), "GET", "/assistants/agent") == expected


def test_get_unknown_is_404() -> None:
    """An unknown assistant UUID gets 404 ``Not Found``, as on the real server."""
    unknown = "00000000-0000-4000-8000-000000000000"
    expected = (404, {"detail": "Not Found"})
    assert call_json(make_server(), "GET", f"/assistants/{unknown}") == expected


def test_resolve_by_graph_name_or_id() -> None:
    """A run's ``assistant_id`` may be the graph id or the assistant id: both name one graph."""
    server = make_server()
    by_name, graph = resolve_assistant(server, "agent")
    by_id, same = resolve_assistant(server, AGENT_ID)
    assert by_name == by_id
    assert graph is same is server.graphs["agent"]


def test_resolve_unknown_name_is_422() -> None:
    """A run naming neither a graph nor a UUID gets the real server's 422 listing the graphs."""
    message = (
        "Invalid assistant: 'nope'. Must be either:\n- A valid assistant UUID, or\n"
        "- One of the registered graphs: agent, counter"
    )
    with pytest.raises(ApiError, match=f"^{re.escape(message)}$") as caught:
        resolve_assistant(make_server(), "nope")
    assert caught.value.status == 422


def test_resolve_unknown_uuid_is_404() -> None:
    """A run naming an unknown assistant UUID gets the real server's 404."""
    unknown = "00000000-0000-4000-8000-000000000000"
    with pytest.raises(ApiError, match=r"^Thread or assistant not found\.$") as caught:
        resolve_assistant(make_server(), unknown)
    assert caught.value.status == 404


class Steps(TypedDict):
    """The nested graph's state."""

    steps: Annotated[list[str], operator.add]


def _nested_server() -> AgentServer:
    """A server over ``nested``: a step, then a subgraph node ``child`` of two steps."""

    def step(name: str) -> Any:
        return lambda state: {"steps": [name]}

    inner = (
        StateGraph(Steps)
        .add_node("inner_a", step("a"))
        .add_node("inner_b", step("b"))
        .add_edge(START, "inner_a")
        .add_edge("inner_a", "inner_b")
        .compile()
    )
    outer = (
        StateGraph(Steps)
        .add_node("first", step("first"))
        .add_node("child", inner)
        .add_edge(START, "first")
        .add_edge("first", "child")
        .compile()
    )
    return AgentServer({"nested": outer})


def _node(name: str) -> dict[str, Any]:
    return {"id": name, "type": "runnable", "data": {"name": name}}


def test_graph_draws_nodes_and_edges_with_xray() -> None:
    """``/assistants/{id}/graph`` gives the drawing the LangGraph Server gives (by UUID or
    graph id); ``xray`` draws the subgraph's nodes in, a bad ``xray`` is 422."""
    server = _nested_server()
    plain = call_json(server, "GET", f"/assistants/{assistant_id_of('nested')}/graph")
    assert plain == (
        200,
        {
            "nodes": [_node("__start__"), _node("first"), _node("child"), {"id": "__end__"}],
            "edges": [
                {"source": "__start__", "target": "first"},
                {"source": "first", "target": "child"},
                {"source": "child", "target": "__end__"},
            ],
        },
    )
    response = call(server, "GET", "/assistants/nested/graph", query={"xray": ["true"]})
    assert isinstance(response.body, bytes)
    assert json.loads(response.body) == {
        "nodes": [
            _node("__start__"),
            _node("first"),
            {"id": "__end__"},
            _node("child:inner_a"),
            _node("child:inner_b"),
        ],
        "edges": [
            {"source": "__start__", "target": "first"},
            {"source": "first", "target": "child:inner_a"},
            {"source": "child:inner_b", "target": "__end__"},
            {"source": "child:inner_a", "target": "child:inner_b"},
        ],
    }
    bad = call(server, "GET", "/assistants/nested/graph", query={"xray": ["0"]})
    assert (bad.status, bad.body) == (422, b'{"detail":"Invalid xray value"}')


STEPS = {"items": {"type": "string"}, "title": "Steps", "type": "array"}
STATE_IN = {
    "description": "The nested graph's state.",  # pydantic's, from the docstring
    "properties": {"steps": STEPS},
    "required": ["steps"],
    "title": "Steps",
    "type": "object",
}


def test_schemas_and_subgraphs() -> None:
    """``/schemas`` and ``/subgraphs`` give the graph's JSON Schemas as the LangGraph Server
    does; both take the assistant's UUID only."""
    server = _nested_server()
    aid = assistant_id_of("nested")
    status, schemas = call_json(server, "GET", f"/assistants/{aid}/schemas")
    assert status == 200
    state = {"default": None, **STEPS}
    assert schemas == {
        "graph_id": "nested",
        "input_schema": STATE_IN,
        "output_schema": STATE_IN,
        "state_schema": {"properties": {"steps": state}, "title": "nested_state", "type": "object"},
        "config_schema": {},
        "context_schema": None,
    }
    status, subgraphs = call_json(server, "GET", f"/assistants/{aid}/subgraphs")
    assert status == 200
    assert list(subgraphs) == ["child"]
    assert subgraphs["child"]["state_schema"]["title"] == "LangGraphState"
    assert call_json(server, "GET", f"/assistants/{aid}/subgraphs/child") == (200, subgraphs)
    assert call_json(server, "GET", f"/assistants/{aid}/subgraphs/nope") == (200, {})
    uuid_only = (422, {"detail": "Invalid assistant ID: must be a UUID"})
    assert call_json(server, "GET", "/assistants/nested/schemas") == uuid_only
    assert call_json(server, "GET", "/assistants/nested/subgraphs") == uuid_only
    missing = f"/assistants/{AGENT_ID}/schemas"
    assert call_json(server, "GET", missing) == (404, {"detail": "Not Found"})
