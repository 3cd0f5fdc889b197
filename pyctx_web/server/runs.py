"""Runs: stream a run of a thread (or of no thread), wait for one, list and get their records.

``POST /threads/{thread_id}/runs/stream`` answers ``text/event-stream``: the
run's events (:mod:`.run_events`) as SSE (:mod:`.sse`), with ``Content-Location``
naming the run and ``Location`` its stream. ``POST /runs/stream`` runs on a
fresh thread that is deleted afterwards (a stateless run). ``.../runs/wait``
answers the run's last values as JSON. A run's record::

    {"run_id", "thread_id", "assistant_id", "created_at", "updated_at",
     "status", "metadata", "multitask_strategy", "kwargs"}

``status`` goes ``pending`` -> ``running`` -> ``success`` or ``error`` (the graph
raised); ``interrupted`` when the client left before the run ended (which
cancels it). A run that pauses on an interrupt is a ``success``: its thread is
``interrupted``. Records are kept per server, for the process's life.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.state import CompiledStateGraph
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
from pyctx_web.server.assistants import resolve_assistant
from pyctx_web.server.run_events import RunOutcome, command_from_json, graph_modes, run_events
from pyctx_web.server.state_json import interrupt_json, to_jsonable
from pyctx_web.server.threads import (
    ensure_thread_metadata,
    get_thread,
    new_thread,
    set_thread_status,
)

__all__ = ["ROUTES", "RUN_STATUSES", "runs_of"]

RUN_STATUSES: Final = ("pending", "running", "success", "error", "interrupted")
"""A run's statuses."""

SSE_HEADERS: Final = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
}

