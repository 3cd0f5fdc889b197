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
from it; it is refused while a run is in flight (409), on a thread no graph
has run on (400), and when the graph refuses the update (400, its message).
The history is newest first; without a ``limit`` it holds one state, as the
server gives it (the SDK always sends one, 10 by default). Bodies are checked
as the server checks them against its JSON Schemas, with its messages.
"""

from __future__ import annotations

import json
from typing import Any, Final

from pyctx_web.graph._engine.run_metadata import EXTRA_METADATA_KEY
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server._core import ServerCore
from pyctx_web.server._http import (
    ApiError,
    Handler,
    Request,
    Response,
    int_field,
    json_response,
    not_of_type,
    object_field,
    parse_uuid,
    schema_error,
)
from pyctx_web.server.state_json import (
    empty_thread_state,
    interrupt_json,
    thread_state,
    to_jsonable,
)
from pyctx_web.server.threads import get_thread, set_thread_status

__all__ = [
    "ROUTES",
    "get_history",
    "get_state",
    "get_state_at",
    "post_history",
    "post_state_at",
    "update_state",
]


async def _thread_graph(
    server: ServerCore, thread_id: str
) -> tuple[dict[str, Any], CompiledStateGraph | None]:
    """The thread's record and the graph its runs use (None when none has run on it)."""
    thread = await get_thread(server, thread_id)
    graph_id = (thread.get("metadata") or {}).get("graph_id")
    return thread, server.graphs.get(graph_id) if isinstance(graph_id, str) else None


def _flag(value: Any) -> bool:
    """A ``subgraphs`` flag from a query string (``true``/``True``) or a JSON body."""
    return value is True or value in ("true", "True")


def _shown(value: Any) -> str:
    """``value`` as the server's schema messages show it: compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _checkpoint_field(body: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The body's ``CheckpointConfig`` field ``name`` (None when absent), else 422."""
    value = body.get(name)
    if value is None or isinstance(value, dict):
        return value
    shown = _shown(value)
    raise ApiError(
        422,
        f'{shown} is not of type "object"\n\nFailed validating "type" in '
        f'schema["components"]["schemas"]["CheckpointConfig"]\n\nOn instance["{name}"]:\n'
        f"    {shown}",
    )


async def _state_response(
    server: ServerCore, tid: str, fields: dict[str, Any], subgraphs: bool
) -> Response:
    """The thread's state at the checkpoint ``fields`` name (its latest when they name none)."""
    thread, graph = await _thread_graph(server, tid)
    if graph is None:
        return json_response(200, empty_thread_state())
    config = {"configurable": {**fields, "thread_id": thread["thread_id"]}}
    wanted = fields.get("checkpoint_id")
    saver = graph.checkpointer
    if (
        wanted
        and saver is not None
        and not fields.get("checkpoint_ns")
        and await saver.aget(thread["thread_id"], str(wanted)) is None
    ):
        # The server answers an unknown checkpoint with an empty state that names it.
        return json_response(200, {**empty_thread_state(), **_named(config)})
    state = thread_state(await graph.aget_state(config, subgraphs=subgraphs))
    if "checkpoint_id" in fields and "checkpoint_ns" not in fields and state["checkpoint"]:
        # The server's saver names a checkpoint read by id with the config it was asked for.
        del state["checkpoint"]["checkpoint_ns"]
    return json_response(200, state)


def _named(config: dict[str, Any]) -> dict[str, Any]:
    """The ``checkpoint`` fields of an empty state at the checkpoint ``config`` names."""
    configurable = to_jsonable(config["configurable"])
    return {"checkpoint": configurable, "checkpoint_id": configurable["checkpoint_id"]}


async def get_state(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}/state``: the thread's latest state."""
    tid = parse_uuid(thread_id, "thread")
    return await _state_response(server, tid, {}, _flag(request.query_value("subgraphs")))


async def get_state_at(
    server: ServerCore, request: Request, thread_id: str, checkpoint_id: str
) -> Response:
    """``GET /threads/{thread_id}/state/{checkpoint_id}``: the state at one checkpoint."""
    tid = parse_uuid(thread_id, "thread")
    subgraphs = _flag(request.query_value("subgraphs"))
    return await _state_response(server, tid, {"checkpoint_id": checkpoint_id}, subgraphs)


