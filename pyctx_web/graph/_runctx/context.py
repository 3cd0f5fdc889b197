"""The run context: what a node or a tool knows about the run it belongs to.

A :class:`RunContext` is made per invocation (``ainvoke``, ``astream``) and is
the second parameter of a node ``fn(state, ctx)`` and of a tool
``fn(args, ctx)``. Anywhere else in the run (helpers, services, JavaScript
callbacks bound with :mod:`pyctx_web.jsbridge`) :func:`get_run_context` finds it
through the context store. Where it is visible: every node, tool, middleware,
hook and listener of the run, and every task or bound callback they start; never
in another run, concurrent ones included.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar

from pyctx_web.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    ContextMissingError,
)
from pyctx_web.execution import ExecutionContext
from pyctx_web.graph._engine.frames import Run, TaskFrame, current_run, current_task
from pyctx_web.graph._runctx.log import Message, RunLog, RunOutcome, RunState, ToolResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyctx_web.graph.memory import MemoryProvider

__all__ = [
    "Hooks",
    "RunContext",
    "RunServices",
    "ToolCallSpec",
    "get_run_context",
    "merge_data",
    "require_run_context",
]

TData = TypeVar("TData")

ToolCallSpec: TypeAlias = "Mapping[str, Any] | tuple[str, Mapping[str, Any]]"
"""A tool call for :meth:`RunContext.call_tools`: ``{"name", "arguments", "id"}`` or a tuple."""


@dataclass(frozen=True, slots=True)
class Hooks(Generic[TData]):
    """Functions called when a run starts and when it ends, sync or async."""

    on_start: Callable[[RunContext[TData]], Any] | None = None
    """Called before the first node, after ``run:before`` middleware."""
    on_end: Callable[[RunContext[TData], RunOutcome], Any] | None = None
    """Called once the run ends, whichever way: success, error, interrupt or cancel."""


def merge_data(default: Any, given: Any) -> Any:
    """The run's data: ``given`` itself, or a shallow copy of the graph's default.

    A mapping given for a dataclass default sets those fields on a copy of the
    default (typed data from a dict, as a context schema is built from one).
    Never a deep copy, so data may hold a lock, a database connection or a
    ``JsProxy``; the shallow copy keeps a field assigned in one run from being
    seen by the next.
    """
    if given is None:
        try:
            return copy.copy(default)
        except TypeError:
            # An object that cannot be copied (a lock, a connection) is shared as it is.
            return default
    typed = dataclasses.is_dataclass(default) and not isinstance(default, type)
    if isinstance(given, Mapping) and typed:
        names = {f.name for f in dataclasses.fields(default)}
        unknown = sorted(set(given) - names)
        if unknown:
            raise ArgumentTypeError(
                f"data has no field(s) {', '.join(map(repr, unknown))}; "
                f"{type(default).__qualname__} has {', '.join(sorted(names))}"
            )
        return dataclasses.replace(default, **given)
    return given


class RunServices(Protocol):
    """What a compiled graph gives the context of each of its runs."""

    graph_id: str
    """The graph's name."""
    memory: MemoryProvider | None
    """The graph's memory."""

    def emit(self, ctx: RunContext[Any], event: str, payload: Any = None) -> None:
        """Send ``event`` of run ``ctx`` to the graph's listeners."""

    async def call_tool(
        self, ctx: RunContext[Any], log: RunLog, name: str, args: Mapping[str, Any]
    ) -> Any:
        """Run tool ``name`` for run ``ctx``, recording the call in ``log``."""

    async def call_tools(
        self, ctx: RunContext[Any], log: RunLog, calls: Iterable[ToolCallSpec]
    ) -> list[ToolResult]:
        """Run ``calls`` for run ``ctx`` after their review, recording them in ``log``."""


