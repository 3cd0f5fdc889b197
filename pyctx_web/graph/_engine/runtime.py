"""The :class:`Runtime` a node or tool gets for its run, and :func:`get_runtime`.

LangGraph's ``Runtime`` (the run's ``context=``, its store, stream writer,
previous return value and execution info) with what pyctx_web adds, reached
from the same object: the graph's tools (:meth:`Runtime.call_tool`,
:meth:`Runtime.call_tools`), its memory, the run's log and cancel. Public as
:mod:`pyctx_web.graph.runtime`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pyctx_web._homes import publish
from pyctx_web._records import lazy_dataclass
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, ContextMissingError
from pyctx_web.graph._engine.extension import (
    MemoryProvider,
    Message,
    RunExtension,
    RunLog,
    ToolCallSpec,
    ToolResult,
)
from pyctx_web.graph._engine.frames import Run, TaskFrame, current_run, current_task
from pyctx_web.graph.errors import OutsideRunError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.extension import RunRecord

__all__ = ["ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime", "runtime_of"]

ContextT = TypeVar("ContextT")


@lazy_dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Where the calling node runs: its thread, run, task and attempt."""

    checkpoint_id: str
    """The checkpoint whose step the node runs in ("" without a checkpointer)."""
    checkpoint_ns: str
    """The namespace of the graph it runs in ("" for the top-level graph)."""
    task_id: str
    """The node's task."""
    thread_id: str | None = None
    """The thread; ``None`` without a checkpointer."""
    run_id: str | None = None
    """The run."""
    node_attempt: int = 1
    """Which attempt of the node this is, from 1."""
    node_first_attempt_time: float | None = None
    """When the first attempt started (Unix seconds); ``None`` when not recorded."""

    def patch(self, **changes: Any) -> ExecutionInfo:
        """A copy with ``changes`` to its fields."""
        return replace(self, **changes)


@lazy_dataclass(frozen=True, slots=True)
class ServerInfo:
    """What a LangGraph server tells a run about itself; a page's runs have none."""

    assistant_id: str
    """The assistant that runs."""
    graph_id: str
    """The graph that runs."""
    user: Any = None
    """The authenticated user, if any."""


class RunControl:
    """A run's cooperative drain signal: someone asks, the run's nodes look and wind down."""

    __slots__ = ("_drain_reason",)

    def __init__(self) -> None:
        self._drain_reason: str | None = None

    def request_drain(self, reason: str = "shutdown") -> None:
        """Ask the run's nodes to wind down, saying why."""
        self._drain_reason = reason

    @property
    def drain_requested(self) -> bool:
        """Whether someone asked the run to wind down."""
        return self._drain_reason is not None

    @property
    def drain_reason(self) -> str | None:
        """Why the run was asked to wind down, or ``None``."""
        return self._drain_reason


def _no_writer(chunk: Any) -> None:
    return None


def _no_heartbeat() -> None:
    return None


_OVERRIDABLE = frozenset(
    {
        "context",
        "store",
        "stream_writer",
        "heartbeat",
        "previous",
        "execution_info",
        "server_info",
        "control",
    }
)


