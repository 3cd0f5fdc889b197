"""The run context: what nodes, tools, middleware and hooks know about their run.

LangGraph's face of it, as in ``langgraph.runtime``: a node parameter
``runtime: Runtime[Ctx]`` gets :class:`Runtime` (``runtime.context`` is the
run's ``context=``), and :func:`get_runtime` finds it anywhere in the run.

A node that takes a second parameter receives the run's :class:`RunContext`
(``ctx.data``, ``ctx.state``, ``ctx.memory``, ``ctx.call_tool``, ``ctx.emit``,
``ctx.cancel``...); anywhere else in the run :func:`get_run_context` finds it.
:class:`Hooks` run when a run starts and ends; :class:`RunHandle` is what
``start()`` returns.
"""

from __future__ import annotations

from pyctx_web.graph._engine.injection import ExecutionInfo, Runtime, get_runtime
from pyctx_web.graph._runctx.context import (
    Hooks,
    RunContext,
    get_run_context,
    require_run_context,
)
from pyctx_web.graph._runctx.lifecycle import RunHandle
from pyctx_web.graph._runctx.log import RunOutcome, RunState, StepRecord, ToolCallRecord, Usage

__all__ = [
    "ExecutionInfo",
    "Hooks",
    "RunContext",
    "RunHandle",
    "RunOutcome",
    "RunState",
    "Runtime",
    "StepRecord",
    "ToolCallRecord",
    "Usage",
    "get_run_context",
    "get_runtime",
    "require_run_context",
]