async def post_state_at(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/state/checkpoint``: the state at the body's ``checkpoint``."""
    tid = parse_uuid(thread_id, "thread")
    body = request.json_body()
    checkpoint = _checkpoint_field(body, "checkpoint")
    if checkpoint is None:
        raise ApiError(
            422,
            '"checkpoint" is a required property\n\nFailed validating "required" in schema'
            f"\n\nOn instance:\n    {_shown(body)}",
        )
    return await _state_response(server, tid, checkpoint, _flag(body.get("subgraphs")))


def _update_config(tid: str, body: dict[str, Any]) -> dict[str, Any]:
    """The config ``aupdate_state`` gets from an update body: its checkpoint on the thread."""
    values = body.get("values")
    if values is not None and not isinstance(values, dict | list):
        raise schema_error(
            values,
            "is not valid under any of the schemas listed in the 'anyOf' keyword",
            "anyOf",
            ("values",),
        )
    as_node = body.get("as_node")
    if as_node is not None and not isinstance(as_node, str):
        raise not_of_type(as_node, "string", ("as_node",))
    fields: dict[str, Any] = {}
    if body.get("checkpoint_id"):
        fields["checkpoint_id"] = body["checkpoint_id"]
    fields.update(_checkpoint_field(body, "checkpoint") or {})
    fields["thread_id"] = tid
    fields.setdefault("checkpoint_ns", "")
    return {"configurable": fields}


async def update_state(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/state``: a new checkpoint, ``values`` written as ``as_node``."""
    tid = parse_uuid(thread_id, "thread")
    body = request.json_body()
    config = _update_config(tid, body)
    thread, graph = await _thread_graph(server, tid)
    if thread.get("status") == "busy":
        raise ApiError(409, f"Thread {tid} has in-flight runs")
    if graph is None:
        raise ApiError(400, _NO_GRAPH.format(tid))
    values, as_node = body.get("values"), body.get("as_node")
    if as_node is not None and as_node not in graph.nodes and as_node not in _SPECIAL_NODES:
        raise ApiError(400, f"Node {as_node} does not exist")
    # The server's update checkpoints name the graph and the thread in their metadata.
    config["metadata"] = {"graph_id": thread["metadata"]["graph_id"]}
    extra = {"thread_id": tid}
    made_on = config["configurable"].get("checkpoint_id")
    if made_on:  # as the server's checkpointer copies it: the checkpoint the update was made on
        extra["checkpoint_id"] = made_on
    config["configurable"][EXTRA_METADATA_KEY] = extra
    # An update the graph refuses raises InvalidUpdateError, a ValueError: the server's 400.
    next_config = await graph.aupdate_state(config, values, as_node=as_node)
    await _record_state(server, tid, await graph.aget_state(next_config))
    configurable = to_jsonable(next_config["configurable"])
    return json_response(
        200,
        {
            "checkpoint": configurable,
            "configurable": configurable,
            "checkpoint_id": configurable.get("checkpoint_id"),
        },
    )


_SPECIAL_NODES: Final = frozenset(("__start__", "__end__", "__input__", "__copy__"))
"""The ``as_node`` values that name no node of the graph but an update of its own kind."""

_NO_GRAPH: Final = (
    "Thread '{}' has no assigned graph ID. This usually occurs when no runs have been made on "
    "this particular thread. This operation requires a graph ID. Please ensure a run has been "
    "made for the thread or manually update the thread metadata (by setting the 'graph_id' "
    "field) before running this operation."
)
"""The server's refusal of a state update on a thread no graph has run on."""


async def _record_state(server: ServerCore, thread_id: str, snapshot: Any) -> None:
    """Set the thread's values, status and interrupts (by task id) from its latest state.

    A thread whose last run failed no longer shows that error once its state is updated."""
    interrupts = {
        task.id: [interrupt_json(i) for i in task.interrupts]
        for task in snapshot.tasks
        if task.interrupts
    }
    status = "interrupted" if snapshot.next else "idle"
    values = to_jsonable(snapshot.values)
    await set_thread_status(
        server, thread_id, status, values=values, interrupts=interrupts, error=None
    )


def _body_limit(body: dict[str, Any]) -> int:
    """The body's history ``limit``: an integer from 1 to 1000, 1 when absent."""
    if "limit" in body and body["limit"] is None:
        raise not_of_type(None, "integer", ("limit",))
    return int_field(body, "limit", 1, 1, 1000)


def _before(value: Any) -> dict[str, Any] | None:
    """A history ``before`` (a config, or the fields of one) as a config."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return {"configurable": {"checkpoint_id": value}}
    if isinstance(value.get("configurable"), dict):
        return value  # type: ignore[no-any-return]
    return {"configurable": value}


async def _history(
    server: ServerCore,
    tid: str,
    fields: dict[str, Any],
    *,
    limit: int,
    before: dict[str, Any] | None,
    metadata: dict[str, Any] | None = None,
) -> Response:
    """The thread's states before ``before``, newest first: up to ``limit`` of them whose
    metadata holds every item of ``metadata``."""
    thread, graph = await _thread_graph(server, tid)
    if graph is None:
        return json_response(200, [])
    config = {"configurable": {"checkpoint_ns": "", **fields, "thread_id": thread["thread_id"]}}
    wanted = list((metadata or {}).items())
    states: list[dict[str, Any]] = []
    # The limit counts matching states, so the graph is not asked to stop early under a filter.
    history = graph.aget_state_history(config, limit=None if wanted else limit, before=before)
    async for snapshot in history:
        found = snapshot.metadata or {}
        if all(key in found and found[key] == value for key, value in wanted):
            states.append(thread_state(snapshot))
            if len(states) >= limit:
                break
    return json_response(200, states)


async def post_history(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``POST /threads/{thread_id}/history``: limit, before, metadata filter, checkpoint."""
    tid = parse_uuid(thread_id, "thread")
    body = request.json_body()
    limit = _body_limit(body)
    before = _before(_checkpoint_field(body, "before"))
    metadata = object_field(body, "metadata") or {}
    fields = _checkpoint_field(body, "checkpoint") or {}
    return await _history(server, tid, fields, limit=limit, before=before, metadata=metadata)


async def get_history(server: ServerCore, request: Request, thread_id: str) -> Response:
    """``GET /threads/{thread_id}/history``: query ``limit`` (1 when absent) and ``before``."""
    tid = parse_uuid(thread_id, "thread")
    given = request.query_value("limit")
    try:
        limit = 1 if given is None else int(given)
    except ValueError:
        raise ApiError(422, f"Invalid limit {given}") from None
    before = _before(request.query_value("before"))
    return await _history(server, tid, {}, limit=limit, before=before)


ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", "/threads/{thread_id}/state", get_state),
    ("POST", "/threads/{thread_id}/state", update_state),
    ("POST", "/threads/{thread_id}/state/checkpoint", post_state_at),
    ("GET", "/threads/{thread_id}/state/{checkpoint_id}", get_state_at),
    ("POST", "/threads/{thread_id}/history", post_history),
    ("GET", "/threads/{thread_id}/history", get_history),
]
"""The routes of this module, for the server's route table."""
