"""Runs: stream a run of a thread (or of no thread), wait for one, list and get their records.

``POST /threads/{thread_id}/runs/stream`` answers ``text/event-stream``: the
run's events (:mod:`.run_events`) as SSE (:mod:`.sse`), with ``Content-Location``
naming the run and ``Location`` its stream. ``POST /runs/stream`` runs on a
fresh thread that is deleted afterwards (a stateless run). ``.../runs/wait``
answers the run's last values as JSON (:mod:`.run_plan` reads the request
body). A run's record::

    {"run_id", "thread_id", "assistant_id", "created_at", "updated_at",
     "status", "metadata", "multitask_strategy", "kwargs"}

``status`` goes ``pending`` -> ``running`` -> ``success`` or ``error`` (the graph
raised); ``interrupted`` when the client left before the run ended (which
cancels it). A run that pauses on an interrupt is a ``success``: its thread is
``interrupted``. Records are kept per server, for the process's life.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator
from typing import Any, Final

from pyctx_web.server import sse
from pyctx_web.server._core import ServerCore, new_uuid7, utc_now
from pyctx_web.server._http import (
    ApiError,
    Handler,
    Request,
    Response,
    json_response,
    page_of,
    parse_uuid,
)
from pyctx_web.server.run_events import RunOutcome, run_events
from pyctx_web.server.run_plan import RunPlan, object_of, plan_run
from pyctx_web.server.state_json import interrupt_json, to_jsonable
from pyctx_web.server.threads import (
    ensure_thread_metadata,
    get_thread,
    new_thread,
    set_thread_status,
)

__all__ = [
    "ROUTES",
    "RUN_STATUSES",
    "SSE_HEADERS",
    "ActiveRun",
    "active_runs",
    "get_run",
    "list_runs",
    "runs_of",
    "stream_stateless_run",
    "stream_thread_run",
    "wait_stateless_run",
    "wait_thread_run",
]

RUN_STATUSES: Final = ("pending", "running", "success", "error", "interrupted")
"""A run's statuses."""

SSE_HEADERS: Final = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
}
"""The headers of a run's event stream, besides the ones naming the run."""

