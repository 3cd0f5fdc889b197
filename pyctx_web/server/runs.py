"""Runs: start one on a thread (or on none), stream it, wait for it, list and get their records.

Every run executes in a task of its own (:mod:`.run_exec`), whoever listens.
``POST /threads/{thread_id}/runs/stream`` answers ``text/event-stream``: the
run's events (:mod:`.run_events`) as SSE (:mod:`.sse`), with ``Content-Location``
naming the run and ``Location`` its stream. ``POST /runs/stream`` runs on a
fresh thread that is deleted afterwards (a stateless run). ``.../runs/wait``
answers the run's last values as JSON (:mod:`.run_plan` reads the request
body). ``POST /threads/{thread_id}/runs`` and ``POST /runs`` start a background
run and answer its ``pending`` record at once. A run's record::

    {"run_id", "thread_id", "assistant_id", "created_at", "updated_at",
     "status", "metadata", "multitask_strategy", "kwargs"}

``status`` goes ``pending`` -> ``running`` -> ``success`` or ``error`` (the graph
raised); ``interrupted`` when cancelled (a cancel request, a later run's
``interrupt`` strategy, or a streaming client that leaves with
``on_disconnect: "cancel"``; by default, ``continue``, the run goes on). A run
that pauses on an interrupt is a ``success``: its thread is ``interrupted``.
On a thread with a run pending or running, ``multitask_strategy`` decides:
``reject`` (409), ``enqueue`` (the default: the new run starts when the others
ended), ``interrupt`` or ``rollback`` (the others are cancelled so, and the new
run starts once they ended). Records live in the server's ``RunStore``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Final

from pyctx_web.server import sse
from pyctx_web.server._core import ServerCore, new_uuid7
from pyctx_web.server._http import (
    JSON_TYPE,
    ApiError,
    Handler,
    Request,
    Response,
    json_response,
    page_of,
    parse_uuid,
)
from pyctx_web.server.run_exec import (
    CANCEL_ACTIONS,
    ActiveRun,
    Listener,
    active_runs,
    cancel,
    cancel_soon,
    inflight,
    launch,
)
from pyctx_web.server.run_finish import roll_back
from pyctx_web.server.run_plan import RunPlan, object_of, plan_run
from pyctx_web.server.threads import get_thread, new_thread, note_run

__all__ = [
    "ROUTES",
    "RUN_STATUSES",
    "SSE_HEADERS",
    "create_stateless_run",
    "create_thread_run",
    "delete_run",
    "get_run",
    "list_runs",
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

_CREATE_SCHEMA: Final = ""
_STREAM_SCHEMA: Final = '["components"]["schemas"]["RunCreateStateful"]'
_STATELESS_STREAM_SCHEMA: Final = '["components"]["schemas"]["RunCreateStateless"]'

_LEFT: Final = "client disconnected from the run stream (on_disconnect=cancel)"
"""Why a run whose client left ends, as its thread's error says."""

_REJECTED: Final = (
    "Thread is already running a task. Wait for it to finish or choose a different"
    " multitask strategy."
)

_ELSEWHERE: Final = (
    "Thread is already running a task in another tab or process, which this server can"
    " neither queue behind nor cancel. Wait for it to finish."
)
"""Why a run of a thread that a run of another server holds is refused, whatever its
multitask strategy (a reject says :data:`_REJECTED`, as the LangGraph Server does)."""


