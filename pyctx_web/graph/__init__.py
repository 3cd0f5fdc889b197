"""Interruptible state graphs, LangGraph-compatible, on CPython and in Pyodide.

Build a :class:`StateGraph`, compile it with a checkpointer, and run it::

    class State(TypedDict):
        question: str
        answer: str

    def ask(state: State) -> dict[str, str]:
        return {"answer": interrupt(state["question"])}

    builder = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemoryCheckpointer())
    paused = await graph.ainvoke({"question": "name?"}, thread_id="t1")
    paused["__interrupt__"]            # [Interrupt(value='name?', id='...')]
    await graph.ainvoke(Command(resume="Ada"), thread_id="t1")  # {..., 'answer': 'Ada'}

The current run and task are found through :class:`pyctx_web.AsyncLocalStorage`,
so ``interrupt()`` works under any concurrency.
"""

from __future__ import annotations

from pyctx_web.graph.builder import StateGraph
from pyctx_web.graph.checkpoint import (
    Checkpointer,
    IndexedDBCheckpointer,
    InMemoryCheckpointer,
    SQLiteCheckpointer,
)
from pyctx_web.graph.compiled import CompiledGraph
from pyctx_web.graph.errors import (
    CheckpointError,
    GraphConfigError,
    GraphError,
    GraphInterrupt,
    GraphRecursionError,
    InvalidGraphError,
    InvalidUpdateError,
    ResumeError,
    RunCancelledError,
    SerializationError,
    SyncUnavailableError,
    ToolArgumentError,
    UnknownToolError,
)
from pyctx_web.graph.events import RunEvent
from pyctx_web.graph.interrupt import interrupt
from pyctx_web.graph.lifecycle import RunHandle
from pyctx_web.graph.memory import InMemoryMemory, MemoryEntry, MemoryProvider
from pyctx_web.graph.middleware import Middleware, MiddlewareContext, ToolInvocation
from pyctx_web.graph.run import get_stream_writer
from pyctx_web.graph.run_context import (
    Hooks,
    RunContext,
    RunOutcome,
    RunState,
    StepRecord,
    ToolCallRecord,
    Usage,
    get_run_context,
    require_run_context,
)
from pyctx_web.graph.tools import Tool, tool
from pyctx_web.graph.types import (
    END,
    START,
    Command,
    Interrupt,
    PregelTask,
    RetryPolicy,
    Send,
    StateSnapshot,
)

__all__ = [
    "END",
    "START",
    "CheckpointError",
    "Checkpointer",
    "Command",
    "CompiledGraph",
    "GraphConfigError",
    "GraphError",
    "GraphInterrupt",
    "GraphRecursionError",
    "Hooks",
    "InMemoryCheckpointer",
    "InMemoryMemory",
    "IndexedDBCheckpointer",
    "Interrupt",
    "InvalidGraphError",
    "InvalidUpdateError",
    "MemoryEntry",
    "MemoryProvider",
    "Middleware",
    "MiddlewareContext",
    "PregelTask",
    "ResumeError",
    "RetryPolicy",
    "RunCancelledError",
    "RunContext",
    "RunEvent",
    "RunHandle",
    "RunOutcome",
    "RunState",
    "SQLiteCheckpointer",
    "Send",
    "SerializationError",
    "StateGraph",
    "StateSnapshot",
    "StepRecord",
    "SyncUnavailableError",
    "Tool",
    "ToolArgumentError",
    "ToolCallRecord",
    "ToolInvocation",
    "UnknownToolError",
    "Usage",
    "get_run_context",
    "get_stream_writer",
    "interrupt",
    "require_run_context",
    "tool",
]
