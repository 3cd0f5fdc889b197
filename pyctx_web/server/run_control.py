"""Run control: cancel a run of a thread, wait for it to end, or join its event stream.

``POST /threads/{thread_id}/runs/{run_id}/cancel`` cancels a run pending or
running: ``action=interrupt`` (the default) ends it ``interrupted``, its
committed steps kept and its thread ``interrupted``; ``action=rollback`` also
deletes its record, its stored events and the checkpoints it wrote. ``wait=1``
answers 200 ``{}`` once the run has ended, otherwise 202 at once. A run that
ended cannot be cancelled, nor one that is not there: 404.

``GET /threads/{thread_id}/runs/{run_id}/join`` waits for the run to end and
answers its thread's values then (the thread's current values for a run that
already ended). ``GET /threads/{thread_id}/runs/{run_id}/stream`` streams the
run's events from now on as they come; with a ``Last-Event-ID`` header it first
replays the events the run stored (``stream_resumable`` runs) after that id,
``-1`` for all of them. ``stream_mode`` narrows the events sent; with
``cancel_on_disconnect=1`` a client that leaves cancels the run.
``POST /runs/cancel`` cancels several runs: all those with a ``status``
(``pending``, ``running`` or ``all``), or the ``run_ids`` of a ``thread_id``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import suppress
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError
from pyctx_web.server import sse
from pyctx_web.server._core import ServerCore, StoredEvent
from pyctx_web.server._http import ApiError, Handler, Request, Response, json_response, parse_uuid
from pyctx_web.server.run_exec import (
    CANCEL_ACTIONS,
    ActiveRun,
    Listener,
    active_runs,
    cancel,
    cancel_soon,
)
from pyctx_web.server.run_plan import enum_option
from pyctx_web.server.runs import SSE_HEADERS
from pyctx_web.server.threads import get_thread

__all__ = ["ROUTES", "cancel_run", "cancel_runs", "join_run", "join_run_stream"]

_NOT_CANCELLABLE: Final = (
    "No matching runs to cancel. Please verify the thread ID and run IDs are correct,"
    " and the runs haven't been deleted or completed."
)

_NOT_FOUND: Final = {"error": "HTTPException", "message": "404: Run not found"}
"""What joining a run that is not there gives, as the LangGraph Server words it."""

_LEFT: Final = "client disconnected from the run stream (on_disconnect=cancel)"
"""Why a run whose joining client left ends, as its thread's error says."""

_STATUS_ALONE: Final = (
    "When providing a 'status', 'thread_id' and 'run_ids' must be omitted. The 'status'"
    " parameter cancels all runs with the given status, regardless of thread or run ID."
)

_TRUE: Final = frozenset({"true", "yes", "1"})


def _flag(request: Request, name: str) -> bool:
    """Whether the query's ``name`` is true (``true``, ``yes`` or ``1``); false when absent."""
    return (request.query_value(name) or "false").lower() in _TRUE


def _active(server: ServerCore, thread_id: str, run_id: str) -> ActiveRun | None:
    active = active_runs(server).get(run_id)
    return active if active is not None and active.thread_id == thread_id else None


def _run_headers(thread_id: str, run_id: str, location: str) -> dict[str, str]:
    path = f"/threads/{thread_id}/runs/{run_id}"
    return {"content-location": path, "location": f"{path}/{location}"}


async def cancel_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``POST /threads/{thread_id}/runs/{run_id}/cancel``: cancel the run pending or running."""
    thread_id = parse_uuid(thread_id, "thread")
    run_id = parse_uuid(run_id, "run")
    wait = _flag(request, "wait")
    action = request.query_value("action")
    if action not in CANCEL_ACTIONS:  # the LangGraph Server reads any other action as interrupt
        action = "interrupt"
    record = await server.runs.get(run_id)
    if record is None or record["thread_id"] != thread_id:
        raise ApiError(404, "No runs found to cancel.")
    active = _active(server, thread_id, run_id)
    if active is None or active.action is not None:
        raise ApiError(404, _NOT_CANCELLABLE)
    await cancel(server, active, action)
    if not wait:
        return Response(202, {}, b"")
    await active.done.wait()
    return json_response(200, {}, _run_headers(thread_id, run_id, "join"))


def _to_cancel(server: ServerCore, body: dict[str, Any]) -> list[ActiveRun]:
    """The runs a ``POST /runs/cancel`` body names: by status, or by thread and run ids."""
    status = enum_option(body, "status", ("pending", "running", "all"))
    if status is not None:
        if body.get("thread_id") or body.get("run_ids"):
            raise ApiError(422, _STATUS_ALONE)
        started = {"pending": (False,), "running": (True,), "all": (False, True)}[status]
        return [run for run in active_runs(server).values() if run.started in started]
    run_ids = body.get("run_ids")
    if body.get("thread_id") is None or not isinstance(run_ids, list):
        raise ApiError(422, "Must provide either a status or both 'thread_id' and 'run_ids'")
    thread_id = parse_uuid(body["thread_id"], "thread")
    wanted = {parse_uuid(run_id, "run") for run_id in run_ids}
    return [
        r for r in active_runs(server).values() if r.run_id in wanted and r.thread_id == thread_id
    ]


async def cancel_runs(server: ServerCore, request: Request) -> Response:
    """``POST /runs/cancel``: cancel the runs a body names (``action`` as for one run); 204."""
    action = request.query_value("action")
    if action not in CANCEL_ACTIONS:
        action = "interrupt"
    runs = _to_cancel(server, request.json_body())
    if not runs:
        raise ApiError(404, _NOT_CANCELLABLE)
    for run in runs:
        await cancel(server, run, action, f"{action} requested via POST /runs/cancel")
    return Response(204, {}, b"")


async def join_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``GET /threads/{thread_id}/runs/{run_id}/join``: the thread's values once the run ended."""
    thread_id = (await get_thread(server, thread_id))["thread_id"]
    run_id = parse_uuid(run_id, "run")
    headers = _run_headers(thread_id, run_id, "join")
    record = await server.runs.get(run_id)
    if record is None or record["thread_id"] != thread_id:
        return json_response(200, {"__error__": _NOT_FOUND}, headers)
    active = _active(server, thread_id, run_id)
    if active is not None:
        await active.done.wait()
    thread = await server.threads.get(thread_id)
    values = None if thread is None else thread.get("values")
    return json_response(200, values, headers)


