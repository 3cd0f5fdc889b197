"""Background runs, multitask strategies and cancels through AgentServer.handle, on one loop."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.message import add_messages
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server import AgentServer, Request, Response
from pyctx_web.server.run_exec import active_runs


class Steps(TypedDict):
    """The state of the test graphs."""

    steps: list[str]


def _gated(gate: asyncio.Event) -> CompiledStateGraph:
    """``first`` appends at once; ``gated`` appends once ``gate`` is set."""

    def first(state: Steps) -> dict[str, Any]:
        return {"steps": [*state["steps"], "first"]}

    async def gated(state: Steps) -> dict[str, Any]:
        await gate.wait()
        return {"steps": [*state["steps"], "gated"]}

    builder = StateGraph(Steps).add_node("first", first).add_node("gated", gated)
    return builder.add_edge(START, "first").add_edge("first", "gated").compile()


def _server(gate: asyncio.Event) -> AgentServer:
    return AgentServer({"gated": _gated(gate)})


async def _send(
    server: AgentServer,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    **query: str,
) -> Response:
    data = b"" if body is None else json.dumps(body).encode()
    params = {name: [value] for name, value in query.items()}
    return await server.handle(Request(method, path, params, headers or {}, data))


async def _json(server: AgentServer, method: str, path: str, body: Any = None) -> Any:
    response = await _send(server, method, path, body)
    assert isinstance(response.body, bytes)
    return response.status, json.loads(response.body) if response.body else None


async def _thread(server: AgentServer) -> str:
    thread_id: str = (await _json(server, "POST", "/threads", {}))[1]["thread_id"]
    return thread_id


async def _create(server: AgentServer, tid: str, steps: list[str], **extra: Any) -> dict[str, Any]:
    body = {"assistant_id": "gated", "input": {"steps": steps}, **extra}
    status, record = await _json(server, "POST", f"/threads/{tid}/runs", body)
    assert status == 200, record
    return dict(record)


async def _settle() -> None:
    """Let the runs' tasks take every step they can take now."""
    for _ in range(20):
        await asyncio.sleep(0)


async def _drain(server: AgentServer, gate: asyncio.Event) -> None:
    """Open the gate and wait for every run to end (none is left to the loop's shutdown)."""
    gate.set()
    for run in list(active_runs(server).values()):
        await run.done.wait()


async def _status(server: AgentServer, tid: str, rid: str) -> Any:
    status, record = await _json(server, "GET", f"/threads/{tid}/runs/{rid}")
    return record["status"] if status == 200 else status


def _events(raw: bytes) -> list[tuple[str, Any, str | None]]:
    """SSE events as (name, data, id) (heartbeats left out)."""
    found = []
    for block in raw.decode().split("\r\n\r\n"):
        fields = dict(
            line.split(": ", 1) for line in block.split("\r\n") if line and line[0] != ":"
        )
        if fields:
            found.append((fields["event"], json.loads(fields["data"]), fields.get("id")))
    return found


async def _read(response: Response) -> list[tuple[str, Any, str | None]]:
    if isinstance(response.body, bytes):
        return _events(response.body)
    return _events(b"".join([chunk async for chunk in response.body]))


def test_a_background_run_answers_its_pending_record_then_runs() -> None:
    """POST /threads/{tid}/runs answers the pending record at once; the run then goes on alone."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        response = await _send(
            server,
            "POST",
            f"/threads/{tid}/runs",
            {"assistant_id": "gated", "input": {"steps": []}},
        )
        assert isinstance(response.body, bytes)
        record = json.loads(response.body)
        rid = record["run_id"]
        assert (response.status, record["status"], record["multitask_strategy"]) == (
            200,
            "pending",
            "enqueue",
        )
        assert response.headers["content-location"] == f"/threads/{tid}/runs/{rid}"
        await _settle()
        assert await _status(server, tid, rid) == "running"
        assert (await _json(server, "GET", f"/threads/{tid}"))[1]["status"] == "busy"
        gate.set()
        join = f"/threads/{tid}/runs/{rid}/join"
        assert await _json(server, "GET", join) == (200, {"steps": ["first", "gated"]})
        assert await _status(server, tid, rid) == "success"

    asyncio.run(main())


def test_a_stateless_background_run_runs_on_a_thread_it_then_deletes() -> None:
    """POST /runs answers the pending record named under /runs/; its thread is gone once it ends."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        body = {"assistant_id": "gated", "input": {"steps": []}}
        response = await _send(server, "POST", "/runs", body)
        assert isinstance(response.body, bytes)
        record = json.loads(response.body)
        assert (response.status, record["status"]) == (200, "pending")
        assert response.headers["content-location"] == f"/runs/{record['run_id']}"
        await active_runs(server)[record["run_id"]].done.wait()
        assert (await _send(server, "GET", f"/threads/{record['thread_id']}")).status == 404

    asyncio.run(main())