async def _start(
    server: ServerCore, request: Request, thread_id: str | None, kind: str
) -> tuple[ActiveRun, Listener]:
    """Check the request and its thread, store the pending run, launch it (multitask strategy).

    ``kind`` is ``stream``, ``wait`` (both say ``on_disconnect``) or ``create``;
    the queue listens to the run from its first event.
    """
    body = request.json_body()
    streamed = kind != "create"
    stateless = thread_id is None
    if thread_id is None:  # a stateless run: its own thread, deleted when it ends
        schema = _STATELESS_STREAM_SCHEMA if streamed else _CREATE_SCHEMA
        thread = new_thread(new_uuid7(), {})
        plan = plan_run(server, body, thread, schema=schema, streamed=streamed, stateless=True)
    else:
        stored, thread = await _thread_of(server, thread_id)
        schema = _STREAM_SCHEMA if streamed else _CREATE_SCHEMA
        plan = plan_run(server, body, thread, schema=schema, streamed=streamed)
        if stored is None:  # no such thread: made when the body says if_not_exists create
            if body.get("if_not_exists") != "create":
                raise ApiError(404, "Thread or assistant not found.")
            config_metadata = object_of(body, "config").get("metadata") or {}
            thread["metadata"] = {**config_metadata, **object_of(body, "metadata")}
    if kind == "wait" and "values" not in plan.stream_modes:
        plan.stream_modes = [*plan.stream_modes, "values"]
    record = plan.record
    strategy = record["multitask_strategy"]
    earlier = inflight(server, record["thread_id"])
    if earlier and strategy == "reject":
        raise ApiError(409, _REJECTED)
    held_elsewhere = _REJECTED if strategy == "reject" else _ELSEWHERE
    # A thread busy with no run here runs in another tab or process (a shared store).
    if not earlier and thread["status"] == "busy":
        raise ApiError(409, held_elsewhere)
    await server.runs.put(record)
    if not await _mark_busy(server, thread, plan, object_of(body, "config"), claim=not earlier):
        # Another tab or process took the thread since it was read: that run goes on.
        await server.runs.delete(record["run_id"])
        raise ApiError(409, held_elsewhere)
    active = launch(server, plan, stateless=stateless)
    queue = active.listen()
    if strategy in CANCEL_ACTIONS:  # interrupt or rollback: end the others
        for other in earlier:
            reason = f"superseded by run {record['run_id']} (multitask_strategy={strategy})"
            await cancel(server, other, strategy, reason)
    return active, queue


async def _mark_busy(
    server: ServerCore,
    planned: dict[str, Any],
    plan: RunPlan,
    config: dict[str, Any],
    *,
    claim: bool,
) -> bool:
    """Store the run's thread busy, with the run's graph, assistant and config (one write).

    The thread is read again (a request may have changed it while the run was stored); one
    that is not stored yet is ``planned``, the record the run was planned on (a stateless
    run's, or one made by ``if_not_exists``), stored here for the first time. With ``claim``
    (no run of this server holds the thread) the write is refused, and False returned, when
    the stored thread is busy: a run of another tab or process took it meanwhile.
    """
    record = plan.record
    thread = await server.threads.get(record["thread_id"])
    if thread is None:
        thread = planned
    graph_id = plan.config["configurable"]["graph_id"]
    note_run(thread, graph_id, record["assistant_id"], config, status="busy")
    if claim:
        return await server.threads.claim(thread)
    await server.threads.put(thread)
    return True


