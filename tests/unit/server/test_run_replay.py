"""Resumable runs, Last-Event-ID replay, on_disconnect, durability and run body checks."""

from __future__ import annotations

import asyncio
import json
import operator
from typing import Annotated, Any, TypedDict

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.types import interrupt
from pyctx_web.server import AgentServer
from pyctx_web.server.run_exec import active_runs
from tests.unit.server.test_run_background import (
    Steps,
    _create,
    _events,
    _gated,
    _json,
    _read,
    _send,
    _server,
    _settle,
    _status,
    _thread,
)


class Log(TypedDict):
    """A state whose list several nodes of one step add to."""

    steps: Annotated[list[str], operator.add]


async def _stream_start(
    server: AgentServer, tid: str, **extra: Any
) -> tuple[str, Any, list[bytes]]:
    """A streamed run of the gated graph, read up to its first update (the first step committed)."""
    body = {"assistant_id": "gated", "input": {"steps": []}, "stream_mode": ["updates"], **extra}
    response = await _send(server, "POST", f"/threads/{tid}/runs/stream", body)
    assert not isinstance(response.body, bytes)
    rid = response.headers["content-location"].rsplit("/", 1)[1]
    chunks = [await anext(response.body), await anext(response.body)]
    return rid, response.body, chunks


def test_a_resumable_run_replays_after_last_event_id_then_goes_on_live() -> None:
    """A client that left a resumable run rejoins with Last-Event-ID: events after it, then live."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        rid, body, chunks = await _stream_start(server, tid, stream_resumable=True)
        await body.aclose()  # the client leaves; by default the run goes on
        first = _events(b"".join(chunks))
        assert [name for name, _, _ in first] == ["metadata", "updates"]
        path = f"/threads/{tid}/runs/{rid}/stream"
        last = first[0][2]
        assert last is not None
        rejoined = await _send(server, "GET", path, headers={"last-event-id": last})
        reader = asyncio.ensure_future(_read(rejoined))
        await _settle()
        gate.set()
        events = await reader
        assert [(name, data) for name, data, _ in events] == [
            ("updates", {"first": {"steps": ["first"]}}),
            ("updates", {"gated": {"steps": ["first", "gated"]}}),
        ]
        assert events[0][2] == first[1][2]
        assert await _status(server, tid, rid) == "success"
        everything = await _read(await _send(server, "GET", path, headers={"last-event-id": "-1"}))
        assert [name for name, _, _ in everything] == ["metadata", "updates", "updates"]
        assert await _read(await _send(server, "GET", path)) == []

    asyncio.run(main())


def test_a_run_not_resumable_replays_nothing() -> None:
    """Last-Event-ID -1 on an ended run that was not resumable gives no event: none was kept."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        tid = await _thread(server)
        run = await _create(server, tid, [])
        await _send(server, "GET", f"/threads/{tid}/runs/{run['run_id']}/join")
        path = f"/threads/{tid}/runs/{run['run_id']}/stream"
        assert await _read(await _send(server, "GET", path, headers={"last-event-id": "-1"})) == []

    asyncio.run(main())


def test_a_resumable_run_keeps_its_events_but_not_its_error() -> None:
    """The event log keeps a resumable run's metadata and mode events, not its error event."""

    def broken(state: Steps) -> dict[str, Any]:
        raise ValueError("broken")

    async def main() -> None:
        graph = StateGraph(Steps).add_node("broken", broken).add_edge(START, "broken").compile()
        server = AgentServer({"broken": graph})
        tid = await _thread(server)
        body = {"assistant_id": "broken", "input": {"steps": []}, "stream_resumable": True}
        response = await _send(server, "POST", f"/threads/{tid}/runs/stream", body)
        rid = response.headers["content-location"].rsplit("/", 1)[1]
        sent = await _read(response)
        assert [name for name, _, _ in sent] == ["metadata", "values", "error"]
        kept = await server.events.after(rid, None)
        assert [(event_id, name) for event_id, name, _ in kept] == [
            (event_id, name) for name, _, event_id in sent[:2]
        ]
        assert json.loads(kept[1][2]) == {"steps": []}

    asyncio.run(main())


def test_join_stream_of_an_unknown_run_sends_an_error_event() -> None:
    """Joining the stream of a run the thread never had sends one error event, as the server."""

    async def main() -> None:
        server = _server(asyncio.Event())
        tid = await _thread(server)
        path = f"/threads/{tid}/runs/00000000-0000-0000-0000-000000000000/stream"
        assert await _read(await _send(server, "GET", path)) == [
            ("error", {"error": "HTTPException", "message": "404: Run not found"}, None)
        ]

    asyncio.run(main())


def test_join_stream_narrowed_by_stream_mode() -> None:
    """A stream_mode query keeps only the events of those modes in a replay."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        tid = await _thread(server)
        run = await _create(
            server, tid, [], stream_mode=["values", "updates"], stream_resumable=True
        )
        await _send(server, "GET", f"/threads/{tid}/runs/{run['run_id']}/join")
        path = f"/threads/{tid}/runs/{run['run_id']}/stream"
        response = await _send(
            server, "GET", path, headers={"last-event-id": "-1"}, stream_mode="updates"
        )
        assert [name for name, _, _ in await _read(response)] == ["updates", "updates"]

    asyncio.run(main())


def test_on_disconnect_cancel_ends_the_run_when_its_client_leaves() -> None:
    """With on_disconnect cancel a client that leaves cancels the run; by default it goes on."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        rid, body, _ = await _stream_start(server, tid, on_disconnect="cancel")
        await body.aclose()
        await _send(server, "GET", f"/threads/{tid}/runs/{rid}/join")
        assert await _status(server, tid, rid) == "interrupted"
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        message = "client disconnected from the run stream (on_disconnect=cancel)"
        assert thread["error"] == {"error": "UserInterrupt", "message": message}
        rid, body, _ = await _stream_start(server, tid)
        await body.aclose()
        await _settle()
        assert await _status(server, tid, rid) == "running"
        gate.set()
        await _send(server, "GET", f"/threads/{tid}/runs/{rid}/join")
        assert await _status(server, tid, rid) == "success"

    asyncio.run(main())


