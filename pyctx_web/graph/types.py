"""The values a graph exchanges with its nodes and callers, as in ``langgraph.types``.

:func:`interrupt` asks the caller a question from inside a node;
:class:`Command` answers it (``Command(resume=...)``) or, returned by a node,
updates the state and chooses the next nodes; :class:`Send` fans out;
:class:`Interrupt`, :class:`StateSnapshot` and :class:`PregelTask` describe a
paused or saved run; :class:`RetryPolicy` says how a failing node is tried
again; :data:`StreamWriter` is what ``get_stream_writer()`` returns.
:class:`TracePolicy` (with :func:`omit_payload`) is LangGraph's tracing option of a
node (``add_node(trace_policy=...)``): accepted, as pyctx_web's runs trace no node spans.
:data:`Checkpointer` is the type of a subgraph's ``checkpointer`` option.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from pyctx_web._records import lazy_dataclass
from pyctx_web.graph._engine.interrupts import interrupt
from pyctx_web.graph._values import (
    Command,
    Interrupt,
    PregelTask,
    RetryPolicy,
    Send,
    StateSnapshot,
)

__all__ = [
    "Checkpointer",
    "Command",
    "Interrupt",
    "PregelTask",
    "RetryPolicy",
    "Send",
    "StateSnapshot",
    "StreamWriter",
    "TracePolicy",
    "interrupt",
    "omit_payload",
]

StreamWriter: TypeAlias = Callable[[Any], None]
"""A function that sends a chunk to ``stream_mode="custom"`` consumers."""

Checkpointer: TypeAlias = Any
"""A subgraph's ``checkpointer``: ``None`` (its parent's), ``True``, ``False`` or a saver."""


@lazy_dataclass(frozen=True, slots=True)
class TracePolicy:
    """What a node's trace span records: its input and output, each through a function.

    pyctx_web's runs record no trace spans, so a node's policy changes nothing in a
    run; it is kept on the node as given.
    """

    process_inputs: Callable[[Any], Any] | None = None
    """Turns the node's input into what its span records."""
    process_outputs: Callable[[Any], Any] | None = None
    """Turns the node's output into what its span records."""


def omit_payload(_value: Any) -> dict[str, Any]:
    """A :class:`TracePolicy` processor that records an empty payload instead of the value."""
    return {}
