"""Threads of the agent server (pyctx_web.server.threads): CRUD, search, count, status."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.types import interrupt
from pyctx_web.server import AgentServer
from pyctx_web.server.threads import ensure_thread_metadata, set_thread_status
from tests.unit.server.server_support import call, call_json, make_server

TID = "5a0d9bd6-9a59-4c61-a8f3-1f1b0f0a0001"


def _create(server: AgentServer, **body: Any) -> dict[str, Any]:
    status, thread = call_json(server, "POST", "/threads", body)
    assert status == 200
    assert isinstance(thread, dict)
    return thread


def test_create_gives_an_idle_thread() -> None:
    """``POST /threads`` makes an idle thread with a uuid7 id and the real server's fields."""
    thread = _create(make_server(), metadata={"user": "u1"})
    assert uuid.UUID(thread["thread_id"]).version == 7
    assert thread == {
        "thread_id": thread["thread_id"],
        "created_at": thread["created_at"],
        "updated_at": thread["created_at"],
        "state_updated_at": thread["created_at"],
        "metadata": {"user": "u1"},
        "status": "idle",
        "config": {},
        "values": None,
    }


def test_create_with_id_then_again() -> None:
    """A second create with the same id gets 409, or the existing thread with ``do_nothing``."""
    server = make_server()
    first = _create(server, thread_id=TID)
    assert first["thread_id"] == TID
    again = call_json(server, "POST", "/threads", {"thread_id": TID})
    assert again == (409, {"detail": f"Thread with ID {TID} already exists"})
    kept = call_json(server, "POST", "/threads", {"thread_id": TID, "if_exists": "do_nothing"})
    assert kept == (200, first)


SCHEMA_METADATA = (
    '[1] is not of type "object"\n\nFailed validating "type" in schema["properties"]["metadata"]'
    '\n\nOn instance["metadata"]:\n    [1]'
)
SCHEMA_IF_EXISTS = (
    '"replace" is not one of "raise" or "do_nothing"\n\nFailed validating "enum" in'
    ' schema["properties"]["if_exists"]\n\nOn instance["if_exists"]:\n    "replace"'
)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"thread_id": "t1"}, "Invalid thread ID: must be a UUID"),
        ({"metadata": [1]}, SCHEMA_METADATA),
        ({"if_exists": "replace"}, SCHEMA_IF_EXISTS),
        ({"supersteps": [{"updates": []}]}, "supersteps is not supported by this server"),
    ],
)
def test_create_refusals_are_422(body: dict[str, Any], detail: str) -> None:
    """A create with a bad field gets 422 with the real server's message."""
    assert call_json(make_server(), "POST", "/threads", body) == (422, {"detail": detail})


@pytest.mark.parametrize("raw", [b"{", b""])
def test_malformed_json_is_422(raw: bytes) -> None:
    """A body that is not JSON, an empty one included, gets 422."""
    response = call(make_server(), "POST", "/threads", raw=raw)
    assert (response.status, response.body) == (422, b'{"detail":"Invalid JSON in request body"}')


def test_get_patch_delete() -> None:
    """A thread is read, its metadata merged by PATCH, and DELETE forgets it (204, then 404)."""
    server = make_server()
    tid = _create(server, metadata={"a": 1})["thread_id"]
    assert call_json(server, "GET", f"/threads/{tid}")[1]["metadata"] == {"a": 1}
    status, patched = call_json(server, "PATCH", f"/threads/{tid}", {"metadata": {"b": 2}})
    assert (status, patched["metadata"]) == (200, {"a": 1, "b": 2})
    assert patched["updated_at"] > patched["created_at"] == patched["state_updated_at"]
    assert call_json(server, "PATCH", f"/threads/{tid}", {})[1]["metadata"] == {"a": 1, "b": 2}
    assert call_json(server, "DELETE", f"/threads/{tid}") == (204, None)
    assert call_json(server, "GET", f"/threads/{tid}") == (
        404,
        {"detail": f"Thread with ID {tid} not found"},
    )


def test_delete_removes_checkpoints() -> None:
    """Deleting a thread deletes its checkpoints: the graph's state of it is empty again."""
    server = make_server()
    tid = _create(server)["thread_id"]
    config: Any = {"configurable": {"thread_id": tid}}
    asyncio.run(server.graphs["agent"].ainvoke({"count": 1}, config))
    assert asyncio.run(server.graphs["agent"].aget_state(config)).values == {"count": 2}
    call_json(server, "DELETE", f"/threads/{tid}")
    assert asyncio.run(server.graphs["agent"].aget_state(config)).values == {}


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_unknown_and_malformed_ids(method: str) -> None:
    """An unknown thread id gets 404, one that is not a UUID 422."""
    server = make_server()
    # As the LangGraph Server words them: PATCH says less.
    detail = "Not Found" if method == "PATCH" else f"Thread with ID {TID} not found"
    assert call_json(server, method, f"/threads/{TID}") == (404, {"detail": detail})
    assert call_json(server, method, "/threads/t1") == (
        422,
        {"detail": "Invalid thread ID: must be a UUID"},
    )


