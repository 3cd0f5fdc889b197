"""How tool calls run: schema check, review, ``awrap_tool_call`` middleware, record, events.

Each call is streamed to ``stream_mode="custom"`` consumers as two chunks,
``{"event": "tool:start", "tool", "args", "id"}`` before it runs and
``{"event": "tool:end", "tool", "id", "result", "error", "duration_ms"}``
after, and recorded in the run's log.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from contextvars import copy_context
from typing import TYPE_CHECKING, Any, Final

from pyctx_web._records import record
from pyctx_web.context import ContextCoroutine
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._engine.extension import ToolCallRecord, ToolResult
from pyctx_web.graph._engine.frames import current_task
from pyctx_web.graph._runctx.approval import PlannedCall, review
from pyctx_web.graph._runctx.middleware import ToolCallRequest, wrap_tool_call
from pyctx_web.graph.errors import UnknownToolError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.extension import RunRecord
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.runtime import Runtime
    from pyctx_web.graph._runctx.services import GraphServices
    from pyctx_web.graph._runctx.tools import Tool

__all__ = ["ToolRun", "call_tools"]

_CALL_KEYS: Final = ("name", "arguments", "args", "id", "type")
"""The keys a tool call dict may have (``args`` and ``type`` as LangChain's tool calls)."""


def _one_call(index: int, given: Any) -> tuple[str, Any, str | None]:
    """``(name, arguments, id)`` of the ``index``-th call given to ``call_tools``."""
    where = f"call_tools() call {index}"
    if isinstance(given, tuple) and len(given) == 2:
        name, arguments, call_id = given[0], given[1], None
    elif isinstance(given, Mapping):
        extra = sorted(str(k) for k in given if k not in _CALL_KEYS)
        if extra or ("arguments" in given and "args" in given):
            raise ArgumentValueError(
                f"{where} has unexpected key(s) {extra or ['arguments', 'args']!r}; a call is "
                f"{{'name': ..., 'arguments': {{...}}, 'id': ...}} ('args' for 'arguments')"
            )
        name, call_id = given.get("name"), given.get("id")
        arguments = given.get("arguments", given.get("args"))
    else:
        raise ArgumentTypeError(
            f"{where} must be a dict {{'name', 'arguments', 'id'}} or a (name, arguments) "
            f"tuple, not {type(given).__name__!r}"
        )
    if not isinstance(name, str):
        raise ArgumentTypeError(f"{where}: the tool name must be a str, not {name!r}")
    if call_id is not None and not isinstance(call_id, str):
        raise ArgumentTypeError(f"{where}: the id must be a str or None, not {call_id!r}")
    return name, {} if arguments is None else arguments, call_id


def _planned(tools: Mapping[str, Tool], calls: Any) -> list[PlannedCall]:
    """The calls checked: known tools, arguments that satisfy their schemas."""
    if isinstance(calls, (str, bytes, Mapping)) or not isinstance(calls, Iterable):
        raise ArgumentTypeError(
            f"call_tools() takes a list of tool calls, not {type(calls).__name__!r}"
        )
    planned = []
    for index, given in enumerate(calls):
        name, arguments, call_id = _one_call(index, given)
        tool = tools.get(name)
        if tool is None:
            raise UnknownToolError(name, sorted(tools))
        tool.check(arguments)
        planned.append(PlannedCall(name, dict(arguments), call_id))
    return planned


def _node() -> str | None:
    frame = current_task.get_store()
    return frame.task.name if frame is not None else None


@record(frozen=True, slots=True)
class ToolRun:
    """What tool calls of one run need: the run, the graph's services, the log, the runtime."""

    run: Run
    services: GraphServices
    record: RunRecord
    runtime: Runtime[Any]


async def call_tools(tooling: ToolRun, calls: Any) -> list[ToolResult]:
    """Run ``calls`` after their review; see :meth:`Runtime.call_tools`."""
    services = tooling.services
    planned = _planned(services.tools, calls)
    verdicts = await review(services.tools, services.middleware, tooling.runtime, planned)
    results = []
    for call, verdict in zip(planned, verdicts, strict=True):
        if verdict is None:
            result, args = await _run(tooling, call.name, call.arguments, call.id, None)
            results.append(ToolResult(call.name, args, result, "ran", call.id))
        elif verdict.status == "rejected":
            # The tool does not run; the record keeps the call and the reject message.
            record = ToolCallRecord(
                call.name, dict(call.arguments), verdict.message, None, _node(), 0.0, "rejected"
            )
            tooling.record.tool_calls.append(record)
            results.append(
                ToolResult(call.name, call.arguments, verdict.message, "rejected", call.id)
            )
        else:
            status = verdict.status
            result, args = await _run(tooling, verdict.name, verdict.arguments, call.id, status)
            results.append(ToolResult(verdict.name, args, result, status, call.id))
    return results


async def _run(
    tooling: ToolRun,
    name: str,
    args: Mapping[str, Any],
    call_id: str | None,
    reviewed: str | None,
) -> tuple[Any, dict[str, Any]]:
    """Run one checked call inside its ``awrap_tool_call`` middleware; return result and args."""
    run, services, node = tooling.run, tooling.services, _node()
    runtime = tooling.runtime
    ran: dict[str, Any] = dict(args)

    async def execute(request: ToolCallRequest) -> Any:
        nonlocal ran
        tool, ran = request.tool, dict(request.tool_call.get("args") or {})
        if request is not given:
            tool.check(ran)  # middleware may have given other arguments
        # Each tool call runs in its own copy of the context: what it sets in the
        # context store is not seen by its caller or by other calls.
        return await ContextCoroutine(tool.invoke(ran, runtime), copy_context())

    given = ToolCallRequest(
        {"name": name, "args": args, "id": call_id}, services.tools[name], runtime
    )
    if run.listens("custom"):
        run.emit("custom", {"event": "tool:start", "tool": name, "args": dict(args), "id": call_id})
    started = time.perf_counter()
    result: Any = None
    error: Exception | None = None
    try:
        result = await wrap_tool_call(services.tool_wrappers, given, execute)
    except Exception as caught:
        error = caught
    duration_ms = (time.perf_counter() - started) * 1000
    if run.listens("custom"):
        run.emit("custom", {
            "event": "tool:end", "tool": name, "id": call_id, "result": result,
            "error": None if error is None else repr(error), "duration_ms": duration_ms,
        })  # fmt: skip
    tooling.record.tool_calls.append(
        ToolCallRecord(
            name=name,
            args=ran,
            result=None if error is not None else result,
            error=None if error is None else repr(error),
            node=node,
            duration_ms=duration_ms,
            review=reviewed,
        )
    )
    if error is not None:
        raise error
    return result, ran
