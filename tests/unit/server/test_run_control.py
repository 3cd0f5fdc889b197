"""Run control through AgentServer.handle: cancel a run (interrupt, rollback, wait) and join it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server import AgentServer, Request, Response


class Steps(TypedDict):
    """The state of the test graphs."""

    steps: list[str]


def _first(state: Steps) -> dict[str, Any]:
    return {"steps": [*state["steps"], "first"]}


async def _stuck(state: Steps) -> dict[str, Any]:
    get_stream_writer()("stuck")
    await asyncio.Event().wait()  # until the run is cancelled
    return {"steps": ["never"]}


def _two_steps() -> CompiledStateGraph:
    builder = StateGraph(Steps).add_node("first", _first).add_node("stuck", _stuck)
    return builder.add_edge(START, "first").add_edge("first", "stuck").compile()


def _server() -> AgentServer:
    quick = StateGraph(Steps).add_node("first", _first).add_edge(START, "first").compile()
    return AgentServer({"stuck": _two_steps(), "quick": quick})


_NOT_CANCELLABLE = (
    "No matching runs to cancel. Please verify the thread ID and run IDs are correct,"
    " and the runs haven't been deleted or completed."
)


async def _send(
    server: AgentServer, method: str, path: str, body: Any = None, **query: str
) -> Response:
    data = b"" if body is None else json.dumps(body).encode()
    params = {name: [value] for name, value in query.items()}
    return await server.handle(Request(method, path, params, {}, data))


async def _json(server: AgentServer, method: str, path: str, **query: str) -> tuple[int, Any]:
    response = await _send(server, method, path, **query)
    assert isinstance(response.body, bytes)
    return response.status, json.loads(response.body)


async def _read(body: AsyncIterator[bytes]) -> bytes:
    return b"".join([chunk async for chunk in body])


async def _start_stuck(server: AgentServer) -> tuple[str, str, asyncio.Task[bytes]]:
    """A run of the stuck graph, read in a task until its second node waits forever."""
    thread = (await _json_post(server, "/threads", {}))["thread_id"]
    body = {"assistant_id": "stuck", "input": {"steps": []}, "stream_mode": ["custom"]}
    response = await _send(server, "POST", f"/threads/{thread}/runs/stream", body)
    assert not isinstance(response.body, bytes)
    run = response.headers["content-location"].rsplit("/", 1)[1]
    chunks = response.body
    first = await anext(chunks)  # metadata
    second = await anext(chunks)  # the stuck node's custom event: the first step is committed
    reader = asyncio.ensure_future(_read(chunks))
    await asyncio.sleep(0)
    return thread, run, asyncio.ensure_future(_prefixed(first + second, reader))


async def _prefixed(head: bytes, rest: asyncio.Future[bytes]) -> bytes:
    return head + await rest


async def _json_post(server: AgentServer, path: str, body: Any) -> Any:
    response = await _send(server, "POST", path, body)
    assert isinstance(response.body, bytes)
    return json.loads(response.body)


def test_cancel_with_wait_interrupts_the_run_and_keeps_its_committed_steps() -> None:
    """A cancel with wait=1 answers 200 {} once the run ended interrupted, the first step kept."""

    async def main() -> None:
        server = _server()
        thread, run, stream = await _start_stuck(server)
        path = f"/threads/{thread}/runs/{run}"
        assert await _json(server, "POST", f"{path}/cancel", wait="1") == (200, {})
        raw = await stream
        assert b"event: error" not in raw
        assert b"event: custom" in raw
        status, record = await _json(server, "GET", path)
        assert (status, record["status"]) == (200, "interrupted")
        status, state = await _json(server, "GET", f"/threads/{thread}")
        assert (state["status"], state["values"]) == ("interrupted", {"steps": ["first"]})

    asyncio.run(main())


def test_cancel_without_wait_answers_202_with_an_empty_body() -> None:
    """A cancel with wait=0 answers 202 and no body at once; the run then ends interrupted."""

    async def main() -> None:
        server = _server()
        thread, run, stream = await _start_stuck(server)
        path = f"/threads/{thread}/runs/{run}"
        response = await _send(server, "POST", f"{path}/cancel", wait="0")
        assert (response.status, response.body) == (202, b"")
        await stream
        assert (await _json(server, "GET", path))[1]["status"] == "interrupted"

    asyncio.run(main())


def test_cancel_with_rollback_deletes_the_run() -> None:
    """A cancel with action=rollback deletes the run's record: getting it answers 404."""

    async def main() -> None:
        server = _server()
        thread, run, stream = await _start_stuck(server)
        path = f"/threads/{thread}/runs/{run}"
        assert await _json(server, "POST", f"{path}/cancel", wait="1", action="rollback") == (
            200,
            {},
        )
        await stream
        assert await _json(server, "GET", path) == (404, {"detail": "Not Found"})

    asyncio.run(main())


def test_cancel_of_a_finished_run_is_404() -> None:
    """Cancelling a run that already ended answers 404 with the LangGraph Server's message."""

    async def main() -> None:
        server = _server()
        thread = (await _json_post(server, "/threads", {}))["thread_id"]
        body = {"assistant_id": "quick", "input": {"steps": []}}
        response = await _send(server, "POST", f"/threads/{thread}/runs/wait", body)
        run = response.headers["content-location"].rsplit("/", 1)[1]
        cancel = f"/threads/{thread}/runs/{run}/cancel"
        assert await _json(server, "POST", cancel) == (404, {"detail": _NOT_CANCELLABLE})

    asyncio.run(main())


def test_cancel_with_a_run_id_that_is_no_uuid_is_422() -> None:
    """A run id that is not a UUID answers 422 naming the run id."""

    async def main() -> None:
        server = _server()
        thread = (await _json_post(server, "/threads", {}))["thread_id"]
        cancel = f"/threads/{thread}/runs/nope/cancel"
        expected = (422, {"detail": "Invalid run ID: must be a UUID"})
        assert await _json(server, "POST", cancel) == expected

    asyncio.run(main())


def test_join_waits_for_the_run_and_answers_the_thread_values() -> None:
    """Joining a running run answers the thread's values after the run ended."""

    async def main() -> None:
        server = _server()
        thread, run, stream = await _start_stuck(server)
        path = f"/threads/{thread}/runs/{run}"
        join = asyncio.ensure_future(_json(server, "GET", f"{path}/join"))
        await asyncio.sleep(0)
        assert not join.done()
        await _send(server, "POST", f"{path}/cancel", wait="0")
        assert await join == (200, {"steps": ["first"]})
        await stream

    asyncio.run(main())


def test_join_of_a_finished_run_answers_the_current_values() -> None:
    """Joining a run that already ended answers the thread's current values."""

    async def main() -> None:
        server = _server()
        thread = (await _json_post(server, "/threads", {}))["thread_id"]
        body = {"assistant_id": "quick", "input": {"steps": ["a"]}}
        response = await _send(server, "POST", f"/threads/{thread}/runs/wait", body)
        join = response.headers["location"]
        assert await _json(server, "GET", join) == (200, {"steps": ["a", "first"]})

    asyncio.run(main())


def test_join_of_an_unknown_run_answers_an_error_object() -> None:
    """Joining a run the thread never had answers 200 with the server's __error__ object."""

    async def main() -> None:
        server = _server()
        thread = (await _json_post(server, "/threads", {}))["thread_id"]
        join = f"/threads/{thread}/runs/00000000-0000-0000-0000-000000000000/join"
        error = {"error": "HTTPException", "message": "404: Run not found"}
        assert await _json(server, "GET", join) == (200, {"__error__": error})

    asyncio.run(main())
