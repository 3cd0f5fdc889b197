"""A thread's state and history through AgentServer.handle (pyctx_web.server.state_routes)."""

from __future__ import annotations

import asyncio
import json
import operator
from typing import Annotated, Any, TypedDict

import httpx

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import interrupt
from pyctx_web.server import AgentServer, Request, asgi_app
from pyctx_web.server.state_json import thread_state
from pyctx_web.server.threads import ensure_thread_metadata, set_thread_status


class Log(TypedDict):
    """The test graph's state: the names its nodes appended."""

    log: Annotated[list[str], operator.add]


def _asker() -> CompiledStateGraph:
    """a (appends "a") -> ask (asks a question, appends the answer); no checkpointer."""

    def a(state: Log) -> dict[str, Any]:
        return {"log": ["a"]}

    def ask(state: Log) -> dict[str, Any]:
        return {"log": [interrupt({"question": "name?"})]}

    builder = StateGraph(Log)
    builder.add_node("a", a)
    builder.add_node("ask", ask)
    builder.add_edge(START, "a")
    builder.add_edge("a", "ask")
    return builder.compile()


def _call(server: AgentServer, method: str, path: str, body: Any = None, **query: str) -> Any:
    """The status and JSON body of the server's answer to one request."""
    data = b"" if body is None else json.dumps(body).encode()
    request = Request(method, path, {k: [v] for k, v in query.items()}, {}, data)
    response = asyncio.run(server.handle(request))
    assert isinstance(response.body, bytes)
    return response.status, json.loads(response.body)


def _new_thread(server: AgentServer) -> str:
    """A new thread's id."""
    status, thread = _call(server, "POST", "/threads", {})
    assert status == 200
    return str(thread["thread_id"])


def _paused_thread() -> tuple[AgentServer, str, CompiledStateGraph]:
    """A server whose thread ran the asker graph up to its question."""
    server = AgentServer({"asker": _asker()})
    tid = _new_thread(server)
    graph = server.graphs["asker"]

    async def run() -> None:
        await ensure_thread_metadata(server, tid, "asker", "assistant")
        await graph.ainvoke({"log": []}, {"configurable": {"thread_id": tid}})

    asyncio.run(run())
    return server, tid, graph


def _snapshot_json(graph: CompiledStateGraph, tid: str, **configurable: Any) -> Any:
    """The graph's own state of the thread, as ThreadState JSON."""
    config = {"configurable": {"thread_id": tid, **configurable}}
    return json.loads(json.dumps(thread_state(asyncio.run(graph.aget_state(config)))))


def test_a_thread_no_graph_ran_on_has_the_empty_state_and_no_history() -> None:
    """Before any run a thread's state has no values and no checkpoint, its history is empty."""
    server = AgentServer({"asker": _asker()})
    tid = _new_thread(server)
    status, state = _call(server, "GET", f"/threads/{tid}/state")
    assert status == 200
    assert state == {
        "values": {},
        "next": [],
        "tasks": [],
        "metadata": None,
        "created_at": None,
        "checkpoint": None,
        "parent_checkpoint": None,
        "interrupts": [],
        "checkpoint_id": None,
        "parent_checkpoint_id": None,
    }
    assert _call(server, "POST", f"/threads/{tid}/history", {"limit": 10}) == (200, [])


def test_state_is_the_graphs_state_of_the_thread() -> None:
    """GET state gives the latest state, with the pending question and the next node."""
    server, tid, graph = _paused_thread()
    status, state = _call(server, "GET", f"/threads/{tid}/state")
    assert status == 200
    assert state == _snapshot_json(graph, tid)
    assert state["values"] == {"log": ["a"]}
    assert state["next"] == ["ask"]
    assert [i["value"] for i in state["interrupts"]] == [{"question": "name?"}]


