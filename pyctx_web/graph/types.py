"""The values a graph exchanges with its nodes and callers, as in ``langgraph.types``.

:func:`interrupt` asks the caller a question from inside a node;
:class:`Command` answers it (``Command(resume=...)``) or, returned by a node,
updates the state and chooses the next nodes; :class:`Send` fans out;
:class:`Interrupt`, :class:`StateSnapshot` and :class:`PregelTask` describe a
paused or saved run; :class:`RetryPolicy` says how a failing node is tried
again; :data:`StreamWriter` is what ``get_stream_writer()`` returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

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
    "Command",
    "Interrupt",
    "PregelTask",
    "RetryPolicy",
    "Send",
    "StateSnapshot",
    "StreamWriter",
    "interrupt",
]

StreamWriter: TypeAlias = Callable[[Any], None]
"""A function that sends a chunk to ``stream_mode="custom"`` consumers."""
