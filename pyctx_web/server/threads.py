"""Threads: create, get, patch, delete, search and count, and the record the other routes update.

A thread is a JSON-ready dict as the LangGraph Server returns it::

    {"thread_id", "created_at", "updated_at", "state_updated_at", "metadata",
     "status", "config", "values", "interrupts"}

``status`` is ``idle``, ``busy`` (a run is going), ``interrupted`` (paused at an
interrupt or breakpoint, or cancelled) or ``error`` (the last run raised);
``values`` is the thread's state after its last run (None before the first);
``interrupts`` maps a task id to its pending interrupts. The runs set these
through :func:`set_thread_status`. The checkpoints themselves live in the
graphs' checkpointer under the same thread id.
"""

from __future__ import annotations

from typing import Any

from pyctx_web.server._core import ServerCore, new_uuid7, utc_now
from pyctx_web.server._http import (
    ApiError,
    Handler,
    Request,
    Response,
    contains,
    json_response,
    page_of,
    parse_uuid,
    select_fields,
    sort_records,
)

__all__ = [
    "ROUTES",
    "STATUSES",
    "ensure_thread_metadata",
    "get_thread",
    "new_thread",
    "set_thread_status",
]

STATUSES = ("idle", "busy", "interrupted", "error")
"""A thread's statuses."""

SORT_FIELDS = ("created_at", "updated_at", "state_updated_at", "thread_id", "status")

_KEEP: Any = object()


def new_thread(thread_id: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """The record of a thread that has not run: idle, no values, no interrupts."""
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
        "interrupts": {},
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
) -> dict[str, Any]:
    """Set the thread's ``status`` (and its ``values`` and ``interrupts`` when given); the record.

    Giving ``values`` or ``interrupts`` marks the state as updated
    (``state_updated_at``); every call moves ``updated_at``.
    """
    if status not in STATUSES:
        raise ValueError(f"unknown thread status {status!r}: expected one of {STATUSES}")
    thread = await get_thread(server, thread_id)
    now = utc_now()
    thread["status"], thread["updated_at"] = status, now
    if values is not _KEEP:
        thread["values"], thread["state_updated_at"] = values, now
    if interrupts is not None:
        thread["interrupts"], thread["state_updated_at"] = interrupts, now
    await server.threads.put(thread)
    return thread


async def ensure_thread_metadata(
    server: ServerCore, thread_id: str, graph_id: str, assistant_id: str
) -> dict[str, Any]:
    """Add ``graph_id`` and ``assistant_id`` to the thread's metadata, as a first run does."""
    thread = await get_thread(server, thread_id)
    metadata = thread["metadata"]
    if metadata.get("graph_id") != graph_id or metadata.get("assistant_id") != assistant_id:
        metadata.update(graph_id=graph_id, assistant_id=assistant_id)
        thread["updated_at"] = utc_now()
        await server.threads.put(thread)
    return thread


def _metadata_of(body: dict[str, Any]) -> dict[str, Any]:
    metadata = body.get("metadata")
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise ApiError(422, "Invalid metadata: expected a JSON object")
    return metadata


async def create(server: ServerCore, request: Request) -> Response:
    """``POST /threads``: a new idle thread, or the existing one with ``if_exists: do_nothing``."""
    body = request.json_body()
    metadata = _metadata_of(body)
    if body.get("supersteps"):
        raise ApiError(422, "supersteps is not supported by this server")
    if_exists = body.get("if_exists") or "raise"
    if if_exists not in ("raise", "do_nothing"):
        raise ApiError(422, f"Invalid if_exists {if_exists!r}: expected raise or do_nothing")
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


async def get(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}``: the thread's record."""
    return json_response(200, await get_thread(server, thread_id))


async def patch(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``PATCH /threads/{thread_id}``: merge ``metadata`` into the thread's."""
    thread = await get_thread(server, thread_id)
    thread["metadata"].update(_metadata_of(request.json_body()))
    thread["updated_at"] = utc_now()
    await server.threads.put(thread)
    return json_response(200, thread)


async def delete(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``DELETE /threads/{thread_id}``: forget the thread and its checkpoints; 204."""
    thread = await get_thread(server, thread_id)
    await server.threads.delete(thread["thread_id"])
    savers = {
        id(s): s for s in (server.checkpointer, *(g.checkpointer for g in server.graphs.values()))
    }
    for saver in savers.values():
        if saver is not None:
            await saver.adelete_thread(thread["thread_id"])
    return Response(204)


async def _matching(server: ServerCore, body: dict[str, Any]) -> list[dict[str, Any]]:
    metadata, values, status = _metadata_of(body), body.get("values"), body.get("status")
    ids = body.get("ids")
    if status is not None and status not in STATUSES:
        raise ApiError(422, f"Invalid status {status!r}: expected one of {', '.join(STATUSES)}")
    if values is not None and not isinstance(values, dict):
        raise ApiError(422, "Invalid values: expected a JSON object")
    if ids is not None:
        ids = {parse_uuid(one, "thread") for one in ids} if isinstance(ids, list) else None
        if ids is None:
            raise ApiError(422, "Invalid ids: expected a list of thread IDs")
    return [
        thread
        for thread in await server.threads.all()
        if (status is None or thread["status"] == status)
        and (ids is None or thread["thread_id"] in ids)
        and contains(thread["metadata"], metadata)
        and (values is None or contains(thread["values"], values))
    ]


async def search(server: ServerCore, request: Request) -> Response:
    """``POST /threads/search``: filtered by metadata, ids, status and values; sorted; paged."""
    body = request.json_body()
    found = sort_records(body, await _matching(server, body), SORT_FIELDS)
    headers = {"x-pagination-total": str(len(found))}
    return json_response(200, select_fields(body, page_of(body, found)), headers)


async def count(server: ServerCore, request: Request) -> Response:
    """``POST /threads/count``: how many threads the search filters match."""
    return json_response(200, len(await _matching(server, request.json_body())))


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/threads", create),
    ("POST", "/threads/search", search),
    ("POST", "/threads/count", count),
    ("GET", "/threads/{thread_id}", get),
    ("PATCH", "/threads/{thread_id}", patch),
    ("DELETE", "/threads/{thread_id}", delete),
]