def test_state_at_a_checkpoint_by_path_and_by_body() -> None:
    """The state at an earlier checkpoint by id in the path or a body, named as it was asked."""
    server, tid, graph = _paused_thread()
    _, state = _call(server, "GET", f"/threads/{tid}/state")
    parent_id = state["parent_checkpoint_id"]
    expected = _snapshot_json(graph, tid, checkpoint_id=parent_id)
    assert expected["checkpoint_id"] == parent_id
    body = {"checkpoint": {"checkpoint_id": parent_id, "checkpoint_ns": ""}}
    assert _call(server, "POST", f"/threads/{tid}/state/checkpoint", body) == (200, expected)
    del expected["checkpoint"]["checkpoint_ns"]
    assert _call(server, "GET", f"/threads/{tid}/state/{parent_id}") == (200, expected)
    body = {"checkpoint": {"checkpoint_id": parent_id}}
    assert _call(server, "POST", f"/threads/{tid}/state/checkpoint", body) == (200, expected)
    assert _call(server, "POST", f"/threads/{tid}/state/checkpoint", {}) == (
        422,
        {
            "detail": '"checkpoint" is a required property\n\n'
            'Failed validating "required" in schema\n\nOn instance:\n    {}'
        },
    )


def test_update_state_as_a_node_writes_a_checkpoint_and_the_thread() -> None:
    """POST state writes values as as_node: a new 'update' checkpoint, thread values and status."""
    server, tid, _ = _paused_thread()
    failure = {"error": "ValueError", "message": "boom"}
    asyncio.run(set_thread_status(server, tid, "error", error=failure))
    body = {"values": {"log": ["edited"]}, "as_node": "a"}
    status, written = _call(server, "POST", f"/threads/{tid}/state", body)
    assert status == 200
    assert list(written) == ["checkpoint", "configurable", "checkpoint_id"]
    assert written["checkpoint"]["thread_id"] == tid
    assert written["checkpoint"]["checkpoint_id"] == written["checkpoint_id"]
    _, state = _call(server, "GET", f"/threads/{tid}/state")
    assert state["checkpoint_id"] == written["checkpoint_id"]
    assert state["metadata"]["source"] == "update"
    assert state["values"] == {"log": ["a", "edited"]}
    assert state["next"] == ["ask"]
    _, thread = _call(server, "GET", f"/threads/{tid}")
    assert (thread["status"], thread["values"]) == ("interrupted", {"log": ["a", "edited"]})
    assert thread["error"] is None


def test_update_state_refusals() -> None:
    """Updates are refused on a thread no graph ran on, a busy one, an unknown node, bad values."""
    server = AgentServer({"asker": _asker()})
    tid = _new_thread(server)
    status, error = _call(server, "POST", f"/threads/{tid}/state", {"values": {"log": []}})
    assert status == 400
    assert error["detail"].startswith(f"Thread '{tid}' has no assigned graph ID.")
    server, tid, _ = _paused_thread()
    status, error = _call(server, "POST", f"/threads/{tid}/state", {"values": [1], "as_node": "a"})
    assert (status, "list" in error["detail"]) == (400, True)
    assert _call(server, "POST", f"/threads/{tid}/state", {"as_node": "nope"}) == (
        400,
        {"detail": "Node nope does not exist"},
    )
    assert _call(server, "POST", f"/threads/{tid}/state", {"as_node": 1}) == (
        422,
        {
            "detail": '1 is not of type "string"\n\nFailed validating "type" in '
            'schema["properties"]["as_node"]\n\nOn instance["as_node"]:\n    1'
        },
    )
    asyncio.run(set_thread_status(server, tid, "busy"))
    assert _call(server, "POST", f"/threads/{tid}/state", {"values": {"log": ["x"]}}) == (
        409,
        {"detail": f"Thread {tid} has in-flight runs"},
    )


