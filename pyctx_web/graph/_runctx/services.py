"""What a compiled graph gives every run: tools, middleware, memory, the default context."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError

if TYPE_CHECKING:
    # Imported where used: a graph compiled without tools, middleware or memory loads
    # none of them, and the tool-calling machinery waits for the first tool call.
    from pyctx_web.graph._engine.extension import MemoryProvider
    from pyctx_web.graph._runctx.middleware import AgentMiddleware
    from pyctx_web.graph._runctx.tools import Tool

__all__ = ["GraphServices", "merge_context"]


@record(eq=False)
class GraphServices:
    """What a compiled graph gives every run: tools, middleware, memory, the default context."""

    graph_id: str
    """The graph's name."""
    tools: dict[str, Tool] = field(default_factory=dict)
    """The graph's tools by name."""
    middleware: tuple[AgentMiddleware[Any], ...] = ()
    """The graph's middleware, outermost first."""
    memory: MemoryProvider | None = None
    """The graph's memory."""
    default_context: Any = None
    """The context every run starts from (``compile(context=...)``)."""
    node_wrappers: tuple[AgentMiddleware[Any], ...] = ()
    """The middleware that override ``awrap_node_call``, outermost first (found once)."""
    tool_wrappers: tuple[AgentMiddleware[Any], ...] = ()
    """The middleware that override ``awrap_tool_call``, outermost first (found once)."""

    @classmethod
    def build(
        cls,
        graph_id: str,
        *,
        context: Any,
        middleware: Sequence[AgentMiddleware[Any]],
        memory: MemoryProvider | None,
        tools: Sequence[Tool],
    ) -> GraphServices:
        """Check what ``compile()`` was given for every run, and hold it."""
        checked: tuple[AgentMiddleware[Any], ...] = ()
        wrappers: dict[str, tuple[AgentMiddleware[Any], ...]] = {}
        table: dict[str, Tool] = {}
        if middleware:
            from pyctx_web.graph._runctx.middleware import AgentMiddleware, check_middleware

            checked = check_middleware(middleware)
            for hook in ("awrap_node_call", "awrap_tool_call"):
                base = getattr(AgentMiddleware, hook)
                wrappers[hook] = tuple(m for m in checked if getattr(type(m), hook) is not base)
        if tools or middleware:
            from pyctx_web.graph._runctx.hitl import HumanInTheLoopMiddleware
            from pyctx_web.graph._runctx.tools import tool_table

            table = tool_table(tools)
            for item in checked:
                if isinstance(item, HumanInTheLoopMiddleware):
                    item.check_tools(table)
        if memory is not None:
            from pyctx_web.graph._engine.extension import MemoryProvider

            if not isinstance(memory, MemoryProvider):
                raise ArgumentTypeError(
                    f"memory must implement MemoryProvider (read, write, clear, entries), "
                    f"not {type(memory).__name__!r}"
                )
        return cls(
            graph_id,
            table,
            checked,
            memory,
            context,
            wrappers.get("awrap_node_call", ()),
            wrappers.get("awrap_tool_call", ()),
        )


def merge_context(default: Any, given: Any) -> Any:
    """The run's context: ``given`` itself, or a shallow copy of the graph's default.

    A mapping given for a dataclass default sets those fields on a copy of the
    default (typed context from a dict, as a context schema is built from one).
    Never a deep copy, so the context may hold a lock, a database connection or a
    ``JsProxy``; the shallow copy keeps a field assigned in one run from being
    seen by the next.
    """
    if given is None:
        try:
            return copy.copy(default)
        except TypeError:
            # An object that cannot be copied (a lock, a connection) is shared as it is.
            return default
    typed = dataclasses.is_dataclass(default) and not isinstance(default, type)
    if isinstance(given, Mapping) and typed:
        names = {f.name for f in dataclasses.fields(default)}
        unknown = sorted(set(given) - names)
        if unknown:
            raise ArgumentTypeError(
                f"context has no field(s) {', '.join(map(repr, unknown))}; "
                f"{type(default).__qualname__} has {', '.join(sorted(names))}"
            )
        return dataclasses.replace(default, **given)
    return given