def test_enqueue_starts_the_new_run_when_the_current_one_ends() -> None:
    """By default a run on a busy thread waits, pending, then runs on the state the first left."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        first = await _create(server, tid, [])
        await _settle()
        second = await _create(server, tid, ["again"])
        await _settle()
        assert await _status(server, tid, second["run_id"]) == "pending"
        gate.set()
        join = f"/threads/{tid}/runs/{second['run_id']}/join"
        assert await _json(server, "GET", join) == (200, {"steps": ["again", "first", "gated"]})
        assert await _status(server, tid, first["run_id"]) == "success"
        assert (await _json(server, "GET", f"/threads/{tid}"))[1]["status"] == "idle"

    asyncio.run(main())


def test_reject_refuses_a_run_on_a_busy_thread() -> None:
    """multitask_strategy reject on a busy thread answers 409 with the server's whole message."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        await _create(server, tid, [])
        body = {"assistant_id": "gated", "multitask_strategy": "reject"}
        assert await _json(server, "POST", f"/threads/{tid}/runs", body) == (
            409,
            {
                "detail": "Thread is already running a task. Wait for it to finish or choose"
                " a different multitask strategy."
            },
        )
        await _drain(server, gate)

    asyncio.run(main())


def test_interrupt_ends_the_current_run_keeping_its_steps() -> None:
    """multitask_strategy interrupt: the running run ends interrupted, its first step kept."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        first = await _create(server, tid, [])
        await _settle()
        second = await _create(server, tid, [], multitask_strategy="interrupt")
        await _settle()
        assert await _status(server, tid, first["run_id"]) == "interrupted"
        gate.set()
        join = f"/threads/{tid}/runs/{second['run_id']}/join"
        assert await _json(server, "GET", join) == (200, {"steps": ["first", "gated"]})
        _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
        run_ids = {state["metadata"]["run_id"] for state in history}
        assert run_ids == {first["run_id"], second["run_id"]}

    asyncio.run(main())


def test_rollback_deletes_the_current_run_and_its_checkpoints() -> None:
    """multitask_strategy rollback: the running run is deleted (404), its checkpoints too."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        first = await _create(server, tid, ["old"])
        await _settle()
        second = await _create(server, tid, ["new"], multitask_strategy="rollback")
        gate.set()
        join = f"/threads/{tid}/runs/{second['run_id']}/join"
        assert await _json(server, "GET", join) == (200, {"steps": ["new", "first", "gated"]})
        assert await _status(server, tid, first["run_id"]) == 404
        _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
        assert {state["metadata"]["run_id"] for state in history} == {second["run_id"]}
        assert history[-1]["metadata"]["source"] == "input"

    asyncio.run(main())


def test_cancel_with_rollback_takes_the_thread_back_to_before_the_run() -> None:
    """A cancel with action=rollback deletes the run's checkpoints: the state before it is back."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        gate.set()
        done = await _create(server, tid, ["kept"])
        await _json(server, "GET", f"/threads/{tid}/runs/{done['run_id']}/join")
        gate.clear()
        run = await _create(server, tid, ["dropped"])
        await _settle()
        cancel = f"/threads/{tid}/runs/{run['run_id']}/cancel"
        response = await _send(server, "POST", cancel, wait="1", action="rollback")
        assert response.status == 200
        _, state = await _json(server, "GET", f"/threads/{tid}/state")
        assert state["values"] == {"steps": ["kept", "first", "gated"]}
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert (thread["status"], thread["values"]) == ("idle", state["values"])
        _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
        assert {s["metadata"]["run_id"] for s in history} == {done["run_id"]}

    asyncio.run(main())


def test_a_pending_run_cancelled_never_runs() -> None:
    """Cancelling an enqueued run ends it interrupted before it starts; the current run goes on."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        first = await _create(server, tid, [])
        second = await _create(server, tid, ["never"])
        cancel = f"/threads/{tid}/runs/{second['run_id']}/cancel"
        response = await _send(server, "POST", cancel)
        assert (response.status, response.body) == (202, b"")
        assert await _status(server, tid, second["run_id"]) == "interrupted"
        gate.set()
        join = f"/threads/{tid}/runs/{first['run_id']}/join"
        assert await _json(server, "GET", join) == (200, {"steps": ["first", "gated"]})
        await _settle()
        assert await _status(server, tid, second["run_id"]) == "interrupted"
        _, state = await _json(server, "GET", f"/threads/{tid}/state")
        assert state["values"] == {"steps": ["first", "gated"]}
        assert (await _json(server, "GET", f"/threads/{tid}"))[1]["status"] == "idle"

    asyncio.run(main())


