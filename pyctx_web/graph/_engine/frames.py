"""The per-run and per-task objects, found through :class:`~pyctx_web.context.AsyncLocalStorage`.

A :class:`Run` also carries the run-context layer's :class:`RunExtension`: the
interface the engine declares for what surrounds each node and what pyctx_web
adds to a node's :class:`~pyctx_web.graph.runtime.Runtime` (tools, memory, the
run's log, cancel). A run without one (``update_state``) runs no nodes.

Every invocation of a compiled graph creates a :class:`Run` and runs in a
context where :data:`current_run` holds it; every task of a step runs in its
own copy of that context, where :data:`current_task` holds its
:class:`TaskFrame`. :func:`~pyctx_web.graph.types.interrupt` and
:func:`~pyctx_web.graph.config.get_stream_writer` find them there, so they
work under any concurrency (several runs in one loop, callbacks scheduled with
``loop.call_later``...).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import field
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from pyctx_web._records import record
from pyctx_web.context import AsyncLocalStorage
from pyctx_web.graph._engine.run_metadata import config_metadata

if TYPE_CHECKING:
    from pyctx_web.graph._engine.extension import RunExtension
    from pyctx_web.graph._engine.records import TaskSpec
    from pyctx_web.graph._values import Interrupt
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = [
    "Namespaced",
    "Run",
    "TaskFrame",
    "current_run",
    "current_task",
    "graph_state",
]


@record(frozen=True, slots=True)
class Namespaced:
    """A chunk a subgraph streams into its parent's stream, with the subgraph's namespace."""

    namespace: tuple[str, ...]
    """The subgraph's place, as ``stream(..., subgraphs=True)`` yields it."""
    chunk: Any
    """The chunk."""


@record(eq=False, slots=True)
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
    config: dict[str, Any] = field(default_factory=dict)
    """The config the run was called with (a subgraph's: its calling task's); each task's
    config, as :func:`~pyctx_web.graph.config.get_config` shows it, is made from it."""
    context: Any = None
    """The run's context (``invoke(..., context=...)``), as ``Runtime.context`` shows it."""
    namespace: tuple[str, ...] = ()
    """Where a subgraph's run stands in its parent's (``("node:task_id", ...)``); ``()`` on top."""
    checkpoint_ns: str = ""
    """The namespace as LangGraph's configs spell it (``"node:task_id|..."``)."""
    subgraphs: bool = False
    """Whether the consumer also streams the chunks of subgraphs (``subgraphs=True``)."""
    loop: asyncio.AbstractEventLoop | None = None
    """The event loop the stream's queue belongs to, while streaming."""
    extension: RunExtension | None = None
    """The run-context layer's part of the run; ``None`` for ``aupdate_state``."""
    store: Any = None
    """The graph's store (``compile(store=...)``), as ``Runtime.store`` shows it."""
    foreign_loop: bool = False
    """Whether the run executes on another event loop than ``loop`` (its chunks cross over)."""
    message_events: bool = False
    """Whether ``messages`` carries LangChain's message events (``stream_events`` v3 reads them)."""
    parents: dict[str, str] | None = None
    """A subgraph's run: the checkpoint id of each graph it runs in, by namespace (``""``
    for the outermost), as its checkpoints' metadata ``parents`` gives them."""
    _meta: dict[str, Any] | EllipsisType | None = ...
    """:meth:`checkpoint_meta`, once made (``...`` before)."""

    def checkpoint_meta(self) -> dict[str, Any] | None:
        """The config values every checkpoint the run writes adds to its metadata, as
        LangGraph's savers add them (:func:`~.run_metadata.config_metadata`)."""
        meta = self._meta
        if meta is ...:
            meta = config_metadata(self.config)
            if self.parents:
                meta = {**(meta or {}), "parents": dict(self.parents)}
            self._meta = meta
        return meta

    def listens(self, mode: str) -> bool:
        """Whether a consumer streams ``mode``: worth building its chunks."""
        return self.queue is not None and mode in self.stream_modes

    def emit(self, mode: str, chunk: Any) -> None:
        """Send ``chunk`` to the stream if someone listens to ``mode``."""
        if self.queue is not None and mode in self.stream_modes:
            if self.namespace:
                chunk = Namespaced(self.namespace, chunk)
            if self.foreign_loop and self.loop is not None:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, (mode, chunk))
            else:
                self.queue.put_nowait((mode, chunk))

    def writer(self) -> Callable[[Any], None]:
        """A function that sends chunks to ``stream_mode="custom"`` consumers of this run."""

        def write(chunk: Any) -> None:
            self.emit("custom", chunk)

        return write


@record(eq=False, slots=True)
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
    checkpoint_id: str = ""
    """The checkpoint whose step the task belongs to."""
    attempt: int = 0
    """The current attempt, from 1."""
    task_results: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """``(task name, result)`` of the finished ``@task`` calls, by call position."""
    task_calls: int = 0
    """``@task`` calls made so far, over all attempts."""
    asked: Interrupt | None = None
    """The last question the task asked, as its checkpoint holds it (``None`` if none)."""
    edge_state: Callable[[], Any] | None = None
    """The state the task's node gets from an edge, made when asked (a Send's node reads it)."""
    config: dict[str, Any] | None = None
    """The task's config, once asked for (:func:`~.task_config.task_config`)."""

    def reset(self) -> None:
        """Start a new attempt: ``interrupt()`` calls count from the first again.

        ``@task`` calls go on counting, as in LangGraph: a retry runs them again.
        """
        self.calls = 0
        self.raised_index = None
        self.attempt += 1


current_run: AsyncLocalStorage[Run] = AsyncLocalStorage(name="pyctx_web.graph.run")
"""The run the current code belongs to."""

current_task: AsyncLocalStorage[TaskFrame] = AsyncLocalStorage(name="pyctx_web.graph.task")
"""The task the current code belongs to (unset in routers and outside nodes)."""


def graph_state() -> Any:
    """In a node, the graph state its node gets from an edge, even when a Send ran it.

    ``None`` outside a node of a running graph.
    """
    frame = current_task.get_store()
    if frame is None or frame.edge_state is None:
        return None
    return frame.edge_state()
