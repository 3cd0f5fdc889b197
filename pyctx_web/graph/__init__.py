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
    SerializationError,
    SyncUnavailableError,
)
from pyctx_web.graph.interrupt import interrupt
from pyctx_web.graph.run import NodeContext, get_stream_writer
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
    "InMemoryCheckpointer",
    "IndexedDBCheckpointer",
    "Interrupt",
    "InvalidGraphError",
    "InvalidUpdateError",
    "NodeContext",
    "PregelTask",
    "ResumeError",
    "RetryPolicy",
    "SQLiteCheckpointer",
    "Send",
    "SerializationError",
    "StateGraph",
    "StateSnapshot",
    "SyncUnavailableError",
    "get_stream_writer",
    "interrupt",
]
