"""Assistants of the agent server (pyctx_web.server.assistants): ids, search, get, resolve."""

from __future__ import annotations

import re

import pytest

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