@lazy_dataclass(frozen=True, slots=True)
class Runtime(Generic[ContextT]):
    """What a node or tool of a run can use besides its state: ``runtime: Runtime[Ctx]``.

    The fields are LangGraph's, in its order. The rest is pyctx_web's: the graph's
    tools, memory, the run's log and cancel, present in every run of a
    compiled graph (a ``Runtime`` made by hand has none of them, and its
    methods raise :class:`~pyctx_web.errors.ContextMissingError`).
    """

    context: ContextT = None  # type: ignore[assignment]
    """The run's context: the ``context=`` of the call, or compile()'s default."""
    store: Any = None
    """The graph's store (``compile(store=...)``, a ``BaseStore``), or ``None``."""
    stream_writer: Callable[[Any], None] = _no_writer
    """Sends a chunk to ``stream_mode="custom"`` consumers."""
    heartbeat: Callable[[], None] = _no_heartbeat
    """Says the node is making progress; pyctx_web has no idle timeouts, so it does nothing."""
    previous: Any = None
    """The thread's previous return value (functional API), else ``None``."""
    execution_info: ExecutionInfo | None = None
    """Where the calling node runs; ``None`` outside a node."""
    server_info: ServerInfo | None = None
    """What a LangGraph server says of the run: always ``None`` here (no server runs it)."""
    control: RunControl | None = None
    """The run's drain signal, when the caller gave one; else ``None``."""
    _extension: RunExtension | None = field(default=None, repr=False, compare=False)

    def override(self, **changes: Any) -> Runtime[ContextT]:
        """A copy with ``changes`` to LangGraph's fields (``context=``, ``store=``...)."""
        unknown = sorted(set(changes) - _OVERRIDABLE)
        if unknown:
            raise ArgumentTypeError(
                f"Runtime.override() got unexpected field(s) {', '.join(map(repr, unknown))}; "
                f"it takes {', '.join(sorted(_OVERRIDABLE))}"
            )
        return replace(self, **changes)

    def merge(self, other: Runtime[ContextT]) -> Runtime[ContextT]:
        """A copy where what ``other`` provides wins, as LangGraph's ``merge``.

        ``other``'s context, store, execution info, server info and control count
        when truthy, its writer and heartbeat when not the default no-op, its
        previous value when not ``None``.
        """
        return replace(
            self,
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=(
                other.stream_writer if other.stream_writer is not _no_writer else self.stream_writer
            ),
            heartbeat=other.heartbeat if other.heartbeat is not _no_heartbeat else self.heartbeat,
            previous=self.previous if other.previous is None else other.previous,
            execution_info=other.execution_info or self.execution_info,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
        )

    def patch_execution_info(self, **changes: Any) -> Runtime[ContextT]:
        """A copy whose execution info has ``changes``; raise when it has none yet."""
        if self.execution_info is None:
            raise ArgumentValueError("Runtime.patch_execution_info() needs an execution_info")
        return replace(self, execution_info=self.execution_info.patch(**changes))

    @property
    def drain_requested(self) -> bool:
        """Whether the run was asked to wind down (see :attr:`control`)."""
        return self.control is not None and self.control.drain_requested

    @property
    def drain_reason(self) -> str | None:
        """Why the run was asked to wind down, or ``None``."""
        return None if self.control is None else self.control.drain_reason

    def _run_part(self, use: str) -> RunExtension:
        if self._extension is None:
            raise ContextMissingError(
                f"{use} needs a graph run; this Runtime does not belong to one",
                operation=use,
                source="graph run",
            )
        return self._extension

    @property
    def memory(self) -> MemoryProvider | None:
        """The graph's memory (``compile(memory=...)``), or ``None``."""
        return None if self._extension is None else self._extension.memory

    @property
    def log(self) -> RunLog:
        """What the run has done so far: steps, tool calls, messages, token usage."""
        return RunLog(self._run_part("runtime.log").record)

    async def call_tool(self, name: str, args: Mapping[str, Any] | None = None) -> Any:
        """Run the graph's tool ``name`` with ``args`` and return what it returned.

        The arguments are checked against the tool's schema
        (:class:`~pyctx_web.graph.errors.ToolArgumentError` lists each problem),
        the middleware's ``awrap_tool_call`` runs around the call, and the call
        is recorded in :attr:`log`. A call that a
        :class:`~pyctx_web.graph.middleware.HumanInTheLoopMiddleware` reviews is
        a batch of one (see :meth:`call_tools`).
        """
        extension = self._run_part("runtime.call_tool()")
        return await extension.call_tool(name, {} if args is None else args)

    async def call_tools(self, calls: Iterable[ToolCallSpec]) -> list[ToolResult]:
        """Run the tool calls of one model reply, in order; return a :class:`ToolResult` each.

        A call is ``{"name": ..., "arguments": {...}, "id": ...}`` (``"args"``
        may stand for ``"arguments"``, so a LangChain message's ``tool_calls``
        pass as they are) or a ``(name, arguments)`` tuple. Every call is
        checked before any runs. The calls a
        :class:`~pyctx_web.graph.middleware.HumanInTheLoopMiddleware` reviews
        are put to the reviewer together, in one ``interrupt()``; then the calls
        run one after another. Each result has the call's ``id``, the tool and
        ``arguments`` that ran, the ``result`` and a ``status``: ``"ran"`` (not
        reviewed), ``"approved"``, ``"edited"`` or ``"rejected"`` (not run;
        ``result`` is the reject message).
        """
        return await self._run_part("runtime.call_tools()").call_tools(calls)

    def cancel(self, reason: str | None = None) -> None:
        """Stop the run at its next ``await``; its caller gets ``RunCancelledError``.

        The last checkpoint stays as it was.
        """
        self._run_part("runtime.cancel()").cancel(reason)

    def add_message(self, role: str, content: str) -> None:
        """Record a conversation message in :attr:`log`."""
        record = self._record("runtime.add_message()")
        if not isinstance(role, str) or not isinstance(content, str):
            raise ArgumentTypeError("add_message() takes a role and content of type str")
        record.messages.append(Message(role, content))

    def add_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Count tokens spent on a model call in :attr:`log`."""
        record = self._record("runtime.add_usage()")
        for name, value in (
            ("prompt_tokens", prompt_tokens),
            ("completion_tokens", completion_tokens),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ArgumentValueError(f"{name} must be an int >= 0, not {value!r}")
        record.prompt_tokens += prompt_tokens
        record.completion_tokens += completion_tokens

    def _record(self, use: str) -> RunRecord:
        return self._run_part(use).record


def runtime_of(run: Run, frame: TaskFrame | None) -> Runtime[Any]:
    """The :class:`Runtime` of ``run`` as the node of ``frame`` sees it (``None``: no node)."""
    info = None
    if frame is not None:
        info = ExecutionInfo(
            checkpoint_id=frame.checkpoint_id,
            checkpoint_ns="",
            task_id=frame.task.id,
            thread_id=run.thread_id,
            run_id=run.run_id,
            node_attempt=frame.attempt,
        )
    return Runtime(
        run.context, run.store, run.writer(), execution_info=info, _extension=run.extension
    )


def get_runtime(context_schema: type[ContextT] | None = None) -> Runtime[ContextT]:
    """The :class:`Runtime` of the run the calling code belongs to.

    Works in nodes, tools, middleware and anything they call or start
    (tasks, callbacks bound with :mod:`pyctx_web.jsbridge`). ``context_schema``
    only types the result. Outside a run it raises
    :class:`~pyctx_web.graph.errors.OutsideRunError`.
    """
    run = current_run.get_store()
    if run is None:
        raise OutsideRunError(
            "get_runtime() was called outside a graph run",
            operation="get_runtime()",
            source="graph run",
        )
    return runtime_of(run, current_task.get_store())


publish("pyctx_web.graph.runtime", ExecutionInfo, RunControl, Runtime, ServerInfo, get_runtime)
