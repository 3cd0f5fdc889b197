"""Threads: create, get, patch, delete, search and count, and the record the other routes update.

A thread is a JSON-ready dict as the LangGraph Server returns it::

    {"thread_id", "created_at", "updated_at", "state_updated_at", "metadata",
     "status", "config", "values"}

plus, once a run has set them, ``interrupts`` and ``error``. ``status`` is
``idle``, ``busy`` (a run is going), ``interrupted`` (paused at an interrupt
or breakpoint, or cancelled) or ``error`` (the last run raised); ``values`` is
the thread's state after its last run (None before the first);
``interrupts`` maps a task id to its pending interrupts; ``error`` is what the
last run raised (None when it did not). The runs set these through
:func:`set_thread_status`. The checkpoints themselves live in the
graphs' checkpointer under the same thread id.
"""

from __future__ import annotations

import copy
from typing import Any

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._thread_copy import acopy_thread
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.server._core import ServerCore, new_uuid7, utc_now
from pyctx_web.server._http import (
    ApiError,
    Handler,
    Request,
    Response,
    contains,
    enum_field,
    json_response,
    not_of_type,
    object_field,
    page_of,
    paging_headers,
    parse_uuid,
    select_fields,
    sort_records,
)

__all__ = [
    "ROUTES",
    "SELECT_FIELDS",
    "SORT_FIELDS",
    "STATUSES",
    "ensure_thread_metadata",
    "get_thread",
    "new_thread",
    "note_run",
    "set_thread_status",
]

STATUSES = ("idle", "busy", "interrupted", "error")
"""A thread's statuses."""

SORT_FIELDS = ("thread_id", "status", "created_at", "updated_at", "state_updated_at")
"""What a search sorts by, in the order the API's schema lists them."""

SELECT_FIELDS = (
    "thread_id",
    "created_at",
    "updated_at",
    "state_updated_at",
    "metadata",
    "config",
    "status",
    "values",
    "interrupts",
)

_KEEP: Any = object()