_SCHEMA = '["components"]["schemas"]["RunCreateStateful"]'


@pytest.mark.parametrize(
    ("path", "field", "detail"),
    [
        (
            "runs/stream",
            {"multitask_strategy": "bogus"},
            '"bogus" is not one of "reject", "rollback" or 2 other candidates\n\n'
            f'Failed validating "enum" in schema{_SCHEMA}["properties"]["multitask_strategy"]'
            '\n\nOn instance["multitask_strategy"]:\n    "bogus"',
        ),
        (
            "runs",
            {"durability": "bogus"},
            '"bogus" is not one of "sync", "async" or "exit"\n\n'
            'Failed validating "enum" in schema["properties"]["durability"]'
            '\n\nOn instance["durability"]:\n    "bogus"',
        ),
        (
            "runs/wait",
            {"on_disconnect": "bogus"},
            '"bogus" is not one of "cancel" or "continue"\n\n'
            'Failed validating "enum" in schema["allOf"][1]["properties"]["on_disconnect"]'
            '\n\nOn instance["on_disconnect"]:\n    "bogus"',
        ),
        (
            "runs/stream",
            {"stream_resumable": "x"},
            '"x" is not of type "boolean"\n\n'
            f'Failed validating "type" in schema{_SCHEMA}["properties"]["stream_resumable"]'
            '\n\nOn instance["stream_resumable"]:\n    "x"',
        ),
    ],
    ids=["multitask_strategy", "durability", "on_disconnect", "stream_resumable"],
)
def test_a_bad_run_option_is_422_worded_as_the_server(
    path: str, field: dict[str, Any], detail: str
) -> None:
    """multitask_strategy, durability, on_disconnect, stream_resumable are checked first (422)."""

    async def main() -> None:
        server = _server(asyncio.Event())
        tid = await _thread(server)
        body = {"assistant_id": "gated", "input": {"steps": []}, **field}
        assert await _json(server, "POST", f"/threads/{tid}/{path}", body) == (
            422,
            {"detail": detail},
        )
        assert active_runs(server) == {}

    asyncio.run(main())


def test_durability_exit_writes_only_the_last_checkpoint_of_the_run() -> None:
    """durability reaches the graph: exit keeps fewer checkpoints than sync for the same run."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        counts = {}
        for durability in ("sync", "exit"):
            server = AgentServer({"gated": _gated(gate)})
            tid = await _thread(server)
            body = {"assistant_id": "gated", "input": {"steps": []}, "durability": durability}
            assert (await _json(server, "POST", f"/threads/{tid}/runs/wait", body))[0] == 200
            _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
            counts[durability] = len(history)
        assert counts["exit"] < counts["sync"]

    asyncio.run(main())


def test_a_resume_map_answers_several_interrupts_by_id() -> None:
    """command.resume as {interrupt id: value} resumes two interrupts raised in one step."""

    def ask(name: str) -> Any:
        def node(state: Log) -> dict[str, Any]:
            return {"steps": [f"{name}={interrupt(name)}"]}

        return node

    async def main() -> None:
        builder = StateGraph(Log).add_node("a", ask("a")).add_node("b", ask("b"))
        graph = builder.add_edge(START, "a").add_edge(START, "b").compile()
        server = AgentServer({"two": graph})
        tid = await _thread(server)
        start = {"assistant_id": "two", "input": {"steps": []}}
        await _json(server, "POST", f"/threads/{tid}/runs/wait", start)
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        asked = {i["value"]: i["id"] for found in thread["interrupts"].values() for i in found}
        resume = {asked["a"]: "one", asked["b"]: "two"}
        body = {"assistant_id": "two", "command": {"resume": resume}}
        status, values = await _json(server, "POST", f"/threads/{tid}/runs/wait", body)
        assert status == 200
        assert sorted(values["steps"]) == ["a=one", "b=two"]

    asyncio.run(main())


def test_two_interrupts_of_one_step_stream_as_one_update_and_values_each() -> None:
    """Interrupts raised in one step come as an updates then a values event per interrupt."""

    def ask_a(state: Log) -> dict[str, Any]:
        return {"steps": [f"a={interrupt('a')}"]}

    async def ask_b(state: Log) -> dict[str, Any]:
        await asyncio.sleep(0.01)  # b asks once a has asked, as parallel nodes may
        return {"steps": [f"b={interrupt('b')}"]}

    async def main() -> None:
        builder = StateGraph(Log).add_node("a", ask_a).add_node("b", ask_b)
        graph = builder.add_edge(START, "a").add_edge(START, "b").compile()
        server = AgentServer({"two": graph})
        tid = await _thread(server)
        body = {"assistant_id": "two", "input": {"steps": []}, "stream_mode": ["updates", "values"]}
        events = await _read(await _send(server, "POST", f"/threads/{tid}/runs/stream", body))
        shown = [
            (name, [i["value"] for i in data.get("__interrupt__", [])])
            for name, data, _ in events[1:]
        ]
        assert shown == [
            ("values", []),
            ("updates", ["a"]),
            ("values", ["a"]),
            ("updates", ["b"]),
            ("values", ["b"]),
        ]

    asyncio.run(main())
