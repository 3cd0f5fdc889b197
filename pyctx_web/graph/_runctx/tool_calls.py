"""How a tool call runs: schema check, ``tool:*`` middleware and events, record, own context."""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextvars import copy_context
from typing import TYPE_CHECKING, Any, Protocol

from pyctx_web.context import ContextCoroutine
from pyctx_web.graph._runctx.context import RunContext
from pyctx_web.graph._runctx.log import RunLog, ToolCallRecord
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


__all__ = ["ToolServices", "call_tool"]


async def call_tool(
    runtime: ToolServices, ctx: RunContext[Any], log: RunLog, name: str, args: Mapping[str, Any]
) -> Any:
    """Run tool ``name`` for the run ``ctx``; see :meth:`RunContext.call_tool`."""
    tool = runtime.tools.get(name)
    if tool is None:
        raise UnknownToolError(name, sorted(runtime.tools))
    tool.check(args)
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
            )
        )
    if invocation.error is not None:
        raise invocation.error
    return invocation.result