async def _thread_of(
    server: ServerCore, thread_id: str
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The thread's stored record (None when there is none) and the record to plan the run on."""
    try:
        thread_id = parse_uuid(thread_id, "thread")
    except ApiError:
        raise ApiError(422, "Invalid thread ID") from None
    stored = await server.threads.get(thread_id)
    return stored, stored if stored is not None else new_thread(thread_id, {})


def _run_path(active: ActiveRun) -> str:
    if active.stateless:
        return f"/runs/{active.run_id}"
    return f"/threads/{active.thread_id}/runs/{active.run_id}"


async def _sse_body(
    server: ServerCore, active: ActiveRun, queue: Listener
) -> AsyncGenerator[bytes, None]:
    """The run's events as SSE (ids when resumable); a client that leaves may cancel it."""
    ended = False
    resumable = active.plan.resumable
    try:
        while (event := await queue.get()) is not None:
            event_id, name, data = event
            yield sse.raw_event(name, data, event_id if resumable else None)
        ended = True
    finally:
        active.leave(queue)
        if not ended and active.plan.on_disconnect == "cancel":
            cancel_soon(server, active, _LEFT)


async def _stream(server: ServerCore, request: Request, thread_id: str | None) -> Response:
    active, queue = await _start(server, request, thread_id, "stream")
    path = _run_path(active)
    headers = {**SSE_HEADERS, "content-location": path, "location": f"{path}/stream"}
    return Response(200, headers, sse.with_heartbeats(_sse_body(server, active, queue)))


async def stream_thread_run(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/runs/stream``: run on the thread, streaming its events."""
    return await _stream(server, request, thread_id)


async def stream_stateless_run(server: ServerCore, request: Request) -> Response:
    """``POST /runs/stream``: run on a thread of its own, deleted when the run ends."""
    return await _stream(server, request, None)


async def _wait(server: ServerCore, request: Request, thread_id: str | None) -> Response:
    active, queue = await _start(server, request, thread_id, "wait")
    last = b"null"
    ended = False
    try:
        while (event := await queue.get()) is not None:
            _, name, data = event
            if name == "values":
                last = data
            elif name == "error":
                last = b'{"__error__":' + data + b"}"
        ended = True
    finally:
        active.leave(queue)
        if not ended and active.plan.on_disconnect == "cancel":
            cancel_soon(server, active, _LEFT)
    # Even a stateless run's wait names the run under its (temporary) thread, as the server.
    path = f"/threads/{active.thread_id}/runs/{active.run_id}"
    headers = {"content-type": JSON_TYPE, "content-location": path, "location": f"{path}/join"}
    return Response(200, headers, last)


async def wait_thread_run(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/runs/wait``: run on the thread; its last values as JSON."""
    return await _wait(server, request, thread_id)


async def wait_stateless_run(server: ServerCore, request: Request) -> Response:
    """``POST /runs/wait``: a stateless run; its last values (``__error__`` if it raised)."""
    return await _wait(server, request, None)


async def create_thread_run(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/runs``: start a background run; its pending record at once."""
    active, queue = await _start(server, request, thread_id, "create")
    active.leave(queue)
    record = active.plan.record  # JSON-ready: the request as sent, ids and times as text
    return json_response(200, record, {"content-location": _run_path(active)})


async def create_stateless_run(server: ServerCore, request: Request) -> Response:
    """``POST /runs``: start a background run on a thread of its own; its pending record."""
    active, queue = await _start(server, request, None, "create")
    active.leave(queue)
    record = active.plan.record  # JSON-ready: the request as sent, ids and times as text
    return json_response(200, record, {"content-location": _run_path(active)})


async def list_runs(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}/runs``: its runs, newest first (limit, offset, status)."""
    thread_id = (await get_thread(server, thread_id))["thread_id"]
    status = request.query_value("status")
    if status is not None and status not in RUN_STATUSES:
        raise ApiError(422, f"Invalid status {status!r}: expected one of {', '.join(RUN_STATUSES)}")
    runs = [
        run
        for run in reversed(await server.runs.of_thread(thread_id))
        if status in (None, run["status"])
    ]
    query = {name: request.query_value(name) for name in ("limit", "offset")}
    paging = {name: int(v) if v and v.isdigit() else v for name, v in query.items() if v}
    return json_response(200, page_of(paging, runs))


async def delete_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``DELETE /threads/{thread_id}/runs/{run_id}``: forget the run and its checkpoints; 204."""
    thread_id = parse_uuid(thread_id, "thread")
    run_id = parse_uuid(run_id, "run")
    record = await server.runs.get(run_id)
    if record is None or record["thread_id"] != thread_id:
        raise ApiError(404, "Run not found")
    active = active_runs(server).get(run_id)
    if active is not None:  # it goes on, as on the server, but is not recorded again
        active.forgotten = True
    graph = server.graphs.get(record["kwargs"]["config"]["configurable"].get("graph_id", ""))
    if graph is not None:
        await roll_back(server, graph, record)
    else:  # its graph is no longer served: its checkpoints cannot be told apart
        await server.runs.delete(run_id)
    return Response(204, {}, b"")


async def get_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``GET /threads/{thread_id}/runs/{run_id}``: the run's record; 404 when it has none."""
    thread_id = (await get_thread(server, thread_id))["thread_id"]
    run = await server.runs.get(parse_uuid(run_id, "run"))
    if run is None or run["thread_id"] != thread_id:
        raise ApiError(404, "Not Found")
    return json_response(200, run)


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/threads/{thread_id}/runs/stream", stream_thread_run),
    ("POST", "/runs/stream", stream_stateless_run),
    ("POST", "/threads/{thread_id}/runs/wait", wait_thread_run),
    ("POST", "/runs/wait", wait_stateless_run),
    ("POST", "/threads/{thread_id}/runs", create_thread_run),
    ("POST", "/runs", create_stateless_run),
    ("GET", "/threads/{thread_id}/runs", list_runs),
    ("GET", "/threads/{thread_id}/runs/{run_id}", get_run),
    ("DELETE", "/threads/{thread_id}/runs/{run_id}", delete_run),
]
"""The run routes, for :class:`~pyctx_web.server.app.AgentServer`'s table."""
