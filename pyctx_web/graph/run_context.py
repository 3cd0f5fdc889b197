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
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeVar

from pyctx_web.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    ContextMissingError,
    ImmutableError,
)
from pyctx_web.execution import ExecutionContext

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyctx_web.graph.events import EventBus
    from pyctx_web.graph.memory import MemoryProvider
    from pyctx_web.graph.middleware import Middleware
    from pyctx_web.graph.run import Run, TaskFrame
    from pyctx_web.graph.tools import Tool

__all__ = [
    "Hooks",
    "RunContext",
    "RunOutcome",
    "RunState",
    "StepRecord",
    "ToolCallRecord",
    "Usage",
    "get_run_context",
    "merge_data",
    "require_run_context",
]

TData = TypeVar("TData")


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a run spent on models."""

    prompt_tokens: int = 0
    """Tokens sent to models."""
    completion_tokens: int = 0
    """Tokens models produced."""

    @property
    def total_tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One node execution of the run."""

    node: str
    """The node that ran."""
    step: int
    """The graph step it ran in."""
    status: str
    """``"done"``, ``"interrupted"``, ``"error"`` or ``"cancelled"``."""
    started_at: float
    """Seconds since the epoch when it started."""
    duration_ms: float
    """How long it ran."""


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of the run."""

    name: str
    """The tool."""
    args: Mapping[str, Any]
    """The arguments it ran with (after ``tool:before`` middleware)."""
    result: Any
    """What it returned (after ``tool:after`` middleware); ``None`` when it raised."""
    error: str | None
    """The error it raised, as text, or ``None``."""
    node: str | None
    """The node that called it."""
    duration_ms: float
    """How long it ran."""


@dataclass(frozen=True, slots=True)
class Message:
    """A message of the conversation the run took part in."""

    role: str
    """``"user"``, ``"assistant"``, ``"system"`` or ``"tool"``."""
    content: str
    """Its text."""


@dataclass(eq=False, slots=True)
class _RunLog:
    """The mutable record behind :class:`RunState`; only the runtime writes it."""

    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    steps: list[StepRecord] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


class RunState:
    """A read-only view of what happened in the run so far."""

    __slots__ = ("_log",)

    _log: _RunLog

    def __init__(self, log: _RunLog) -> None:
        object.__setattr__(self, "_log", log)

    @property
    def steps(self) -> tuple[StepRecord, ...]:
        """Node executions, in the order they finished."""
        return tuple(self._log.steps)

    @property
    def messages(self) -> tuple[Message, ...]:
        """Messages added with :meth:`RunContext.add_message`, in order."""
        return tuple(self._log.messages)

    @property
    def tool_calls(self) -> tuple[ToolCallRecord, ...]:
        """Tool calls made with :meth:`RunContext.call_tool`, in the order they finished."""
        return tuple(self._log.tool_calls)

    @property
    def usage(self) -> Usage:
        """Tokens counted with :meth:`RunContext.add_usage`."""
        return Usage(self._log.prompt_tokens, self._log.completion_tokens)

    @property
    def started_at(self) -> float:
        """Seconds since the epoch when the run started."""
        return self._log.started_at

    @property
    def finished_at(self) -> float | None:
        """Seconds since the epoch when the run finished; ``None`` while it runs."""
        return self._log.finished_at

    @property
    def duration_ms(self) -> float | None:
        """How long the run took; ``None`` while it runs."""
        end = self._log.finished_at
        return None if end is None else (end - self._log.started_at) * 1000

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise ImmutableError(
            "RunState is read-only; the runtime records steps, messages and tool calls"
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise ImmutableError(
            "RunState is read-only; the runtime records steps, messages and tool calls"
        )

    def __repr__(self) -> str:
        log = self._log
        return (
            f"<RunState steps={len(log.steps)} tool_calls={len(log.tool_calls)} "
            f"total_tokens={log.prompt_tokens + log.completion_tokens}>"
        )


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How a run ended, as ``Hooks.on_end`` receives it."""

    status: Literal["success", "error", "interrupt", "cancelled"]
    """Which way it ended."""
    values: dict[str, Any] | None = None
    """The state values it returned (success and interrupt)."""
    error: BaseException | None = None
    """What it raised (error)."""
    interrupts: tuple[Any, ...] = ()
    """The pending questions (interrupt)."""
    reason: str | None = None
    """Why it was cancelled (cancelled)."""