_RUNS: weakref.WeakKeyDictionary[ServerCore, dict[str, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)


def runs_of(server: ServerCore) -> dict[str, dict[str, Any]]:
    """The server's run records by run id, oldest first."""
    return _RUNS.setdefault(server, {})


@dataclass
class RunPlan:
    """What a run request asks: its graph, input, config and how to stream it."""

    record: dict[str, Any]
    graph: CompiledStateGraph
    input: Any
    config: dict[str, Any]
    stream_modes: list[str]
    subgraphs: bool
    resumable: bool
    options: dict[str, Any]


def _stream_modes(body: Mapping[str, Any]) -> list[str]:
    modes = body.get("stream_mode", ["values"])
    modes = [modes] if isinstance(modes, str) else modes
    if not isinstance(modes, list) or not all(isinstance(m, str) for m in modes):
        raise ApiError(422, "Invalid stream_mode: expected a mode name or a list of them")
    try:
        graph_modes(modes)
    except ArgumentValueError as error:
        raise ApiError(422, str(error)) from None
    return modes or ["values"]


def _input_of(body: Mapping[str, Any]) -> Any:
    command = body.get("command")
    if command is None:
        return body.get("input")
    if not isinstance(command, Mapping):
        raise ApiError(422, "Invalid command: expected a JSON object")
    try:
        return command_from_json(command)
    except ArgumentValueError as error:
        raise ApiError(422, str(error)) from None


def _object(body: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = body.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ApiError(422, f"Invalid {name}: expected a JSON object")
    return dict(value)


def _run_metadata(
    body: Mapping[str, Any], assistant: dict[str, Any], thread: dict[str, Any]
) -> dict[str, Any]:
    """The run's metadata: the assistant's, the thread's, the config's, the body's, merged."""
    config = _object(body, "config")
    return {
        **(assistant.get("metadata") or {}),
        **thread["metadata"],
        "graph_id": assistant["graph_id"],
        **(config.get("metadata") or {}),
        **_object(body, "metadata"),
        "assistant_id": assistant["assistant_id"],
    }


def _config_of(
    body: Mapping[str, Any], record: dict[str, Any], graph_id: str, thread: dict[str, Any]
) -> dict[str, Any]:
    """The run's config: the body's over the thread's, with the checkpoint and the run named."""
    config = _object(body, "config")
    given = dict(config.get("configurable") or {})
    thread_configurable = thread["config"].get("configurable") or {}
    configurable = {**thread_configurable, **given}
    checkpoint = _object(body, "checkpoint")
    checkpoint.pop("thread_id", None)
    if body.get("checkpoint_id"):
        checkpoint["checkpoint_id"] = body["checkpoint_id"]
    configurable.update(checkpoint)
    configurable.update(
        thread_id=record["thread_id"],
        run_id=record["run_id"],
        assistant_id=record["assistant_id"],
        graph_id=graph_id,
        user_id=given.get("user_id") or thread_configurable.get("user_id") or "",
    )
    config["configurable"] = configurable
    # LangGraph copies a run's plain configurable values into its metadata; these are them.
    config["metadata"] = {
        **record["metadata"],
        "run_attempt": 1,
        "thread_id": record["thread_id"],
        "run_id": record["run_id"],
        "user_id": configurable["user_id"],
    }
    return config


def _options_of(body: Mapping[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for name in ("context", "interrupt_before", "interrupt_after", "durability"):
        if body.get(name) is not None:
            options[name] = body[name]
    if "durability" not in options:  # the server's default, as checkpoint_during says
        options["durability"] = "exit" if body.get("checkpoint_during") is False else "async"
    return options


def _plan(server: ServerCore, body: Mapping[str, Any], thread: dict[str, Any]) -> RunPlan:
    """The run a request body asks for; 422 or 404 for a bad one, before anything runs."""
    if "assistant_id" not in body:
        raise ApiError(422, "Invalid run: assistant_id is required")
    assistant, graph = resolve_assistant(server, body["assistant_id"])
    now = utc_now()
    record: dict[str, Any] = {
        "run_id": new_uuid7(),
        "thread_id": thread["thread_id"],
        "assistant_id": assistant["assistant_id"],
        "created_at": now,
        "updated_at": now,
        "status": "pending",
        "metadata": _run_metadata(body, assistant, thread),
        "multitask_strategy": body.get("multitask_strategy") or "reject",
        "kwargs": {},
    }
    modes = _stream_modes(body)
    plan = RunPlan(
        record=record,
        graph=graph,
        input=_input_of(body),
        config=_config_of(body, record, assistant["graph_id"], thread),
        stream_modes=modes,
        subgraphs=bool(body.get("stream_subgraphs")),
        resumable=bool(body.get("stream_resumable")),
        options=_options_of(body),
    )
    record["kwargs"] = {
        "input": to_jsonable(body.get("input")),
        "command": to_jsonable(body.get("command")),
        "config": to_jsonable(plan.config),
        "context": to_jsonable(body.get("context")),
        "stream_mode": modes,
        "interrupt_before": body.get("interrupt_before"),
        "interrupt_after": body.get("interrupt_after"),
        "subgraphs": plan.subgraphs,
        "resumable": plan.resumable,
    }
    return plan


async def _start(server: ServerCore, request: Request, thread_id: str | None) -> RunPlan:
    """Check the request and its thread, store the pending run, mark the thread busy."""
    body = request.json_body()
    if thread_id is None:  # a stateless run: its own thread, deleted when it ends
        thread = new_thread(new_uuid7(), {})
        plan = _plan(server, body, thread)
        await server.threads.put(thread)
    else:
        thread = await get_thread(server, thread_id)
        if thread["status"] == "busy":
            raise ApiError(409, "Thread is already running a task. Wait for it to finish.")
        plan = _plan(server, body, thread)
    thread_id = plan.record["thread_id"]
    runs_of(server)[plan.record["run_id"]] = plan.record
    graph_id = plan.config["configurable"]["graph_id"]
    assistant_id = plan.record["assistant_id"]
    await ensure_thread_metadata(server, thread_id, graph_id, assistant_id, _object(body, "config"))
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
        async for item in events:
            yield item
    finally:
        await events.aclose()
        await _finish(server, plan, outcome)
        if stateless:
            await _forget_thread(server, plan)


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
