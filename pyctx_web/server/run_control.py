"""Run control: cancel a run of a thread, or wait for it to end and read its thread's values.

``POST /threads/{thread_id}/runs/{run_id}/cancel`` cancels a run being executed:
``action=interrupt`` (the default) ends it ``interrupted``, its committed steps
kept and its thread ``interrupted``; ``action=rollback`` also deletes its record.
``wait=1`` answers 200 ``{}`` once the run has ended, otherwise 202 at once. A
run that is not being executed (ended, or unknown) cannot be cancelled: 404.
``GET /threads/{thread_id}/runs/{run_id}/join`` waits for the run to end and
answers its thread's values then (the thread's current values for a run that
already ended).
"""

from __future__ import annotations

from typing import Final

from pyctx_web.server._core import ServerCore
from pyctx_web.server._http import ApiError, Handler, Request, Response, json_response, parse_uuid
from pyctx_web.server.runs import active_runs, runs_of
from pyctx_web.server.threads import get_thread

__all__ = ["CANCEL_ACTIONS", "ROUTES", "cancel_run", "join_run"]

CANCEL_ACTIONS: Final = ("interrupt", "rollback")
"""What a cancel does to the run: ends it ``interrupted``, or also deletes it."""

_NOT_CANCELLABLE: Final = (
    "No matching runs to cancel. Please verify the thread ID and run IDs are correct,"
    " and the runs haven't been deleted or completed."
)

_TRUE: Final = frozenset({"true", "yes", "1"})


def _flag(request: Request, name: str) -> bool:
    """Whether the query's ``name`` is true (``true``, ``yes`` or ``1``); false when absent."""
    return (request.query_value(name) or "false").lower() in _TRUE


async def cancel_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``POST /threads/{thread_id}/runs/{run_id}/cancel``: cancel the run being executed."""
    thread_id = parse_uuid(thread_id, "thread")
    run_id = parse_uuid(run_id, "run")
    wait = _flag(request, "wait")
    action = request.query_value("action")
    if action not in CANCEL_ACTIONS:  # the LangGraph Server reads any other action as interrupt
        action = "interrupt"
    active = active_runs(server).get(run_id)
    record = runs_of(server).get(run_id)
    if active is None or record is None or record["thread_id"] != thread_id:
        raise ApiError(404, _NOT_CANCELLABLE)
    active.cancelled = True
    if active.task is not None:
        active.task.cancel()
    if action == "rollback":
        runs_of(server).pop(run_id, None)
    if not wait:
        return Response(202, {}, b"")
    await active.done.wait()
    path = f"/threads/{thread_id}/runs/{run_id}"
    return json_response(200, {}, {"content-location": path, "location": f"{path}/join"})


async def join_run(server: ServerCore, request: Request, thread_id: str, run_id: str) -> Response:
    """``GET /threads/{thread_id}/runs/{run_id}/join``: the thread's values once the run ended."""
    thread_id = (await get_thread(server, thread_id))["thread_id"]
    run_id = parse_uuid(run_id, "run")
    record = runs_of(server).get(run_id)
    if record is None or record["thread_id"] != thread_id:
        raise ApiError(404, "Run not found")
    active = active_runs(server).get(run_id)
    if active is not None:
        await active.done.wait()
    thread = await server.threads.get(thread_id)
    values = None if thread is None else thread.get("values")
    path = f"/threads/{thread_id}/runs/{run_id}"
    return json_response(200, values, {"content-location": path, "location": f"{path}/join"})


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/threads/{thread_id}/runs/{run_id}/cancel", cancel_run),
    ("GET", "/threads/{thread_id}/runs/{run_id}/join", join_run),
]
"""The run control routes, for :class:`~pyctx_web.server.app.AgentServer`'s table."""