def test_history_limit_before_and_metadata_filter() -> None:
    """History is newest first: one state without limit, paged with before, filtered by metadata."""
    server, tid, _ = _paused_thread()
    path = f"/threads/{tid}/history"
    _, latest = _call(server, "GET", f"/threads/{tid}/state")
    assert _call(server, "POST", path, {}) == (200, [latest])
    _, states = _call(server, "POST", path, {"limit": 10})
    assert [s["metadata"]["step"] for s in states] == [1, 0, -1]
    assert states[0] == latest
    before = {"configurable": {"checkpoint_id": states[0]["checkpoint_id"]}}
    _, older = _call(server, "POST", path, {"limit": 10, "before": before})
    assert older == states[1:]
    _, inputs = _call(server, "POST", path, {"limit": 10, "metadata": {"source": "input"}})
    assert inputs == [states[2]]
    before_id = states[0]["checkpoint_id"]
    _, by_id = _call(server, "POST", path, {"limit": 10, "before": {"checkpoint_id": before_id}})
    assert by_id == older
    _, paged = _call(server, "GET", path, limit="2", before=before_id)
    assert paged == states[1:3]
    assert _call(server, "POST", path, {"limit": "x"}) == (
        422,
        {
            "detail": '"x" is not of type "integer"\n\nFailed validating "type" in '
            'schema["properties"]["limit"]\n\nOn instance["limit"]:\n    "x"'
        },
    )
    assert _call(server, "POST", path, {"limit": 0}) == (
        422,
        {
            "detail": '0 is less than the minimum of 1\n\nFailed validating "minimum" in '
            'schema["properties"]["limit"]\n\nOn instance["limit"]:\n    0'
        },
    )
    assert _call(server, "POST", path, {"before": "x"}) == (
        422,
        {
            "detail": '"x" is not of type "object"\n\nFailed validating "type" in '
            'schema["components"]["schemas"]["CheckpointConfig"]\n\n'
            'On instance["before"]:\n    "x"'
        },
    )
    assert _call(server, "GET", path, limit="x") == (422, {"detail": "Invalid limit x"})


def test_unknown_and_malformed_thread_ids() -> None:
    """State and history of an unknown thread are 404, of a malformed id 422."""
    server = AgentServer({"asker": _asker()})
    unknown = "00000000-0000-4000-8000-000000000000"
    assert _call(server, "GET", f"/threads/{unknown}/state") == (
        404,
        {"detail": f"Thread with ID {unknown} not found"},
    )
    assert _call(server, "POST", "/threads/nope/history", {}) == (
        422,
        {"detail": "Invalid thread ID: must be a UUID"},
    )


def test_state_history_and_update_around_runs() -> None:
    """After runs through the API the state, history and an update follow the thread's runs."""
    server = AgentServer({"asker": _asker()})
    tid = _new_thread(server)
    run = {"assistant_id": "asker", "input": {"log": []}}
    assert _call(server, "POST", f"/threads/{tid}/runs/wait", run)[0] == 200
    _, state = _call(server, "GET", f"/threads/{tid}/state")
    assert (state["values"], state["next"]) == ({"log": ["a"]}, ["ask"])
    assert state["metadata"]["source"] == "loop"
    [question] = state["interrupts"]
    _, thread = _call(server, "GET", f"/threads/{tid}")
    assert thread["interrupts"] == {state["tasks"][0]["id"]: [question]}
    body = {"values": {"log": ["edited"]}, "as_node": "a"}
    assert _call(server, "POST", f"/threads/{tid}/state", body)[0] == 200
    resume = {"assistant_id": "asker", "command": {"resume": "Ada"}}
    assert _call(server, "POST", f"/threads/{tid}/runs/wait", resume)[0] == 200
    _, state = _call(server, "GET", f"/threads/{tid}/state")
    assert (state["values"], state["next"], state["interrupts"]) == (
        {"log": ["a", "edited", "Ada"]},
        [],
        [],
    )
    _, states = _call(server, "POST", f"/threads/{tid}/history", {"limit": 10})
    sources = [s["metadata"]["source"] for s in states]
    assert sources == ["loop", "update", "loop", "loop", "input"]
    _, thread = _call(server, "GET", f"/threads/{tid}")
    assert (thread["status"], thread["values"]) == ("idle", state["values"])


def test_state_over_http_replaces_nul() -> None:
    """Over HTTP a state holding a NUL character arrives with U+FFFD in its place."""
    server, tid, graph = _paused_thread()
    config = {"configurable": {"thread_id": tid}}
    asyncio.run(graph.aupdate_state(config, {"log": ["é\x00"]}, as_node="a"))

    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(app=asgi_app(server))
        async with httpx.AsyncClient(transport=transport, base_url="http://server") as client:
            return await client.get(f"/threads/{tid}/state")

    response = asyncio.run(get())
    assert response.status_code == 200
    assert response.json()["values"] == {"log": ["a", "é\ufffd"]}


