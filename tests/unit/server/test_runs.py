"""Runs through AgentServer.handle: stream, stateless, wait, list and get, with their records."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import interrupt
from pyctx_web.server import AgentServer, Request, Response
from pyctx_web.server.sse import id_key


class Counter(TypedDict):
    """The state of the counting graph."""

    count: int


def _add(state: Counter) -> dict[str, Any]:
    return {"count": state["count"] + 1}


def counter_graph() -> CompiledStateGraph:
    return StateGraph(Counter).add_node("add", _add).add_edge(START, "add").compile()


class Steps(TypedDict):
    """The state of the test graphs that ask or fail."""

    steps: list[str]


def _graph(node: Any) -> CompiledStateGraph:
    return StateGraph(Steps).add_node("node", node).add_edge(START, "node").compile()


def _ask(state: Steps) -> dict[str, Any]:
    return {"steps": [*state["steps"], f"answer:{interrupt('ok?')}"]}


def _broken(state: Steps) -> dict[str, Any]:
    raise ValueError("broken here")


async def _stuck(state: Steps) -> dict[str, Any]:
    get_stream_writer()("started")
    await asyncio.Event().wait()  # until the run is cancelled
    return {"steps": ["never"]}


def _server() -> AgentServer:
    graphs = {"agent": counter_graph(), "ask": _graph(_ask), "fails": _graph(_broken)}
    return AgentServer({**graphs, "stuck": _graph(_stuck)})


async def _send(server: AgentServer, method: str, path: str, body: Any = None) -> Response:
    data = b"" if body is None else json.dumps(body).encode()
    return await server.handle(Request(method, path, {}, {}, data))


async def _json(server: AgentServer, method: str, path: str, body: Any = None) -> Any:
    response = await _send(server, method, path, body)
    assert isinstance(response.body, bytes)
    return response.status, json.loads(response.body)


def _parse(raw: bytes) -> list[dict[str, Any]]:
    """SSE events as {event, data, id?} dicts (heartbeat comments left out)."""
    events = []
    for block in raw.decode().split("\r\n\r\n"):
        fields = dict(
            line.split(": ", 1) for line in block.split("\r\n") if line and line[0] != ":"
        )
        if fields:
            events.append({**fields, "data": json.loads(fields["data"])})
    return events


async def _stream(
    server: AgentServer, path: str, body: Any
) -> tuple[Response, list[dict[str, Any]]]:
    response = await _send(server, "POST", path, body)
    assert isinstance(response.body, AsyncIterator)
    raw = b"".join([chunk async for chunk in response.body])
    return response, _parse(raw)


async def _thread(server: AgentServer) -> str:
    return str((await _json(server, "POST", "/threads", {}))[1]["thread_id"])


def test_stream_a_thread_run() -> None:
    """A streamed run answers SSE naming the run in its headers; run and thread record the end."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        body = {
            "assistant_id": "agent",
            "input": {"count": 1},
            "stream_mode": ["values", "updates"],
        }
        response, events = await _stream(server, f"/threads/{tid}/runs/stream", body)
        rid = events[0]["data"]["run_id"]
        assert response.status == 200
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert response.headers["content-location"] == f"/threads/{tid}/runs/{rid}"
        assert response.headers["location"] == f"/threads/{tid}/runs/{rid}/stream"
        assert [(e["event"], e["data"]) for e in events] == [
            ("metadata", {"run_id": rid, "attempt": 1}),
            ("values", {"count": 1}),
            ("updates", {"add": {"count": 2}}),
            ("values", {"count": 2}),
        ]
        assert all("id" not in e for e in events)
        status, run = await _json(server, "GET", f"/threads/{tid}/runs/{rid}")
        assert (status, run["status"], run["thread_id"]) == (200, "success", tid)
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert (thread["status"], thread["values"], thread["error"]) == ("idle", {"count": 2}, None)
        assert thread["metadata"]["graph_id"] == "agent"

    asyncio.run(main())