def new_thread(thread_id: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """The record of a thread that has not run: idle, no values."""
    now = utc_now()
    return {
        "thread_id": thread_id,
        "created_at": now,
        "updated_at": now,
        "state_updated_at": now,
        "metadata": metadata,
        "status": "idle",
        "config": {},
        "values": None,
    }


async def get_thread(server: ServerCore, thread_id: Any) -> dict[str, Any]:
    """The thread's record; 422 for an id that is not a UUID, 404 for an unknown thread."""
    thread_id = parse_uuid(thread_id, "thread")
    thread = await server.threads.get(thread_id)
    if thread is None:
        raise ApiError(404, f"Thread with ID {thread_id} not found")
    return thread


async def set_thread_status(
    server: ServerCore,
    thread_id: str,
    status: str,
    *,
    values: Any = _KEEP,
    interrupts: dict[str, list[Any]] | None = None,
    error: Any = _KEEP,
    thread: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Set the thread's ``status`` (``values``, ``interrupts``, ``error`` when given); the record.

    Giving ``values`` or ``interrupts`` marks the state as updated
    (``state_updated_at``); every call moves ``updated_at``. ``error`` is the
    JSON of what the run raised, or None once a run ends without raising.
    ``thread`` is the thread's record when the caller has just read it (it is not read again).
    """
    if status not in STATUSES:
        raise ArgumentValueError(f"unknown thread status {status!r}: expected one of {STATUSES}")
    if thread is None:
        thread = await get_thread(server, thread_id)
    now = utc_now()
    thread["status"], thread["updated_at"] = status, now
    if values is not _KEEP:
        thread["values"], thread["state_updated_at"] = values, now
    if interrupts is not None:
        thread["interrupts"], thread["state_updated_at"] = interrupts, now
    if error is not _KEEP:
        thread["error"] = error
    await server.threads.put(thread)
    return thread


async def ensure_thread_metadata(
    server: ServerCore,
    thread_id: str,
    graph_id: str,
    assistant_id: str,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Record a run starting on the thread, as the LangGraph Server does; the record.

    ``graph_id`` and ``assistant_id`` go into the thread's metadata; the run's
    ``config`` is merged over the thread's, all but its ``configurable``, which
    stays the thread's (``{}`` at first).
    """
    thread = await get_thread(server, thread_id)
    note_run(thread, graph_id, assistant_id, config)
    await server.threads.put(thread)
    return thread


def note_run(
    thread: dict[str, Any],
    graph_id: str,
    assistant_id: str,
    config: dict[str, Any] | None = None,
    *,
    status: str | None = None,
) -> None:
    """Write into the record ``thread`` a run starting on it (see :func:`ensure_thread_metadata`),
    and its new ``status`` when given; the caller stores it."""
    thread["metadata"].update(graph_id=graph_id, assistant_id=assistant_id)
    kept = thread["config"].get("configurable", {})
    thread["config"] = {**thread["config"], **(config or {}), "configurable": kept}
    thread["updated_at"] = utc_now()
    if status is not None:
        if status not in STATUSES:
            raise ArgumentValueError(
                f"unknown thread status {status!r}: expected one of {STATUSES}"
            )
        thread["status"] = status


async def _create(server: ServerCore, request: Request) -> Response:
    """``POST /threads``: a new idle thread, or the existing one with ``if_exists: do_nothing``."""
    body = request.json_body()
    metadata = object_field(body, "metadata") or {}
    if_exists = enum_field(body, "if_exists", ("raise", "do_nothing")) or "raise"
    if body.get("supersteps"):
        raise ApiError(422, "supersteps is not supported by this server")
    given = body.get("thread_id")
    thread_id = new_uuid7() if given is None else parse_uuid(given, "thread")
    existing = await server.threads.get(thread_id)
    if existing is not None:
        if if_exists == "do_nothing":
            return json_response(200, existing)
        raise ApiError(409, f"Thread with ID {thread_id} already exists")
    thread = new_thread(thread_id, metadata)
    await server.threads.put(thread)
    return json_response(200, thread)


async def _get(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}``: the thread's record."""
    return json_response(200, await get_thread(server, thread_id))


async def _patch(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``PATCH /threads/{thread_id}``: merge ``metadata`` into the thread's (an unknown
    thread is 404 ``Not Found``, the server's words here)."""
    wanted = parse_uuid(thread_id, "thread")
    if await server.threads.get(wanted) is None:
        raise ApiError(404, "Not Found")
    thread = await get_thread(server, wanted)
    thread["metadata"].update(object_field(request.json_body(), "metadata") or {})
    thread["updated_at"] = utc_now()
    await server.threads.put(thread)
    return json_response(200, thread)


async def _delete(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``DELETE /threads/{thread_id}``: forget the thread and its checkpoints; 204."""
    thread = await get_thread(server, thread_id)
    await server.threads.delete(thread["thread_id"])
    for saver in _savers(server):
        await saver.adelete_thread(thread["thread_id"])
    return Response(204)


def _savers(server: ServerCore) -> list[Checkpointer]:
    """The checkpointers the server's threads are stored in, each once."""
    every = (server.checkpointer, *(g.checkpointer for g in server.graphs.values()))
    return list({id(s): s for s in every if s is not None}.values())


async def _copy(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/copy``: a new idle thread with the thread's metadata and
    checkpoints (same checkpoint ids), as the LangGraph Server copies one: its record has
    no values until a run or a state update gives them; an unknown thread is 409."""
    wanted = parse_uuid(thread_id, "thread")
    thread = await server.threads.get(wanted)
    if thread is None:
        raise ApiError(409, "Conflict")
    now = utc_now()
    new_id = new_uuid7()
    record = {
        "thread_id": new_id,
        "created_at": now,
        "updated_at": now,
        "state_updated_at": now,
        "metadata": copy.deepcopy(thread["metadata"]),
        "status": "idle",
        "config": {},
    }
    await server.threads.put(record)
    for saver in _savers(server):
        await acopy_thread(saver, wanted, new_id)
    return json_response(200, record)


async def _prune(server: ServerCore, request: Request) -> Response:
    """``POST /threads/prune``: delete the listed threads with their checkpoints (strategy
    ``delete``); ``pruned_count`` counts those that existed."""
    body = request.json_body()
    ids = body.get("thread_ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise not_of_type(ids, "array", ("thread_ids",))
    strategy = enum_field(body, "strategy", ("delete", "keep_latest")) or "delete"
    if strategy == "keep_latest":
        raise ApiError(422, "keep_latest strategy is not supported by this server")
    pruned = 0
    for given in ids:
        thread = await server.threads.get(parse_uuid(given, "thread"))
        if thread is None:
            continue
        await server.threads.delete(thread["thread_id"])
        for saver in _savers(server):
            await saver.adelete_thread(thread["thread_id"])
        pruned += 1
    return json_response(200, {"pruned_count": pruned})


async def _matching(server: ServerCore, body: dict[str, Any]) -> list[dict[str, Any]]:
    metadata, values = object_field(body, "metadata") or {}, object_field(body, "values")
    status, ids = enum_field(body, "status", STATUSES), _ids_of(body)
    return [
        thread
        for thread in await server.threads.all()
        if (status is None or thread["status"] == status)
        and (ids is None or thread["thread_id"] in ids)
        and contains(thread["metadata"], metadata)
        and (values is None or contains(thread.get("values"), values))
    ]


def _ids_of(body: dict[str, Any]) -> set[str] | None:
    ids = body.get("ids")
    if ids is None:
        return None
    if not isinstance(ids, list):
        raise not_of_type(ids, "array", ("ids",))
    try:
        return {parse_uuid(one, "thread") for one in ids}
    except ApiError:
        bad = next(one for one in ids if not _is_uuid(one))
        raise ApiError(400, f"Invalid thread ID {bad}") from None


def _is_uuid(value: Any) -> bool:
    try:
        parse_uuid(value, "thread")
    except ApiError:
        return False
    return True


async def _search(server: ServerCore, request: Request) -> Response:
    """``POST /threads/search``: filtered by metadata, ids, status and values; sorted; paged.

    Without ``sort_by`` the most recently updated thread comes first.
    """
    body = request.json_body()
    found = sort_records(body, await _matching(server, body), SORT_FIELDS, "updated_at")
    page = page_of(body, found)
    return json_response(200, select_fields(body, page, SELECT_FIELDS), paging_headers(body, found))


async def _count(server: ServerCore, request: Request) -> Response:
    """``POST /threads/count``: how many threads the search filters match."""
    return json_response(200, len(await _matching(server, request.json_body())))


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/threads", _create),
    ("POST", "/threads/search", _search),
    ("POST", "/threads/count", _count),
    ("POST", "/threads/prune", _prune),
    ("GET", "/threads/{thread_id}", _get),
    ("PATCH", "/threads/{thread_id}", _patch),
    ("DELETE", "/threads/{thread_id}", _delete),
    ("POST", "/threads/{thread_id}/copy", _copy),
]