def _paused_in_subgraph() -> tuple[AgentServer, str]:
    """A server whose thread waits on a question asked inside the subgraph node ``child``."""
    child = StateGraph(Log)
    child.add_node("ask", lambda state: {"log": [interrupt("q?")]})
    child.add_edge(START, "ask")
    parent = StateGraph(Log)
    parent.add_node("child", child.compile())
    parent.add_edge(START, "child")
    server = AgentServer({"nested": parent.compile()})
    tid = _new_thread(server)
    run = {"assistant_id": "nested", "input": {"log": []}}
    assert _call(server, "POST", f"/threads/{tid}/runs/wait", run)[0] == 200
    return server, tid


def test_subgraph_states_only_when_asked() -> None:
    """With subgraphs=true a task running a subgraph carries the subgraph's ThreadState."""
    server, tid = _paused_in_subgraph()
    _, flat = _call(server, "GET", f"/threads/{tid}/state")
    assert flat["tasks"][0]["state"] is None
    _, deep = _call(server, "GET", f"/threads/{tid}/state", subgraphs="true")
    inner = deep["tasks"][0]["state"]
    assert (inner["next"], inner["tasks"][0]["name"]) == (["ask"], "ask")
    assert inner["checkpoint"]["checkpoint_ns"].startswith("child:")
    assert [i["value"] for i in inner["interrupts"]] == ["q?"]


def test_subgraph_state_metadata_names_its_place() -> None:
    """A subgraph's state metadata has what the server's checkpointer stores for it: the
    thread, the subgraph's checkpoint_ns and checkpoint_map, the calling task's langgraph_*."""
    server, tid = _paused_in_subgraph()
    _, deep = _call(server, "GET", f"/threads/{tid}/state", subgraphs="true")
    meta = deep["tasks"][0]["state"]["metadata"]
    namespace = deep["tasks"][0]["state"]["checkpoint"]["checkpoint_ns"]
    assert meta["thread_id"] == tid
    assert meta["checkpoint_ns"] == meta["langgraph_checkpoint_ns"] == namespace
    assert meta["checkpoint_map"] == meta["parents"] == {"": deep["checkpoint_id"]}
    assert (meta["langgraph_node"], meta["langgraph_step"]) == (
        "child",
        deep["metadata"]["step"] + 1,
    )


def test_state_at_an_unknown_checkpoint_is_empty_and_names_it() -> None:
    """The state at a checkpoint the thread lacks is the empty state naming that checkpoint,
    by path and by body, as the LangGraph Server answers it."""
    server, tid, _ = _paused_thread()
    missing = "1f1ea5fd-17f8-61bd-8000-da9e6418ede8"
    expected: dict[str, Any] = {
        "values": {},
        "next": [],
        "tasks": [],
        "metadata": None,
        "created_at": None,
        "checkpoint": {"checkpoint_id": missing, "thread_id": tid},
        "parent_checkpoint": None,
        "interrupts": [],
        "checkpoint_id": missing,
        "parent_checkpoint_id": None,
    }
    assert _call(server, "GET", f"/threads/{tid}/state/{missing}") == (200, expected)
    body = {"checkpoint": {"checkpoint_id": missing}}
    assert _call(server, "POST", f"/threads/{tid}/state/checkpoint", body) == (200, expected)


def test_update_state_checkpoint_names_the_graph_and_the_thread() -> None:
    """An update's checkpoint metadata names the thread's graph and the thread, as the
    server's do; the node that waited is planned afresh, its question not pending."""
    server, tid, _ = _paused_thread()
    _call(server, "POST", f"/threads/{tid}/state", {"values": {"log": ["u"]}, "as_node": "a"})
    _, state = _call(server, "GET", f"/threads/{tid}/state")
    assert state["metadata"] == {
        "source": "update",
        "step": 2,
        "parents": {},
        "graph_id": "asker",
        "thread_id": tid,
    }
    assert (state["next"], state["interrupts"]) == (["ask"], [])
