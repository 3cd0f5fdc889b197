"""The per-run and per-task objects, found through :class:`~pyctx_web.context.AsyncLocalStorage`.

Every invocation of a compiled graph creates a :class:`Run` and runs in a
context where :data:`current_run` holds it; every task of a step runs in its
own copy of that context, where :data:`current_task` holds its
:class:`TaskFrame`. :func:`~pyctx_web.graph.interrupt` and
:func:`get_stream_writer` find them there, so they work under any concurrency
(several runs in one loop, callbacks scheduled with ``loop.call_later``...).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyctx_web.context import AsyncLocalStorage
from pyctx_web.errors import ContextMissingError
from pyctx_web.graph.records import TaskSpec

if TYPE_CHECKING:
    from pyctx_web.graph.checkpoint.base import Checkpointer
    from pyctx_web.graph.run_context import RunContext

__all__ = ["Run", "TaskFrame", "current_run", "current_task", "get_stream_writer"]


@dataclass(eq=False, slots=True)
class Run:
    """One invocation of a compiled graph (``ainvoke``, ``astream``, ``aupdate_state``)."""

    graph_name: str
    """Name given at ``compile(name=...)``."""
    run_id: str
    """A new uuid per invocation."""
    thread_id: str | None
    """The thread the run reads and writes; ``None`` without a checkpointer."""
    checkpointer: Checkpointer | None
    """Where checkpoints go; ``None`` for a run that cannot pause."""
    input: Any
    """What started the run: the input, a :class:`Command`, or ``None``."""
    stream_modes: frozenset[str] = frozenset()
    """Stream modes a consumer listens to; empty for ``ainvoke``."""
    queue: asyncio.Queue[tuple[str, Any]] | None = None
    """Where stream chunks go while ``astream`` consumes them."""
    step: int = -1
    """The step being run."""
    context: RunContext[Any] | None = None
    """What nodes, tools and hooks see of the run; ``None`` for ``aupdate_state``."""

    def listens(self, mode: str) -> bool:
        """Whether a consumer streams ``mode``: worth building its chunks."""
        return self.queue is not None and mode in self.stream_modes

    def emit(self, mode: str, chunk: Any) -> None:
        """Send ``chunk`` to the stream if someone listens to ``mode``."""
        if self.queue is not None and mode in self.stream_modes:
            self.queue.put_nowait((mode, chunk))


@dataclass(eq=False, slots=True)
class TaskFrame:
    """A task being run: its run, its spec, and where its ``interrupt()`` calls stand."""

    run: Run
    """The run the task belongs to."""
    task: TaskSpec
    """Which node runs, on what."""
    answers: list[Any] = field(default_factory=list)
    """Answers to the task's questions, by position."""
    calls: int = 0
    """``interrupt()`` calls made so far in the current attempt."""
    raised_index: int | None = None
    """Position of the question that paused the current attempt."""

    def reset(self) -> None:
        """Start a new attempt: ``interrupt()`` calls count from the first again."""
        self.calls = 0
        self.raised_index = None


current_run: AsyncLocalStorage[Run] = AsyncLocalStorage(name="pyctx_web.graph.run")
"""The run the current code belongs to."""

current_task: AsyncLocalStorage[TaskFrame] = AsyncLocalStorage(name="pyctx_web.graph.task")
"""The task the current code belongs to (unset in routers and outside nodes)."""


def get_stream_writer() -> Callable[[Any], None]:
    """Return a function that sends chunks to ``stream_mode="custom"`` consumers of the run.

    Call it from a node or anything the node calls. Chunks are dropped when
    nobody streams the custom mode. Outside a run it raises
    :class:`~pyctx_web.errors.ContextMissingError`.
    """
    run = current_run.get_store()
    if run is None:
        raise ContextMissingError(
            "get_stream_writer() was called outside a graph run",
            operation="get_stream_writer()",
            source="graph run",
        )

    def write(chunk: Any) -> None:
        run.emit("custom", chunk)

    return write