def _three(server: AgentServer) -> list[str]:
    ids = [_create(server, metadata={"n": n, "even": n % 2 == 0})["thread_id"] for n in range(3)]
    asyncio.run(set_thread_status(server, ids[1], "busy", values={"count": 5, "x": {"y": 1}}))
    return ids


def test_search_last_updated_first_and_paged() -> None:
    """Search lists the last updated thread first, cut by offset and limit; totals in headers."""
    server = make_server()
    ids = _three(server)
    response = call(server, "POST", "/threads/search", {"limit": 1, "offset": 1})
    assert (response.headers["x-pagination-total"], response.headers["x-pagination-next"]) == (
        "3",
        "2",
    )
    found = call_json(server, "POST", "/threads/search", {})[1]
    assert [t["thread_id"] for t in found] == [ids[1], ids[2], ids[0]]
    found = call_json(server, "POST", "/threads/search", {"limit": 2, "offset": 1})[1]
    assert [t["thread_id"] for t in found] == [ids[2], ids[0]]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"metadata": {"even": True}}, [2, 0]),
        ({"status": "busy"}, [1]),
        ({"status": "idle", "sort_order": "asc"}, [0, 2]),
        ({"values": {"x": {"y": 1}}}, [1]),
        ({"sort_by": "created_at"}, [2, 1, 0]),
        ({"sort_by": "thread_id", "sort_order": "asc"}, [0, 1, 2]),
    ],
)
def test_search_filters_and_sorts(body: dict[str, Any], expected: list[int]) -> None:
    """Search filters by metadata, status and values, and sorts by the field asked for."""
    server = make_server()
    ids = _three(server)
    found = call_json(server, "POST", "/threads/search", body)[1]
    assert [ids.index(t["thread_id"]) for t in found] == expected


def test_search_by_ids_and_select() -> None:
    """Search by ``ids`` finds those threads; ``select`` keeps only the fields named."""
    server = make_server()
    ids = _three(server)
    body = {"ids": [ids[0]], "select": ["thread_id", "status"]}
    assert call_json(server, "POST", "/threads/search", body) == (
        200,
        [{"thread_id": ids[0], "status": "idle"}],
    )


def test_search_refuses_unknown_status() -> None:
    """A search for a status threads cannot have gets 422 with the real server's message."""
    detail = (
        '"done" is not one of "idle", "busy" or 2 other candidates\n\nFailed validating "enum" in'
        ' schema["properties"]["status"]\n\nOn instance["status"]:\n    "done"'
    )
    assert call_json(make_server(), "POST", "/threads/search", {"status": "done"}) == (
        422,
        {"detail": detail},
    )


def test_search_refuses_non_uuid_ids() -> None:
    """A search by an id that is not a UUID gets 400 naming it, as on the real server."""
    body = {"ids": [TID, "t1"]}
    expected = (400, {"detail": "Invalid thread ID t1"})
    assert call_json(make_server(), "POST", "/threads/search", body) == expected


def test_count() -> None:
    """``/threads/count`` answers how many threads the filters match."""
    server = make_server()
    _three(server)
    assert call_json(server, "POST", "/threads/count", {}) == (200, 3)
    assert call_json(server, "POST", "/threads/count", {"metadata": {"n": 1}}) == (200, 1)
    assert call_json(server, "POST", "/threads/count", {"status": "error"}) == (200, 0)


def test_set_status_updates_the_record() -> None:
    """``set_thread_status`` sets the status, values and interrupts, and moves the update times."""
    server = make_server()
    thread = _create(server)
    interrupts = {"task1": [{"id": "i1", "value": "ok?"}]}
    after = asyncio.run(
        set_thread_status(
            server, thread["thread_id"], "interrupted", interrupts=interrupts, error=None
        )
    )
    assert (after["status"], after["interrupts"], after["values"]) == (
        "interrupted",
        interrupts,
        None,
    )
    assert after["error"] is None
    assert after["state_updated_at"] > thread["state_updated_at"]
    stored = call_json(server, "GET", f"/threads/{thread['thread_id']}")[1]
    assert stored == after


def test_set_status_refuses_unknown_status() -> None:
    """An unknown status is a programming error, refused with the statuses there are."""
    server = make_server()
    tid = _create(server)["thread_id"]
    statuses = r"\('idle', 'busy', 'interrupted', 'error'\)"
    message = rf"^unknown thread status 'done': expected one of {statuses}$"
    with pytest.raises(ValueError, match=message):
        asyncio.run(set_thread_status(server, tid, "done"))


def test_first_run_metadata() -> None:
    """A run's start adds the graph and assistant ids to the metadata and merges its config."""
    server = make_server()
    tid = _create(server, metadata={"a": 1})["thread_id"]
    config = {"tags": ["t"], "configurable": {"x": 1}}
    asyncio.run(ensure_thread_metadata(server, tid, "agent", "aid", config))
    found = call_json(server, "POST", "/threads/search", {"metadata": {"graph_id": "agent"}})[1]
    assert [t["metadata"] for t in found] == [{"a": 1, "graph_id": "agent", "assistant_id": "aid"}]
    assert found[0]["config"] == {"tags": ["t"], "configurable": {}}