def test_resumable_runs_have_increasing_ids() -> None:
    """A stream_resumable run's events carry strictly increasing ms-seq ids."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        body = {"assistant_id": "agent", "input": {"count": 0}, "stream_resumable": True}
        _, events = await _stream(server, f"/threads/{tid}/runs/stream", body)
        keys = [id_key(e["id"]) for e in events]
        assert len(keys) == 3
        assert keys == sorted(set(keys))

    asyncio.run(main())


def test_interrupt_then_resume() -> None:
    """A run that pauses leaves its thread interrupted with its interrupts; a resume ends idle."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        path = f"/threads/{tid}/runs/stream"
        _, events = await _stream(server, path, {"assistant_id": "ask", "input": {"steps": []}})
        [pending] = events[-1]["data"]["__interrupt__"]
        _, run = await _json(server, "GET", f"/threads/{tid}/runs/{events[0]['data']['run_id']}")
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert (run["status"], thread["status"]) == ("success", "interrupted")
        assert list(thread["interrupts"].values()) == [[{"id": pending["id"], "value": "ok?"}]]
        body = {"assistant_id": "ask", "command": {"resume": "yes"}}
        _, events = await _stream(server, path, body)
        assert events[-1]["data"] == {"steps": ["answer:yes"]}
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert (thread["status"], thread["interrupts"]) == ("idle", {})

    asyncio.run(main())


def test_a_graph_that_raises() -> None:
    """A graph's exception ends the stream with an error event; run and thread record it."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        body = {"assistant_id": "fails", "input": {"steps": []}}
        _, events = await _stream(server, f"/threads/{tid}/runs/stream", body)
        assert events[-1]["event"] == "error"
        assert events[-1]["data"] == {"error": "ValueError", "message": "broken here"}
        _, runs = await _json(server, "GET", f"/threads/{tid}/runs")
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert ([r["status"] for r in runs], thread["status"]) == (["error"], "error")
        assert thread["error"] == {"error": "ValueError", "message": "broken here"}

    asyncio.run(main())


def test_refusals_come_before_any_event() -> None:
    """An unknown thread, assistant or stream mode, or no assistant_id, gets a JSON error."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        unknown = "00000000-0000-0000-0000-000000000001"
        path = f"/threads/{tid}/runs/stream"
        assert await _json(
            server, "POST", f"/threads/{unknown}/runs/stream", {"assistant_id": "agent"}
        ) == (
            404,
            {"detail": "Thread or assistant not found."},
        )
        assert (await _json(server, "POST", path, {"assistant_id": "nope"}))[0] == 422
        assert await _json(server, "POST", path, {"assistant_id": "agent", "stream_mode": "x"}) == (
            422,
            {
                "detail": "unknown stream_mode 'x'; expected one of checkpoints, custom, debug, "
                "messages, messages-tuple, tasks, updates, values"
            },
        )
        assert await _json(server, "POST", path, {}) == (
            422,
            {"detail": "Invalid run: assistant_id is required"},
        )
        assert await _json(server, "GET", f"/threads/{tid}/runs/{unknown}") == (
            404,
            {"detail": "Not Found"},
        )

    asyncio.run(main())


def test_a_busy_thread_refuses_a_second_run() -> None:
    """While a run streams on a thread, another run on it with the reject strategy gets 409."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        path = f"/threads/{tid}/runs/stream"
        response = await _send(
            server, "POST", path, {"assistant_id": "agent", "input": {"count": 0}}
        )
        assert isinstance(response.body, AsyncIterator)
        first = await anext(response.body)
        assert first.startswith(b"event: metadata")
        second = {"assistant_id": "agent", "multitask_strategy": "reject"}
        assert await _json(server, "POST", path, second) == (
            409,
            {
                "detail": "Thread is already running a task. Wait for it to finish or choose"
                " a different multitask strategy."
            },
        )
        rest = b"".join([chunk async for chunk in response.body])
        assert _parse(rest)[-1]["data"] == {"count": 1}

    asyncio.run(main())


def test_stateless_run_leaves_no_thread() -> None:
    """POST /runs/stream runs on a thread of its own, named in /runs/ headers and gone after."""

    async def main() -> None:
        server = _server()
        body = {"assistant_id": "agent", "input": {"count": 5}}
        response, events = await _stream(server, "/runs/stream", body)
        rid = events[0]["data"]["run_id"]
        assert response.headers["content-location"] == f"/runs/{rid}"
        assert events[-1]["data"] == {"count": 6}
        assert await _json(server, "POST", "/threads/count", {}) == (200, 0)

    asyncio.run(main())


def test_wait_answers_the_last_values() -> None:
    """runs/wait answers the run's last values, or __error__ when the graph raised."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        response = await _send(
            server,
            "POST",
            f"/threads/{tid}/runs/wait",
            {"assistant_id": "agent", "input": {"count": 2}},
        )
        assert isinstance(response.body, bytes)
        assert (response.status, json.loads(response.body)) == (200, {"count": 3})
        assert response.headers["location"].endswith("/join")
        assert await _json(
            server, "POST", "/runs/wait", {"assistant_id": "fails", "input": {"steps": []}}
        ) == (
            200,
            {"__error__": {"error": "ValueError", "message": "broken here"}},
        )

    asyncio.run(main())


