"""The run's runtime: what a node or tool gets for its run, as ``langgraph.runtime``.

A node asks for it with a parameter ``runtime: Runtime[Ctx]`` (a tool with a
parameter annotated ``Runtime``), and :func:`get_runtime` finds it anywhere in
the run. ``runtime.context`` is the run's ``context=``; what pyctx_web adds is
reached from the same object: ``await runtime.call_tool(name, args)`` and
``runtime.call_tools(calls)`` (each a :class:`ToolResult`), ``runtime.memory``,
``runtime.log`` (a :class:`RunLog` of :class:`StepRecord`,
:class:`ToolCallRecord`, :class:`Message` and :class:`Usage`),
``runtime.add_message``, ``runtime.add_usage`` and ``runtime.cancel()``.

:class:`RunHandle` is what ``CompiledStateGraph.start()`` returns: await it,
read its ``log`` and ``outcome`` (a :class:`RunOutcome`), or cancel it.
"""

from __future__ import annotations

from pyctx_web.graph._engine.extension import (
    Message,
    RunLog,
    RunOutcome,
    StepRecord,
    ToolCallRecord,
    ToolResult,
    Usage,
)
from pyctx_web.graph._engine.runtime import (
    ExecutionInfo,
    RunControl,
    Runtime,
    ServerInfo,
    get_runtime,
)
from pyctx_web.graph._runctx.lifecycle import RunHandle

__all__ = [
    "ExecutionInfo",
    "Message",
    "RunControl",
    "RunHandle",
    "RunLog",
    "RunOutcome",
    "Runtime",
    "ServerInfo",
    "StepRecord",
    "ToolCallRecord",
    "ToolResult",
    "Usage",
    "get_runtime",
]