@dataclass(frozen=True, slots=True)
class Hooks(Generic[TData]):
    """Functions called when a run starts and when it ends, sync or async."""

    on_start: Callable[[RunContext[TData]], Any] | None = None
    """Called before the first node, after ``run:before`` middleware."""
    on_end: Callable[[RunContext[TData], RunOutcome], Any] | None = None
    """Called once the run ends, whichever way: success, error, interrupt or cancel."""


def merge_data(default: Any, given: Any) -> Any:
    """The run's data: a private copy of the graph's default with ``given`` merged in.

    A mapping merges key by key onto a mapping default, or field by field onto a
    dataclass default; any other ``given`` replaces the default.
    """
    base = copy.deepcopy(default)
    if given is None:
        return base
    if isinstance(given, Mapping):
        if base is None:
            return dict(given)
        if isinstance(base, dict):
            return {**base, **given}
        if dataclasses.is_dataclass(base) and not isinstance(base, type):
            names = {f.name for f in dataclasses.fields(base)}
            unknown = sorted(set(given) - names)
            if unknown:
                raise ArgumentTypeError(
                    f"data has no field(s) {', '.join(map(repr, unknown))}; "
                    f"{type(base).__qualname__} has {', '.join(sorted(names))}"
                )
            return dataclasses.replace(base, **given)
    return given


class RunContext(Generic[TData]):
    """The context of one run, shared by its nodes, tools, middleware, hooks and listeners."""

    __slots__ = (
        "_cancel",
        "_log",
        "_runtime",
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
        runtime: RunRuntime,
        run_id: str,
        thread_id: str,
        input: Any,
        data: TData,
        execution_context: ExecutionContext,
        cancel: Callable[[str | None], None],
    ) -> None:
        self._runtime = runtime
        self._log = _RunLog()
        self._state = RunState(self._log)
        self._cancel = cancel
        self.graph_id = runtime.graph_id
        self.run_id = run_id
        self.thread_id = thread_id
        self.input = input
        self.data = data
        self.user_context = {}
        self.execution_context = execution_context
        self.memory = runtime.memory

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
        from pyctx_web.graph.run import current_run

        run = current_run.get_store()
        if run is None or run.context is not self:
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
        self._runtime.emit(self, event, payload)

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
        in its own copy of the run's context.
        """
        return await self._runtime.call_tool(self, name, {} if args is None else args)

    def __repr__(self) -> str:
        return (
            f"<RunContext graph={self.graph_id!r} run_id={self.run_id!r} "
            f"thread_id={self.thread_id!r}>"
        )


def _current_frame() -> TaskFrame | None:
    from pyctx_web.graph.run import current_task

    return current_task.get_store()


def get_run_context() -> RunContext[Any] | None:
    """The context of the run the calling code belongs to, or ``None`` outside any run."""
    from pyctx_web.graph.run import current_run

    run = current_run.get_store()
    return run.context if run is not None else None


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


@dataclass(eq=False)
class RunRuntime:
    """What a compiled graph gives every run: tools, middleware, hooks, memory and listeners."""

    graph_id: str
    """The graph's name."""
    bus: EventBus
    """The graph's listeners."""
    tools: dict[str, Tool] = field(default_factory=dict)
    """The graph's tools by name."""
    middleware: tuple[Middleware[Any], ...] = ()
    """The graph's middleware, outermost first."""
    hooks: Hooks[Any] | None = None
    """The graph's start and end hooks."""
    memory: MemoryProvider | None = None
    """The graph's memory."""
    default_data: Any = None
    """The data every run starts from."""

    def emit(self, ctx: RunContext[Any], event: str, payload: Any = None) -> None:
        """Send ``event`` of run ``ctx`` to the graph's listeners."""
        from pyctx_web.graph.events import RunEvent

        if not isinstance(event, str) or not event:
            raise ArgumentValueError(f"event must be a non-empty str, not {event!r}")
        if self.bus.has_listeners(event):
            self.bus.emit(
                RunEvent(event, payload, ctx.graph_id, ctx.run_id, ctx.thread_id, ctx.node)
            )

    async def call_tool(self, ctx: RunContext[Any], name: str, args: Mapping[str, Any]) -> Any:
        """See :meth:`RunContext.call_tool`."""
        from pyctx_web.graph.tool_calls import call_tool

        return await call_tool(self, ctx, name, args)
