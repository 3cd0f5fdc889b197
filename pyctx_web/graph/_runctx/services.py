"""What a compiled graph gives every run: tools, middleware, hooks, memory and listeners."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph.events import EventBus, RunEvent

if TYPE_CHECKING:
    # Imported where used: a graph compiled without tools, middleware, hooks or memory
    # loads none of them, and the tool-calling machinery waits for the first tool call.
    from pyctx_web.graph._runctx.context import Hooks, RunContext, ToolCallSpec
    from pyctx_web.graph._runctx.log import RunLog, ToolResult
    from pyctx_web.graph.memory import MemoryProvider
    from pyctx_web.graph.middleware import Middleware
    from pyctx_web.graph.tools import Tool

__all__ = ["RunRuntime"]


@dataclass(eq=False)
class RunRuntime:
    """What a compiled graph gives every run: tools, middleware, hooks, memory and listeners."""

    graph_id: str
    """The graph's name."""
    bus: EventBus
    """The graph's listeners."""
    tools: dict[str, Tool] = field(default_factory=dict)
    """The graph's tools by name."""
    middleware: tuple[Middleware[Any], ...] = ()
    """The graph's middleware, outermost first."""
    hooks: Hooks[Any] | None = None
    """The graph's start and end hooks."""
    memory: MemoryProvider | None = None
    """The graph's memory."""
    default_data: Any = None
    """The data every run starts from."""

    @classmethod
    def build(
        cls,
        graph_id: str,
        *,
        data: Any,
        middleware: Sequence[Middleware[Any]],
        hooks: Hooks[Any] | None,
        memory: MemoryProvider | None,
        tools: Sequence[Tool],
    ) -> RunRuntime:
        """Check what ``compile()`` was given for every run, and hold it."""
        _check_services(middleware, hooks, memory)
        table: dict[str, Tool] = {}
        if tools or middleware:
            from pyctx_web.graph.middleware import HumanInTheLoopMiddleware
            from pyctx_web.graph.tools import tool_table

            table = tool_table(tools)
            for item in middleware:
                if isinstance(item, HumanInTheLoopMiddleware):
                    item.check_tools(table)
        return cls(
            graph_id=graph_id,
            bus=EventBus(),
            tools=table,
            middleware=tuple(middleware),
            hooks=hooks,
            memory=memory,
            default_data=data,
        )

    def emit(self, ctx: RunContext[Any], event: str, payload: Any = None) -> None:
        """Send ``event`` of run ``ctx`` to the graph's listeners."""
        if not isinstance(event, str) or not event:
            raise ArgumentValueError(f"event must be a non-empty str, not {event!r}")
        if self.bus.has_listeners(event):
            self.bus.emit(
                RunEvent(event, payload, ctx.graph_id, ctx.run_id, ctx.thread_id, ctx.node)
            )

    async def call_tool(
        self, ctx: RunContext[Any], log: RunLog, name: str, args: Mapping[str, Any]
    ) -> Any:
        """See :meth:`RunContext.call_tool`."""
        from pyctx_web.graph._runctx.tool_calls import call_tool

        return await call_tool(self, ctx, log, name, args)

    async def call_tools(
        self, ctx: RunContext[Any], log: RunLog, calls: Iterable[ToolCallSpec]
    ) -> list[ToolResult]:
        """See :meth:`RunContext.call_tools`."""
        from pyctx_web.graph._runctx.tool_calls import call_tools

        return await call_tools(self, ctx, log, calls)


def _check_services(
    middleware: Sequence[Middleware[Any]], hooks: Hooks[Any] | None, memory: MemoryProvider | None
) -> None:
    """Raise ArgumentTypeError for middleware, hooks or memory of the wrong type."""
    if middleware:
        from pyctx_web.graph.middleware import Middleware

        for item in middleware:
            if not isinstance(item, Middleware):
                raise ArgumentTypeError(
                    f"middleware must be Middleware(name, scopes, run), not {type(item).__name__!r}"
                )
    if hooks is not None:
        from pyctx_web.graph._runctx.context import Hooks

        if not isinstance(hooks, Hooks):
            raise ArgumentTypeError(
                f"hooks must be Hooks(on_start=..., on_end=...), not {type(hooks).__name__!r}"
            )
    if memory is not None:
        from pyctx_web.graph.memory import MemoryProvider

        if not isinstance(memory, MemoryProvider):
            raise ArgumentTypeError(
                f"memory must implement MemoryProvider (read, write, clear, entries), "
                f"not {type(memory).__name__!r}"
            )