def test_list_runs_newest_first() -> None:
    """GET /threads/{tid}/runs lists its runs newest first, filtered by status and paged."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        for count in (1, 2):
            await _send(
                server,
                "POST",
                f"/threads/{tid}/runs/wait",
                {"assistant_id": "agent", "input": {"count": count}},
            )
        _, runs = await _json(server, "GET", f"/threads/{tid}/runs")
        assert [r["kwargs"]["input"] for r in runs] == [{"count": 2}, {"count": 1}]
        response = await server.handle(
            Request("GET", f"/threads/{tid}/runs", {"limit": ["1"], "status": ["error"]})
        )
        assert isinstance(response.body, bytes)
        assert json.loads(response.body) == []

    asyncio.run(main())


def test_a_client_that_leaves_cancels_the_run() -> None:
    """With on_disconnect cancel, closing the stream mid-run cancels it: both end interrupted."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        body = {
            "assistant_id": "stuck",
            "input": {"steps": []},
            "stream_mode": ["custom"],
            "on_disconnect": "cancel",
        }
        response = await _send(server, "POST", f"/threads/{tid}/runs/stream", body)
        assert isinstance(response.body, AsyncGenerator)
        assert (await anext(response.body)).startswith(b"event: metadata")
        assert (await anext(response.body)).startswith(b'event: custom\r\ndata: "started"')
        await response.body.aclose()
        rid = response.headers["content-location"].rsplit("/", 1)[1]
        await _send(server, "GET", f"/threads/{tid}/runs/{rid}/join")
        _, runs = await _json(server, "GET", f"/threads/{tid}/runs")
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert ([r["status"] for r in runs], thread["status"]) == (["interrupted"], "interrupted")

    asyncio.run(main())


def test_a_run_from_an_earlier_checkpoint_branches() -> None:
    """A run given an earlier checkpoint runs from there: the thread's values are the branch's."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        path = f"/threads/{tid}/runs/stream"
        for count in (1, 10):
            await _stream(server, path, {"assistant_id": "agent", "input": {"count": count}})
        config = {"configurable": {"thread_id": tid}}
        history = [s async for s in server.graphs["agent"].aget_state_history(config)]
        [earlier] = [s for s in history if s.values == {"count": 1}]
        checkpoint = {**earlier.config["configurable"], "thread_id": None}
        body = {"assistant_id": "agent", "checkpoint": checkpoint}
        _, events = await _stream(server, path, body)
        assert [e["data"] for e in events[1:]] == [{"count": 1}, {"count": 2}]
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert thread["values"] == {"count": 2}

    asyncio.run(main())


def test_interrupt_before_pauses_then_a_null_input_continues() -> None:
    """A run's interrupt_before pauses at the node (thread interrupted); input null continues."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        path = f"/threads/{tid}/runs/stream"
        body = {
            "assistant_id": "agent",
            "input": {"count": 7},
            "interrupt_before": ["add"],
            "stream_mode": ["values", "updates"],
        }
        _, events = await _stream(server, path, body)
        assert [(e["event"], e["data"]) for e in events[1:]] == [
            ("values", {"count": 7}),
            ("updates", {"__interrupt__": []}),
        ]
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert (thread["status"], thread["interrupts"]) == ("interrupted", {})
        _, events = await _stream(server, path, {"assistant_id": "agent", "input": None})
        assert events[-1]["data"] == {"count": 8}
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert thread["status"] == "idle"

    asyncio.run(main())


def test_run_metadata_merges_assistant_thread_and_body() -> None:
    """A run's metadata merges the assistant's, the thread's and the body's, naming the graph."""

    async def main() -> None:
        server = _server()
        _, thread = await _json(server, "POST", "/threads", {"metadata": {"flow": "x"}})
        tid = thread["thread_id"]
        body = {"assistant_id": "agent", "input": {"count": 0}, "metadata": {"k": 1}}
        _, events = await _stream(server, f"/threads/{tid}/runs/stream", body)
        _, run = await _json(server, "GET", f"/threads/{tid}/runs/{events[0]['data']['run_id']}")
        assert run["metadata"] == {
            "created_by": "system",
            "flow": "x",
            "graph_id": "agent",
            "k": 1,
            "assistant_id": run["assistant_id"],
        }

    asyncio.run(main())