def _modes_of(request: Request) -> list[str]:
    """The ``stream_mode`` query: one mode, or a JSON array of them (its last value counts)."""
    values = request.query.get("stream_mode") or []
    given = values[-1] if values else ""
    if given.startswith("["):
        with suppress(ValueError):
            modes = json.loads(given)
            if isinstance(modes, list):
                return [str(mode) for mode in modes]
    return [given] if given else []


def _matches(name: str, modes: list[str]) -> bool:
    """Whether an event is one of the modes a join asked for (all when none)."""
    if not modes or name in modes:
        return True
    if name.startswith("messages") and ("messages" in modes or "messages-tuple" in modes):
        return True
    return "|" in name and name.split("|", 1)[0] in modes


def _is_after(event_id: str, last_event_id: str) -> bool:
    """Whether ``event_id`` comes after ``last_event_id`` (``-1``: before every id)."""
    try:
        return sse.id_key(event_id) > sse.id_key(last_event_id)
    except ArgumentValueError:  # not an id this server gave: compared as text, as the server does
        return event_id > last_event_id


async def _replay(
    server: ServerCore, run_id: str, last_event_id: str, modes: list[str]
) -> list[StoredEvent]:
    stored = await server.events.after(run_id, None)
    return [e for e in stored if _is_after(e[0], last_event_id) and _matches(e[1], modes)]


async def _join_events(
    server: ServerCore,
    active: ActiveRun | None,
    queue: Listener | None,
    replayed: list[StoredEvent],
    modes: list[str],
    cancel_on_disconnect: bool,
) -> AsyncGenerator[bytes, None]:
    """The replayed events, then the run's live ones (from ``queue``) until it ends."""
    ended = False
    try:
        for event_id, name, data in replayed:
            yield sse.raw_event(name, data, event_id)
        last = replayed[-1][0] if replayed else "-1"
        while queue is not None and (event := await queue.get()) is not None:
            event_id, name, data = event
            if _is_after(event_id, last) and _matches(name, modes):
                resumable = active is not None and active.plan.resumable
                yield sse.raw_event(name, data, event_id if resumable else None)
        ended = True
    finally:
        if active is not None and queue is not None:
            active.leave(queue)
            if not ended and cancel_on_disconnect:
                cancel_soon(server, active, _LEFT)


async def join_run_stream(
    server: ServerCore, request: Request, thread_id: str, run_id: str
) -> Response:
    """``GET /threads/{thread_id}/runs/{run_id}/stream``: the run's events, replayed then live."""
    thread_id = parse_uuid(thread_id, "thread")
    run_id = parse_uuid(run_id, "run")
    modes = _modes_of(request)
    last_event_id = request.headers.get("last-event-id") or None
    headers = {**SSE_HEADERS, **_run_headers(thread_id, run_id, "stream")}
    record = await server.runs.get(run_id)
    if record is None or record["thread_id"] != thread_id:
        return Response(200, headers, sse.event("error", _NOT_FOUND))
    active = _active(server, thread_id, run_id)
    # Listening before reading the stored events: none falls between the two.
    queue = None if active is None else active.listen()
    replayed: list[StoredEvent] = []
    if last_event_id is not None:
        replayed = await _replay(server, run_id, last_event_id, modes)
    leave = _flag(request, "cancel_on_disconnect")
    body = _join_events(server, active, queue, replayed, modes, leave)
    return Response(200, headers, sse.with_heartbeats(body))


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/threads/{thread_id}/runs/{run_id}/cancel", cancel_run),
    ("GET", "/threads/{thread_id}/runs/{run_id}/join", join_run),
    ("POST", "/runs/cancel", cancel_runs),
    ("GET", "/threads/{thread_id}/runs/{run_id}/stream", join_run_stream),
]
"""The run control routes, for :class:`~pyctx_web.server.app.AgentServer`'s table."""