def test_a_pending_run_rolled_back_is_deleted_at_once() -> None:
    """A rollback of an enqueued run nobody listens to deletes it; a second cancel finds no run."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        await _create(server, tid, [])
        second = await _create(server, tid, [])
        cancel = f"/threads/{tid}/runs/{second['run_id']}/cancel"
        assert (await _send(server, "POST", cancel, action="rollback")).status == 202
        assert await _status(server, tid, second["run_id"]) == 404
        assert await _json(server, "POST", cancel) == (404, {"detail": "No runs found to cancel."})
        await _drain(server, gate)

    asyncio.run(main())


def test_join_stream_sends_the_run_events_live() -> None:
    """GET .../runs/{rid}/stream sends the run's events from then on, no ids unless resumable."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        run = await _create(server, tid, [], stream_mode=["updates"])
        path = f"/threads/{tid}/runs/{run['run_id']}"
        response = await _send(server, "GET", f"{path}/stream")
        assert response.headers["content-location"] == path
        assert response.headers["location"] == f"{path}/stream"
        reader = asyncio.ensure_future(_read(response))
        await _settle()
        gate.set()
        events = await reader
        assert [(name, data) for name, data, _ in events] == [
            ("metadata", {"run_id": run["run_id"], "attempt": 1}),
            ("updates", {"first": {"steps": ["first"]}}),
            ("updates", {"gated": {"steps": ["first", "gated"]}}),
        ]
        assert all(event_id is None for _, _, event_id in events)

    asyncio.run(main())


def test_a_cancelled_run_leaves_its_reason_on_the_thread() -> None:
    """A cancel's thread error names it: UserInterrupt for interrupt, UserRollback for rollback."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        expected = {
            "interrupt": ("interrupted", "UserInterrupt"),
            "rollback": ("idle", "UserRollback"),
        }
        for action, (status, error) in expected.items():
            tid = await _thread(server)
            run = await _create(server, tid, [])
            await _settle()
            cancel = f"/threads/{tid}/runs/{run['run_id']}/cancel"
            assert (await _send(server, "POST", cancel, wait="1", action=action)).status == 200
            _, thread = await _json(server, "GET", f"/threads/{tid}")
            message = f"{action} requested via POST /threads/{{thread_id}}/runs/{{run_id}}/cancel"
            assert (thread["status"], thread["error"]) == (
                status,
                {"error": error, "message": message},
            )

    asyncio.run(main())


def test_a_run_record_keeps_its_request_as_the_server_does() -> None:
    """A run's kwargs hold its request with the server's defaults; running adds the run attempt."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        run = await _create(server, tid, ["x"], metadata={"by": "test"})
        assistant = run["assistant_id"]
        metadata = {"assistant_id": assistant, "by": "test", "created_by": "system"}
        metadata["graph_id"] = "gated"
        ids = {"run_id": run["run_id"], "thread_id": tid, "graph_id": "gated"}
        configurable = {"__after_seconds__": 0, "assistant_id": assistant, "user_id": "", **ids}
        assert (run["metadata"], run["langsmith_session_name"]) == (metadata, None)
        assert run["kwargs"] == {
            "input": {"steps": ["x"]},
            "command": None,
            "config": {"configurable": configurable, "metadata": metadata},
            "context": {},
            "stream_mode": ["values"],
            "interrupt_before": None,
            "interrupt_after": None,
            "webhook": None,
            "feedback_keys": None,
            "temporary": False,
            "subgraphs": False,
            "resumable": False,
            "checkpoint_during": True,
            "durability": "async",
        }
        await _drain(server, gate)
        _, ended = await _json(server, "GET", f"/threads/{tid}/runs/{run['run_id']}")
        config = ended["kwargs"]["config"]
        assert config["configurable"] == {**configurable, "__pregel_node_finished": None}
        assert config["metadata"] == {**metadata, "run_attempt": 1}

    asyncio.run(main())


def test_deleting_a_run_deletes_its_record_and_checkpoints() -> None:
    """DELETE /threads/{tid}/runs/{rid} answers 204; the run is then 404, its checkpoints gone."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        tid = await _thread(server)
        kept = await _create(server, tid, [])
        await _send(server, "GET", f"/threads/{tid}/runs/{kept['run_id']}/join")
        dropped = await _create(server, tid, [])
        path = f"/threads/{tid}/runs/{dropped['run_id']}"
        await _send(server, "GET", f"{path}/join")
        response = await _send(server, "DELETE", path)
        assert (response.status, response.body) == (204, b"")
        assert await _status(server, tid, dropped["run_id"]) == 404
        _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
        assert {s["metadata"]["run_id"] for s in history} == {kept["run_id"]}
        assert await _json(server, "DELETE", path) == (404, {"detail": "Run not found"})

    asyncio.run(main())


def test_a_stateless_wait_names_the_run_under_its_thread() -> None:
    """POST /runs/wait's Content-Location and Location name the run under its temporary thread."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        body = {"assistant_id": "gated", "input": {"steps": []}}
        response = await _send(server, "POST", "/runs/wait", body)
        path = response.headers["content-location"]
        assert path.startswith("/threads/")
        assert path.rsplit("/", 2)[1] == "runs"
        assert response.headers["location"] == f"{path}/join"

    asyncio.run(main())


