"""How tool calls run: schema check, review, ``tool:*`` middleware and events, record, context."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from contextvars import copy_context
from typing import TYPE_CHECKING, Any, Final, Protocol

from pyctx_web.context import ContextCoroutine
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._runctx.approval import PlannedCall, review
from pyctx_web.graph._runctx.context import RunContext
from pyctx_web.graph._runctx.log import RunLog, ToolCallRecord, ToolResult
from pyctx_web.graph.errors import UnknownToolError
from pyctx_web.graph.middleware import MiddlewareContext, ToolInvocation, run_scope
from pyctx_web.graph.tools import Tool

if TYPE_CHECKING:
    from pyctx_web.graph.middleware import Middleware


class ToolServices(Protocol):
    """What a tool call needs of the graph: its tools, middleware and listeners."""

    @property
    def tools(self) -> Mapping[str, Tool]:
        """The graph's tools by name."""

    @property
    def middleware(self) -> tuple[Middleware[Any], ...]:
        """The graph's middleware, outermost first."""

    def emit(self, ctx: RunContext[Any], event: str, payload: Any = None) -> None:
        """Send ``event`` of run ``ctx`` to the graph's listeners."""


__all__ = ["ToolServices", "call_tool", "call_tools"]

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


def _planned(runtime: ToolServices, calls: Any) -> list[PlannedCall]:
    """The calls checked: known tools, arguments that satisfy their schemas."""
    if isinstance(calls, (str, bytes, Mapping)) or not isinstance(calls, Iterable):
        raise ArgumentTypeError(
            f"call_tools() takes a list of tool calls, not {type(calls).__name__!r}"
        )
    planned = []
    for index, given in enumerate(calls):
        name, arguments, call_id = _one_call(index, given)
        tool = runtime.tools.get(name)
        if tool is None:
            raise UnknownToolError(name, sorted(runtime.tools))
        tool.check(arguments)
        planned.append(PlannedCall(name, dict(arguments), call_id))
    return planned


async def call_tools(
    runtime: ToolServices, ctx: RunContext[Any], log: RunLog, calls: Any
) -> list[ToolResult]:
    """Run ``calls`` for the run ``ctx`` after their review; see :meth:`RunContext.call_tools`."""
    planned = _planned(runtime, calls)
    verdicts = await review(runtime.tools, runtime.middleware, ctx, planned)
    results = []
    for call, verdict in zip(planned, verdicts, strict=True):
        if verdict is None:
            done = await _run(runtime, ctx, log, call.name, call.arguments, None)
            results.append(ToolResult(call.name, done.args, done.result, "ran", call.id))
        elif verdict.status == "rejected":
            # The tool does not run; the record keeps the call and the reject message.
            record = ToolCallRecord(
                call.name, dict(call.arguments), verdict.message, None, ctx.node, 0.0, "rejected"
            )
            log.tool_calls.append(record)
            results.append(
                ToolResult(call.name, call.arguments, verdict.message, "rejected", call.id)
            )
        else:
            done = await _run(runtime, ctx, log, verdict.name, verdict.arguments, verdict.status)
            status = verdict.status
            results.append(ToolResult(verdict.name, done.args, done.result, status, call.id))
    return results


async def call_tool(
    runtime: ToolServices, ctx: RunContext[Any], log: RunLog, name: str, args: Mapping[str, Any]
) -> Any:
    """Run tool ``name`` for the run ``ctx``; see :meth:`RunContext.call_tool`."""
    (done,) = await call_tools(runtime, ctx, log, [(name, args)])
    return done.result


async def _run(
    runtime: ToolServices,
    ctx: RunContext[Any],
    log: RunLog,
    name: str,
    args: Mapping[str, Any],
    reviewed: str | None,
) -> ToolInvocation:
    """Run one checked call between its ``tool:*`` middleware; raise what the tool raised."""
    tool = runtime.tools[name]
    node = ctx.node
    invocation = ToolInvocation(name, dict(args))
    before = MiddlewareContext("tool:before", ctx, node=node, tool=invocation)
    reached = await run_scope(runtime.middleware, before)
    if reached:
        tool.check(invocation.args)  # middleware may have rewritten them
    runtime.emit(ctx, "tool:start", {"tool": name, "args": invocation.args})
    started = time.perf_counter()
    try:
        if reached:
            # Each tool call runs in its own copy of the context: what it sets in
            # the context store is not seen by its caller or by other calls.
            invocation.result = await ContextCoroutine(
                tool.invoke(invocation.args, ctx), copy_context()
            )
    except Exception as error:
        invocation.error = error
    duration_ms = (time.perf_counter() - started) * 1000
    runtime.emit(
        ctx,
        "tool:end",
        {
            "tool": name,
            "result": invocation.result,
            "error": None if invocation.error is None else repr(invocation.error),
            "duration_ms": duration_ms,
        },
    )
    after = MiddlewareContext("tool:after", ctx, node=node, tool=invocation)
    try:
        await run_scope(runtime.middleware, after)
    finally:
        log.tool_calls.append(
            ToolCallRecord(
                name=name,
                args=dict(invocation.args),
                result=None if invocation.error is not None else invocation.result,
                error=None if invocation.error is None else repr(invocation.error),
                node=node,
                duration_ms=duration_ms,
                review=reviewed,
            )
        )
    if invocation.error is not None:
        raise invocation.error
    return invocation
