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
from typing import TYPE_CHECKING, Any, final

from pyctx_web.context import AsyncLocalStorage
from pyctx_web.errors import ContextMissingError
from pyctx_web.graph.records import TaskSpec

if TYPE_CHECKING:
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["NodeContext", "Run", "TaskFrame", "current_run", "current_task", "get_stream_writer"]


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


@final
class NodeContext:
    """The second parameter of a node ``fn(state, ctx)``: where in which run it runs."""

    __slots__ = ("_frame",)

    def __init__(self, frame: TaskFrame) -> None:
        self._frame = frame

    @property
    def thread_id(self) -> str | None:
        """The thread of the run (``None`` without a checkpointer)."""
        return self._frame.run.thread_id

    @property
    def run_id(self) -> str:
        """The id of this invocation."""
        return self._frame.run.run_id

    @property
    def graph_name(self) -> str:
        """The name of the compiled graph."""
        return self._frame.run.graph_name

    @property
    def node(self) -> str:
        """The node being run."""
        return self._frame.task.name

    @property
    def task_id(self) -> str:
        """The id of the task being run."""
        return self._frame.task.id

    @property
    def step(self) -> int:
        """The step being run."""
        return self._frame.run.step

    def write(self, chunk: Any) -> None:
        """Send ``chunk`` to ``astream(..., stream_mode="custom")`` consumers."""
        self._frame.run.emit("custom", chunk)

    def __repr__(self) -> str:
        return f"<NodeContext node={self.node!r} thread_id={self.thread_id!r} step={self.step}>"


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
