"""A thread's state and history: the ``/threads/{thread_id}/state`` and ``/history`` routes.

The graph of a thread is the one its first run named (``graph_id`` in the
thread's metadata); a thread no graph has run on has the empty state (no
values, no checkpoint) and no history, as on the LangGraph Server. States are
read with the graph's ``aget_state`` / ``aget_state_history`` under
``{"configurable": {"thread_id": ..., "checkpoint_ns": ..., "checkpoint_id": ...}}``
and sent as :func:`~pyctx_web.server.state_json.thread_state` gives them.

``POST /threads/{thread_id}/state`` writes a new checkpoint with the graph's
``aupdate_state`` (as node ``as_node``) and sets the thread's values, status
(``interrupted`` while nodes are left to run, else ``idle``) and interrupts
from it. The history is newest first; without a ``limit`` it holds one state,
as the server gives it (the SDK always sends one, 10 by default).
"""

from __future__ import annotations

from typing import Any

from pyctx_web.graph.errors import InvalidUpdateError
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server._core import ServerCore
from pyctx_web.server._http import ApiError, Handler, Request, Response, json_response
from pyctx_web.server.state_json import (
    empty_thread_state,
    interrupt_json,
    thread_state,
    to_jsonable,
)
from pyctx_web.server.threads import get_thread, set_thread_status

__all__ = ["ROUTES"]


async def _thread_graph(
    server: ServerCore, thread_id: str
) -> tuple[str, CompiledStateGraph | None]:
    """The thread's canonical id and the graph its runs use (None when none has run on it)."""
    thread = await get_thread(server, thread_id)
    graph_id = (thread.get("metadata") or {}).get("graph_id")
    return thread["thread_id"], server.graphs.get(graph_id) if isinstance(graph_id, str) else None


def _flag(value: Any) -> bool:
    """A ``subgraphs`` flag from a query string (``true``/``True``) or a JSON body."""
    return value is True or value in ("true", "True")


def _checkpoint_fields(checkpoint: Any, what: str) -> dict[str, Any]:
    """A ``checkpoint`` object of a request body as configurable fields (thread_id left out)."""
    if checkpoint is None:
        return {}
    if not isinstance(checkpoint, dict):
        raise ApiError(422, f"{what} must be an object")
    return {key: value for key, value in checkpoint.items() if key != "thread_id"}


async def _state_response(
    server: ServerCore, thread_id: str, fields: dict[str, Any], subgraphs: bool
) -> Response:
    """The thread's state at the checkpoint ``fields`` name (its latest when they name none)."""
    tid, graph = await _thread_graph(server, thread_id)
    if graph is None:
        return json_response(200, empty_thread_state())
    config = {"configurable": {**fields, "thread_id": tid}}
    snapshot = await graph.aget_state(config, subgraphs=subgraphs)
    return json_response(200, thread_state(snapshot))


async def get_state(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}/state``: the thread's latest state."""
    subgraphs = _flag(request.query_value("subgraphs"))
    return await _state_response(server, thread_id, {}, subgraphs)


async def get_state_at(
    server: ServerCore, request: Request, thread_id: str, checkpoint_id: str
) -> Response:
    """``GET /threads/{thread_id}/state/{checkpoint_id}``: the state at one checkpoint."""
    subgraphs = _flag(request.query_value("subgraphs"))
    return await _state_response(server, thread_id, {"checkpoint_id": checkpoint_id}, subgraphs)