def test_cancel_many_by_ids_or_by_status() -> None:
    """POST /runs/cancel ends the runs it names by thread and run ids, or all of a status: 204."""

    async def main() -> None:
        gate = asyncio.Event()
        server = _server(gate)
        tid = await _thread(server)
        first = await _create(server, tid, [])
        second = await _create(server, tid, [])
        await _settle()
        body = {"thread_id": tid, "run_ids": [second["run_id"]]}
        response = await _send(server, "POST", "/runs/cancel", body)
        assert (response.status, response.body) == (204, b"")
        assert await _status(server, tid, second["run_id"]) == "interrupted"
        assert await _status(server, tid, first["run_id"]) == "running"
        response = await _send(server, "POST", "/runs/cancel", {"status": "running"})
        assert response.status == 204
        await _drain(server, gate)
        assert await _status(server, tid, first["run_id"]) == "interrupted"
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        message = "interrupt requested via POST /runs/cancel"
        assert thread["error"] == {"error": "UserInterrupt", "message": message}
        both = {"status": "all", "thread_id": tid}
        assert await _json(server, "POST", "/runs/cancel", both) == (
            422,
            {
                "detail": "When providing a 'status', 'thread_id' and 'run_ids' must be omitted."
                " The 'status' parameter cancels all runs with the given status, regardless of"
                " thread or run ID."
            },
        )

    asyncio.run(main())


def test_a_stateless_run_that_keeps_its_thread() -> None:
    """A stateless run with on_completion keep leaves its thread, with the run's values."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        body = {"assistant_id": "gated", "input": {"steps": []}, "on_completion": "keep"}
        response = await _send(server, "POST", "/runs/wait", body)
        tid = response.headers["content-location"].split("/")[2]
        _, thread = await _json(server, "GET", f"/threads/{tid}")
        assert (thread["status"], thread["values"]) == ("idle", {"steps": ["first", "gated"]})

    asyncio.run(main())


class Chat(TypedDict):
    """A state of messages."""

    messages: Annotated[list[Any], add_messages]


def test_a_run_record_keeps_message_dicts_as_sent() -> None:
    """A message dict in a run's input stays in its record's kwargs as sent, after the run too."""

    def reply(state: Chat) -> dict[str, Any]:
        return {"messages": [{"role": "assistant", "content": "hello"}]}

    async def main() -> None:
        graph = StateGraph(Chat).add_node("reply", reply).add_edge(START, "reply").compile()
        server = AgentServer({"chat": graph})
        tid = await _thread(server)
        message = {"role": "user", "content": "hi", "id": "question"}
        body = {"assistant_id": "chat", "input": {"messages": [message]}}
        response = await _send(server, "POST", f"/threads/{tid}/runs/wait", body)
        path = response.headers["content-location"]
        _, record = await _json(server, "GET", path)
        assert record["kwargs"]["input"] == {"messages": [message]}

    asyncio.run(main())


def test_checkpoints_name_their_thread_and_the_checkpoint_a_branch_started_at() -> None:
    """A run's checkpoints carry thread_id in metadata; a run from a checkpoint, its id too."""

    async def main() -> None:
        gate = asyncio.Event()
        gate.set()
        server = _server(gate)
        tid = await _thread(server)
        body: dict[str, Any] = {"assistant_id": "gated", "input": {"steps": []}}
        await _json(server, "POST", f"/threads/{tid}/runs/wait", body)
        _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
        assert {state["metadata"]["thread_id"] for state in history} == {tid}
        source = history[-1]["checkpoint_id"]
        branch = {**body, "checkpoint": {"checkpoint_id": source}}
        response = await _send(server, "POST", f"/threads/{tid}/runs/wait", branch)
        rid = response.headers["content-location"].rsplit("/", 1)[1]
        _, history = await _json(server, "POST", f"/threads/{tid}/history", {"limit": 20})
        branched = [s["metadata"] for s in history if s["metadata"]["run_id"] == rid]
        assert branched
        assert {m["checkpoint_id"] for m in branched} == {source}

    asyncio.run(main())