def test_store_hands_out_copies() -> None:
    """Changing a record read from the store does not change the stored thread."""
    server = make_server()
    tid = _create(server)["thread_id"]
    record = asyncio.run(server.threads.get(tid))
    assert record is not None
    record["metadata"]["x"] = 1
    assert call_json(server, "GET", f"/threads/{tid}")[1]["metadata"] == {}


class Nested(TypedDict):
    """The copied graph's state."""

    steps: list[str]


def _nested_server() -> AgentServer:
    """A server over a graph whose subgraph node asks a question."""

    def check(state: Nested) -> dict[str, Any]:
        return {"steps": [*state["steps"], f"ok:{interrupt('approve?')}"]}

    inner = StateGraph(Nested).add_node("check", check).add_edge(START, "check").compile()
    outer = (
        StateGraph(Nested)
        .add_node("first", lambda state: {"steps": [*state["steps"], "first"]})
        .add_node("child", inner)
        .add_edge(START, "first")
        .add_edge("first", "child")
        .compile()
    )
    return AgentServer({"nested": outer})


def _without_thread(state: Any, tid: str) -> str:
    return json.dumps(state, sort_keys=True).replace(tid, "<thread>")


def test_copy_gives_a_new_thread_with_the_same_checkpoints() -> None:
    """``POST /threads/{id}/copy`` makes an idle thread with the metadata and checkpoints
    (subgraphs' too) of the original; resuming the copy leaves the original paused."""
    server = _nested_server()
    tid = _create(server, metadata={"user": "u1"})["thread_id"]
    body = {"assistant_id": "nested", "input": {"steps": []}}
    assert call_json(server, "POST", f"/threads/{tid}/runs/wait", body)[0] == 200
    status, copied = call_json(server, "POST", f"/threads/{tid}/copy")
    assert status == 200
    new = copied["thread_id"]
    assert new != tid
    assert copied == {
        "thread_id": new,
        "created_at": copied["created_at"],
        "updated_at": copied["created_at"],
        "state_updated_at": copied["created_at"],
        "metadata": {
            "user": "u1",
            "graph_id": "nested",
            "assistant_id": copied["metadata"]["assistant_id"],
        },
        "status": "idle",
        "config": {},
    }
    for path in ("/state?subgraphs=true", "/history"):
        method = "GET" if path.startswith("/state") else "POST"
        original = call(server, method, f"/threads/{tid}{path}", {} if method == "POST" else None)
        twin = call(server, method, f"/threads/{new}{path}", {} if method == "POST" else None)
        assert isinstance(original.body, bytes)
        assert isinstance(twin.body, bytes)
        assert _without_thread(json.loads(twin.body), new) == _without_thread(
            json.loads(original.body), tid
        )
    resume = {"assistant_id": "nested", "command": {"resume": "yes"}}
    assert call_json(server, "POST", f"/threads/{new}/runs/wait", resume) == (
        200,
        {"steps": ["first", "ok:yes"]},
    )
    _, state = call_json(server, "GET", f"/threads/{tid}/state")
    assert state["next"] == ["child"]


def test_copy_of_an_unknown_thread_is_a_conflict() -> None:
    """Copying a thread that does not exist answers 409, as the LangGraph Server does."""
    assert call_json(make_server(), "POST", f"/threads/{TID}/copy") == (409, {"detail": "Conflict"})


def test_patch_of_an_unknown_thread_is_not_found() -> None:
    """Patching a thread that does not exist answers 404 ``Not Found``, the server's words."""
    body = {"metadata": {"a": 1}}
    assert call_json(make_server(), "PATCH", f"/threads/{TID}", body) == (
        404,
        {"detail": "Not Found"},
    )


def test_prune_deletes_the_listed_threads_and_counts_them() -> None:
    """``POST /threads/prune`` deletes the listed threads that exist (checkpoints too) and
    answers how many; ``keep_latest`` is refused with 422."""
    server = make_server()
    kept, pruned = _create(server)["thread_id"], _create(server)["thread_id"]
    config: Any = {"configurable": {"thread_id": pruned}}
    asyncio.run(server.graphs["agent"].ainvoke({"count": 1}, config))
    body = {"thread_ids": [pruned, TID], "strategy": "delete"}
    assert call_json(server, "POST", "/threads/prune", body) == (200, {"pruned_count": 1})
    assert call_json(server, "GET", f"/threads/{pruned}")[0] == 404
    assert call_json(server, "GET", f"/threads/{kept}")[0] == 200
    assert asyncio.run(server.graphs["agent"].aget_state(config)).values == {}
    keep = {"thread_ids": [kept], "strategy": "keep_latest"}
    assert call_json(server, "POST", "/threads/prune", keep) == (
        422,
        {"detail": "keep_latest strategy is not supported by this server"},
    )