class RunContext(Generic[TData]):
    """The context of one run, shared by its nodes, tools, middleware, hooks and listeners."""

    __slots__ = (
        "_cancel",
        "_log",
        "_services",
        "_state",
        "data",
        "execution_context",
        "graph_id",
        "input",
        "memory",
        "run_id",
        "thread_id",
        "user_context",
    )

    graph_id: str
    """The graph's name (``compile(name=...)``)."""
    run_id: str
    """A new uuid per invocation."""
    thread_id: str
    """The thread: the one given, or a new uuid for a graph without a checkpointer."""
    input: Any
    """What started this run: the input, or the resume value."""
    data: TData
    """The graph's default data merged with ``ainvoke(..., data=...)``; private to the run."""
    user_context: dict[str, Any]
    """A dict private to this run, for hooks, middleware, nodes and tools to share."""
    execution_context: ExecutionContext
    """Tenant, user and correlation id; ``current_execution_context()`` agrees within the run."""
    memory: MemoryProvider | None
    """The graph's memory, scoped by ``session_id`` (the thread)."""

    def __init__(
        self,
        *,
        services: RunServices,
        log: RunLog,
        run_id: str,
        thread_id: str,
        input: Any,
        data: TData,
        execution_context: ExecutionContext,
        cancel: Callable[[str | None], None],
    ) -> None:
        self._services = services
        self._log = log
        self._state = RunState(log)
        self._cancel = cancel
        self.graph_id = services.graph_id
        self.run_id = run_id
        self.thread_id = thread_id
        self.input = input
        self.data = data
        self.user_context = {}
        self.execution_context = execution_context
        self.memory = services.memory

    @property
    def session_id(self) -> str:
        """The same as :attr:`thread_id`: the session memory is scoped by."""
        return self.thread_id

    @property
    def state(self) -> RunState:
        """What happened so far, read-only."""
        return self._state

    @property
    def node(self) -> str | None:
        """The node the calling code runs in, or ``None`` outside nodes."""
        frame = _current_frame()
        return frame.task.name if frame is not None else None

    @property
    def task_id(self) -> str | None:
        """The id of the task the calling code runs in, or ``None`` outside nodes."""
        frame = _current_frame()
        return frame.task.id if frame is not None else None

    @property
    def step(self) -> int:
        """The graph step being run."""
        return self._runtime_run().step

    def write(self, chunk: Any) -> None:
        """Send ``chunk`` to ``astream(..., stream_mode="custom")`` consumers of the run."""
        self._runtime_run().emit("custom", chunk)

    def _runtime_run(self) -> Run:
        run = current_run.get_store()
        if run is None or run.plug is None or run.plug.context is not self:
            raise ContextMissingError(
                "this RunContext is used outside its run",
                operation="RunContext",
                source="graph run",
            )
        return run

    def cancel(self, reason: str | None = None) -> None:
        """Stop the run at its next ``await``: it ends with status ``cancelled``.

        The last checkpoint stays as it was; ``on_end`` runs with the cancelled outcome.
        """
        self._cancel(reason)

    def emit(self, event: str, payload: Any = None) -> None:
        """Send an event to the graph's listeners (``CompiledGraph.on``)."""
        self._services.emit(self, event, payload)

    def add_message(self, role: str, content: str) -> None:
        """Record a conversation message in :attr:`state`."""
        if not isinstance(role, str) or not isinstance(content, str):
            raise ArgumentTypeError("add_message() takes a role and content of type str")
        self._log.messages.append(Message(role, content))

    def add_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Count tokens spent on a model call in :attr:`state`."""
        for name, value in (
            ("prompt_tokens", prompt_tokens),
            ("completion_tokens", completion_tokens),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ArgumentValueError(f"{name} must be an int >= 0, not {value!r}")
        self._log.prompt_tokens += prompt_tokens
        self._log.completion_tokens += completion_tokens

    async def call_tool(self, name: str, args: Mapping[str, Any] | None = None) -> Any:
        """Run the graph's tool ``name`` with ``args`` and return what it returned.

        The arguments are checked against the tool's schema
        (:class:`~pyctx_web.graph.tools.ToolArgumentError` lists each problem),
        tool middleware runs around the call, ``tool:start``/``tool:end`` are
        emitted, and the call is recorded in ``state.tool_calls``. The tool runs
        in its own copy of the run's context. A call that a
        :class:`~pyctx_web.graph.middleware.HumanInTheLoopMiddleware` reviews is
        a batch of one (see :meth:`call_tools`): it pauses the node for the
        reviewer's decision, runs with the edited arguments after an edit, and
        returns the reject message, without running, after a reject.
        """
        return await self._services.call_tool(self, self._log, name, {} if args is None else args)

    async def call_tools(self, calls: Iterable[ToolCallSpec]) -> list[ToolResult]:
        """Run the tool calls of one model reply, in order; return a :class:`ToolResult` each.

        A call is ``{"name": ..., "arguments": {...}, "id": ...}`` (``id``
        optional; ``"args"`` may stand for ``"arguments"``, so a LangChain
        message's ``tool_calls`` can be passed as they are) or a ``(name,
        arguments)`` tuple. Every call is checked (known tool, arguments that
        satisfy its schema) before any runs. The calls that a
        :class:`~pyctx_web.graph.middleware.HumanInTheLoopMiddleware` reviews
        are put to the reviewer together, in one ``interrupt()``; the others run
        without review. Then the calls run one after another, each as
        :meth:`call_tool` runs it. Each result has the call's ``id``, the tool
        and ``arguments`` that ran (after an edit), the ``result`` and a
        ``status``: ``"ran"`` (not reviewed), ``"approved"``, ``"edited"`` or
        ``"rejected"`` (the tool did not run and ``result`` is the reject
        message, to be sent to the model as the tool's answer). An error of a
        tool is raised, after the calls before it have run.
        """
        return await self._services.call_tools(self, self._log, calls)

    def __repr__(self) -> str:
        return (
            f"<RunContext graph={self.graph_id!r} run_id={self.run_id!r} "
            f"thread_id={self.thread_id!r}>"
        )


def _current_frame() -> TaskFrame | None:
    return current_task.get_store()


def get_run_context() -> RunContext[Any] | None:
    """The context of the run the calling code belongs to, or ``None`` outside any run."""
    run = current_run.get_store()
    return run.plug.context if run is not None and run.plug is not None else None


def require_run_context() -> RunContext[Any]:
    """The context of the current run; ``ContextMissingError`` outside any run."""
    ctx = get_run_context()
    if ctx is None:
        raise ContextMissingError(
            "require_run_context() was called outside a graph run",
            operation="require_run_context()",
            source="graph run",
        )
    return ctx