_RUNS: weakref.WeakKeyDictionary[ServerCore, dict[str, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)


def runs_of(server: ServerCore) -> dict[str, dict[str, Any]]:
    """The server's run records by run id, oldest first."""
    return _RUNS.setdefault(server, {})


class ActiveRun:
    """A run being executed: the task running it now, an event set when it ends, a cancel flag."""

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.done = asyncio.Event()
        self.cancelled = False


_ACTIVE: weakref.WeakKeyDictionary[ServerCore, dict[str, ActiveRun]] = weakref.WeakKeyDictionary()


def active_runs(server: ServerCore) -> dict[str, ActiveRun]:
    """The server's runs being executed now, by run id."""
    return _ACTIVE.setdefault(server, {})


async def _start(server: ServerCore, request: Request, thread_id: str | None) -> RunPlan:
    """Check the request and its thread, store the pending run, mark the thread busy."""
    body = request.json_body()
    if thread_id is None:  # a stateless run: its own thread, deleted when it ends
        thread = new_thread(new_uuid7(), {})
        plan = plan_run(server, body, thread)
        await server.threads.put(thread)
    else:
        thread = await get_thread(server, thread_id)
        if thread["status"] == "busy":
            raise ApiError(409, "Thread is already running a task. Wait for it to finish.")
        plan = plan_run(server, body, thread)
    thread_id = plan.record["thread_id"]
    runs_of(server)[plan.record["run_id"]] = plan.record
    graph_id = plan.config["configurable"]["graph_id"]
    assistant_id = plan.record["assistant_id"]
    config = object_of(body, "config")
    await ensure_thread_metadata(server, thread_id, graph_id, assistant_id, config)
    await set_thread_status(server, thread_id, "busy")
    return plan


async def _finish(server: ServerCore, plan: RunPlan, outcome: RunOutcome) -> None:
    """Record how the run ended, on the run and on its thread (status, values, interrupts)."""
    record = plan.record
    ended = outcome.status if outcome.status in ("success", "error") else "interrupted"
    record.update(status=ended, updated_at=utc_now())
    thread_id = record["thread_id"]
    if await server.threads.get(thread_id) is None:  # deleted while the run went on
        return
    snapshot = await plan.graph.aget_state({"configurable": {"thread_id": thread_id}})
    interrupts = {
        task.id: [interrupt_json(i) for i in task.interrupts]
        for task in snapshot.tasks
        if task.interrupts
    }
    if ended == "error":
        status = "error"
    elif ended == "interrupted" or snapshot.next:
        status = "interrupted"
    else:
        status = "idle"
    values = to_jsonable(snapshot.values) if snapshot.config else None
    error = outcome.error
    raised = None if error is None else to_jsonable(error)
    await set_thread_status(
        server, thread_id, status, values=values, interrupts=interrupts, error=raised
    )


async def _forget_thread(server: ServerCore, plan: RunPlan) -> None:
    """Delete a stateless run's thread and its checkpoints."""
    thread_id = plan.record["thread_id"]
    await server.threads.delete(thread_id)
    checkpointer = plan.graph.checkpointer
    if checkpointer is not None:
        await checkpointer.adelete_thread(thread_id)


async def _events(
    server: ServerCore, plan: RunPlan, outcome: RunOutcome, stateless: bool
) -> AsyncGenerator[tuple[str, Any], None]:
    """The run's events; its record and thread are updated when it ends or is left."""
    plan.record.update(status="running", updated_at=utc_now())
    active = active_runs(server)[plan.record["run_id"]] = ActiveRun(None)
    events = run_events(
        plan.graph,
        plan.input,
        plan.config,
        run_id=plan.record["run_id"],
        stream_modes=plan.stream_modes,
        subgraphs=plan.subgraphs,
        outcome=outcome,
        options=plan.options,
    )
    try:
        while not active.cancelled:
            # The run goes on in whichever task reads the next event: that one a cancel cancels.
            active.task = asyncio.current_task()
            try:
                item = await anext(events)
            except StopAsyncIteration:
                break
            yield item
    except asyncio.CancelledError:
        if not active.cancelled:  # cancelled by its client, not by a cancel request
            raise
        if active.task is not None:  # the cancel request ends the run, not its client's task
            active.task.uncancel()
    finally:
        await events.aclose()
        await _finish(server, plan, outcome)
        if stateless:
            await _forget_thread(server, plan)
        active_runs(server).pop(plan.record["run_id"], None)
        active.done.set()


async def _sse_body(
    server: ServerCore, plan: RunPlan, stateless: bool
) -> AsyncGenerator[bytes, None]:
    """The run's events as SSE, with ids when the run is resumable."""
    ids = sse.EventIds()
    events = _events(server, plan, RunOutcome(), stateless)
    try:
        async for name, data in events:
            yield sse.event(name, data, ids.next() if plan.resumable else None)
    finally:
        await events.aclose()


def _run_path(plan: RunPlan, stateless: bool) -> str:
    record = plan.record
    if stateless:
        return f"/runs/{record['run_id']}"
    return f"/threads/{record['thread_id']}/runs/{record['run_id']}"


async def _stream(server: ServerCore, request: Request, thread_id: str | None) -> Response:
    stateless = thread_id is None
    plan = await _start(server, request, thread_id)
    path = _run_path(plan, stateless)
    headers = {**SSE_HEADERS, "content-location": path, "location": f"{path}/stream"}
    body = sse.with_heartbeats(_sse_body(server, plan, stateless))
    return Response(200, headers, body)


async def stream_thread_run(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/runs/stream``: run on the thread, streaming its events."""
    return await _stream(server, request, thread_id)


async def stream_stateless_run(server: ServerCore, request: Request) -> Response:
    """``POST /runs/stream``: run on a thread of its own, deleted when the run ends."""
    return await _stream(server, request, None)


async def _wait(server: ServerCore, request: Request, thread_id: str | None) -> Response:
    stateless = thread_id is None
    plan = await _start(server, request, thread_id)
    if "values" not in plan.stream_modes:
        plan.stream_modes = [*plan.stream_modes, "values"]
    last: Any = None
    async for name, data in _events(server, plan, RunOutcome(), stateless):
        if name == "values":
            last = data
        elif name == "error":
            last = {"__error__": data}
    path = _run_path(plan, stateless)
    return json_response(200, last, {"content-location": path, "location": f"{path}/join"})


async def wait_thread_run(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/runs/wait``: run on the thread; its last values as JSON."""
    return await _wait(server, request, thread_id)


async def wait_stateless_run(server: ServerCore, request: Request) -> Response:
    """``POST /runs/wait``: a stateless run; its last values (``__error__`` if it raised)."""
    return await _wait(server, request, None)


async def list_runs(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}/runs``: its runs, newest first (limit, offset, status)."""
    thread_id = (await get_thread(server, thread_id))["thread_id"]
    status = request.query_value("status")
    if status is not None and status not in RUN_STATUSES:
        raise ApiError(422, f"Invalid status {status!r}: expected one of {', '.join(RUN_STATUSES)}")
    runs = [
        run
        for run in reversed(runs_of(server).values())
        if run["thread_id"] == thread_id and status in (None, run["status"])
    ]
    query = {name: request.query_value(name) for name in ("limit", "offset")}
    paging = {name: int(v) if v and v.isdigit() else v for name, v in query.items() if v}
    return json_response(200, page_of(paging, runs))


async def get_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``GET /threads/{thread_id}/runs/{run_id}``: the run's record; 404 when it has none."""
    thread_id = (await get_thread(server, thread_id))["thread_id"]
    run = runs_of(server).get(parse_uuid(run_id, "run"))
    if run is None or run["thread_id"] != thread_id:
        raise ApiError(404, "Run not found")
    return json_response(200, run)


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/threads/{thread_id}/runs/stream", stream_thread_run),
    ("POST", "/runs/stream", stream_stateless_run),
    ("POST", "/threads/{thread_id}/runs/wait", wait_thread_run),
    ("POST", "/runs/wait", wait_stateless_run),
    ("GET", "/threads/{thread_id}/runs", list_runs),
    ("GET", "/threads/{thread_id}/runs/{run_id}", get_run),
]
"""The run routes, for :class:`~pyctx_web.server.app.AgentServer`'s table."""