async def post_state_at(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/state/checkpoint``: the state at the body's ``checkpoint``."""
    body = request.json_body()
    if not isinstance(body.get("checkpoint"), dict):
        raise ApiError(422, "checkpoint is required and must be an object")
    fields = _checkpoint_fields(body["checkpoint"], "checkpoint")
    return await _state_response(server, thread_id, fields, _flag(body.get("subgraphs")))


async def update_state(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/state``: a new checkpoint, ``values`` written as ``as_node``."""
    body = request.json_body()
    tid, graph = await _thread_graph(server, thread_id)
    if graph is None:
        raise ApiError(400, f"Thread {tid} has no graph: run it before updating its state")
    as_node = body.get("as_node")
    if as_node is not None and not isinstance(as_node, str):
        raise ApiError(422, "as_node must be a string")
    fields = _checkpoint_fields(body.get("checkpoint"), "checkpoint")
    if body.get("checkpoint_id"):
        fields["checkpoint_id"] = body["checkpoint_id"]
    config = {"configurable": {**fields, "thread_id": tid}}
    try:
        next_config = await graph.aupdate_state(config, body.get("values"), as_node=as_node)
    except InvalidUpdateError as error:
        raise ApiError(400, str(error)) from None
    snapshot = await graph.aget_state(next_config)
    await _record_state(server, tid, snapshot)
    configurable = to_jsonable(next_config["configurable"])
    return json_response(
        200,
        {
            "checkpoint": configurable,
            "checkpoint_id": configurable.get("checkpoint_id"),
            "configurable": configurable,
        },
    )


async def _record_state(server: ServerCore, thread_id: str, snapshot: Any) -> None:
    """Set the thread's values, status and interrupts (by task id) from its latest state."""
    interrupts = {
        task.id: [interrupt_json(i) for i in task.interrupts]
        for task in snapshot.tasks
        if task.interrupts
    }
    status = "interrupted" if snapshot.next else "idle"
    values = to_jsonable(snapshot.values)
    await set_thread_status(server, thread_id, status, values=values, interrupts=interrupts)


def _limit(value: Any) -> int:
    """A history ``limit``: a positive int (1 when not given), else 422."""
    if value is None or value == "":
        return 1
    try:
        limit = int(value)
    except (TypeError, ValueError):
        raise ApiError(422, f"Invalid limit {value}") from None
    if isinstance(value, bool | float) or limit < 1:
        raise ApiError(422, f"Invalid limit {value}")
    return limit


def _before(value: Any) -> dict[str, Any] | None:
    """A history ``before``: a checkpoint id or a config naming one, as a config."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return {"configurable": {"checkpoint_id": value}}
    if isinstance(value, dict) and isinstance(value.get("configurable"), dict):
        return value
    raise ApiError(422, "before must be a checkpoint id or a config with configurable")


async def _history(
    server: ServerCore,
    thread_id: str,
    fields: dict[str, Any],
    *,
    limit: int,
    before: dict[str, Any] | None,
    metadata: dict[str, Any] | None = None,
) -> Response:
    """The thread's states before ``before``, newest first: ``limit`` of them whose metadata
    holds every item of ``metadata``."""
    tid, graph = await _thread_graph(server, thread_id)
    if graph is None:
        return json_response(200, [])
    config = {"configurable": {"checkpoint_ns": "", **fields, "thread_id": tid}}
    wanted = list((metadata or {}).items())
    states: list[dict[str, Any]] = []
    # The limit counts matching states, so the graph is not asked to stop early under a filter.
    async for snapshot in graph.aget_state_history(
        config, limit=None if wanted else limit, before=before
    ):
        found = snapshot.metadata or {}
        if all(key in found and found[key] == value for key, value in wanted):
            states.append(thread_state(snapshot))
            if len(states) >= limit:
                break
    return json_response(200, states)


async def post_history(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/history``: limit, before, metadata filter, checkpoint."""
    body = request.json_body()
    metadata = body.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise ApiError(422, "metadata must be an object")
    return await _history(
        server,
        thread_id,
        _checkpoint_fields(body.get("checkpoint"), "checkpoint"),
        limit=_limit(body.get("limit")),
        before=_before(body.get("before")),
        metadata=metadata,
    )


async def get_history(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}/history``: query ``limit`` and ``before`` (a checkpoint id)."""
    limit = _limit(request.query_value("limit"))
    before = _before(request.query_value("before"))
    return await _history(server, thread_id, {}, limit=limit, before=before)


ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", "/threads/{thread_id}/state", get_state),
    ("POST", "/threads/{thread_id}/state", update_state),
    ("POST", "/threads/{thread_id}/state/checkpoint", post_state_at),
    ("GET", "/threads/{thread_id}/state/{checkpoint_id}", get_state_at),
    ("POST", "/threads/{thread_id}/history", post_history),
    ("GET", "/threads/{thread_id}/history", get_history),
]
"""The routes of this module, for the server's route table."""