def test_a_thread_deleted_during_its_run() -> None:
    """A thread deleted while its run streams ends the stream cleanly; the run has ended."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        body = {"assistant_id": "agent", "input": {"count": 0}}
        response = await _send(server, "POST", f"/threads/{tid}/runs/stream", body)
        assert isinstance(response.body, AsyncIterator)
        first = await anext(response.body)
        assert (await _send(server, "DELETE", f"/threads/{tid}")).status == 204
        rest = b"".join([chunk async for chunk in response.body])
        assert _parse(first + rest)[0]["event"] == "metadata"
        rid = response.headers["content-location"].rsplit("/", 1)[1]
        record = await server.runs.get(rid)
        assert record is None or record["status"] not in ("pending", "running")
        assert (await _send(server, "GET", f"/threads/{tid}")).status == 404

    asyncio.run(main())


class Ctx(TypedDict):
    """The context of the greeting graph."""

    name: str


def test_a_run_passes_its_context_to_the_nodes() -> None:
    """A run's context reaches its nodes as runtime.context and as configurable values."""

    def greet(state: Steps, runtime: Runtime[Ctx], config: dict[str, Any]) -> dict[str, Any]:
        return {"steps": [f"hello {runtime.context['name']} {config['configurable']['name']}"]}

    builder = StateGraph(Steps, context_schema=Ctx).add_node("greet", greet)
    server = AgentServer({"greet": builder.add_edge(START, "greet").compile()})

    async def main() -> None:
        tid = await _thread(server)
        body = {"assistant_id": "greet", "input": {"steps": []}, "context": {"name": "Ada"}}
        _, events = await _stream(server, f"/threads/{tid}/runs/stream", body)
        assert events[-1]["data"] == {"steps": ["hello Ada Ada"]}

    asyncio.run(main())


def test_a_run_given_context_and_configurable_is_400() -> None:
    """A body with both context and config.configurable is refused with the server's 400."""

    async def main() -> None:
        server = _server()
        tid = await _thread(server)
        body = {
            "assistant_id": "agent",
            "context": {"name": "Ada"},
            "config": {"configurable": {"tag": "t1"}},
        }
        assert await _json(server, "POST", f"/threads/{tid}/runs/stream", body) == (
            400,
            {
                "detail": "Cannot specify both configurable and context. Prefer setting context"
                " alone. Context was introduced in LangGraph 0.6.0 and is the long term planned"
                " replacement for configurable."
            },
        )

    asyncio.run(main())


def test_a_stateless_resume_is_400() -> None:
    """A stateless run cannot resume: 400 with the server's words."""

    async def main() -> None:
        server = _server()
        body = {"assistant_id": "agent", "command": {"resume": "yes"}}
        assert await _json(server, "POST", "/runs/wait", body) == (
            400,
            {"detail": "You must provide a thread_id when resuming."},
        )

    asyncio.run(main())


def test_if_not_exists_create_makes_the_thread_of_the_run() -> None:
    """A run on an unknown thread with if_not_exists create makes the thread, with its metadata."""

    async def main() -> None:
        server = _server()
        tid = "00000000-0000-0000-0000-000000000002"
        body = {
            "assistant_id": "agent",
            "input": {"count": 1},
            "if_not_exists": "create",
            "metadata": {"by": "test"},
        }
        assert await _json(server, "POST", f"/threads/{tid}/runs/wait", body) == (
            200,
            {"count": 2},
        )
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert thread["metadata"]["by"] == "test"
        assert thread["metadata"]["graph_id"] == "agent"
        assert await _json(server, "POST", "/threads/nope/runs/wait", body) == (
            422,
            {"detail": "Invalid thread ID"},
        )
        invalid = {**body, "if_not_exists": "bogus"}
        schema = '["components"]["schemas"]["RunCreateStateful"]["properties"]["if_not_exists"]'
        assert await _json(server, "POST", f"/threads/{tid}/runs/wait", invalid) == (
            422,
            {
                "detail": '"bogus" is not one of "create" or "reject"\n\n'
                f'Failed validating "enum" in schema{schema}\n\n'
                'On instance["if_not_exists"]:\n    "bogus"'
            },
        )

    asyncio.run(main())
