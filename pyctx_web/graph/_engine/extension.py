"""The interface the engine declares for the run-context layer, and the values it speaks.

The engine runs every node of a run through the run's :class:`RunExtension`
(the run-context layer implements it, in :mod:`pyctx_web.graph._runctx`), and a
node's :class:`~pyctx_web.graph.runtime.Runtime` reaches the run's tools,
memory, log and cancel through it. The values here are public under
:mod:`pyctx_web.graph.runtime` and :mod:`pyctx_web.graph.memory`: the run's
:class:`RunLog` (steps, tool calls, messages, :class:`Usage`), the
:class:`ToolResult` of each call of ``runtime.call_tools``, how a run ended
(:class:`RunOutcome`), and the :class:`MemoryProvider` protocol with its
:class:`MemoryEntry`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NoReturn,
    Protocol,
    TypeAlias,
    TypeVar,
    runtime_checkable,
)

from pyctx_web._homes import publish
from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError, ImmutableError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.records import TaskSpec
    from pyctx_web.graph._values import Interrupt

__all__ = [
    "MemoryEntry",
    "MemoryProvider",
    "Message",
    "NodeOutcome",
    "NodeRun",
    "OutcomeT",
    "RunExtension",
    "RunLog",
    "RunOutcome",
    "RunRecord",
    "StepRecord",
    "ToolCallRecord",
    "ToolCallSpec",
    "ToolResult",
    "Usage",
]

ToolCallSpec: TypeAlias = "Mapping[str, Any] | tuple[str, Mapping[str, Any]]"
"""A tool call for ``runtime.call_tools``: ``{"name", "arguments", "id"}`` or a tuple."""


class NodeOutcome(Protocol):
    """What running a node produced, as the engine reports it to the extension."""

    raw: Any
    """The node's update as it returned it, or ``None``."""
    interrupt: Interrupt | None
    """The question the node asked, if it paused."""
    error: Exception | None
    """What the node raised, if it failed."""


OutcomeT = TypeVar("OutcomeT", bound=NodeOutcome)


def _now() -> str:
    import datetime  # with the first memory entry: importing it costs a few ms in Pyodide

    return datetime.datetime.now(datetime.UTC).isoformat()


@record(frozen=True, slots=True)
class MemoryEntry:
    """One remembered item: a message, a fact, a tool result."""

    content: str
    """The text of the entry."""
    role: str = "user"
    """Who produced it: ``"user"``, ``"assistant"``, ``"system"`` or ``"tool"``."""
    session_id: str | None = None
    """The session (thread) it belongs to; ``None`` for entries shared by all sessions."""
    tags: tuple[str, ...] = ()
    """Labels that ``read(tags=...)`` filters on."""
    created_at: str = field(default_factory=_now)
    """ISO 8601 UTC time the entry was made."""
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Anything else worth keeping, read-only."""

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise ArgumentTypeError(
                f"MemoryEntry.content must be a str, not {type(self.content).__name__!r}"
            )
        tags: object = self.tags
        if isinstance(tags, str) or not all(isinstance(t, str) for t in self.tags):
            raise ArgumentTypeError("MemoryEntry.tags must be a tuple of str")
        object.__setattr__(self, "tags", tuple(self.tags))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))


@runtime_checkable
class MemoryProvider(Protocol):
    """Where a run's memory lives. Every method is async, so remote or browser stores fit."""

    async def read(
        self,
        *,
        session_id: str | None = None,
        limit: int | None = None,
        query: str | None = None,
        tags: Sequence[str] | None = None,
    ) -> list[MemoryEntry]:
        """Entries oldest first, filtered; ``limit`` keeps the newest ``limit`` of them.

        ``session_id`` keeps that session's entries; ``tags`` keeps entries that
        carry every given tag; ``query`` keeps entries whose content contains it,
        ignoring case.
        """
        ...

    async def write(self, entries: Iterable[MemoryEntry]) -> None:
        """Append entries, all or none."""
        ...

    async def clear(self, *, session_id: str | None = None) -> None:
        """Remove the entries of one session, or every entry when ``session_id`` is ``None``."""
        ...

    async def entries(self) -> list[MemoryEntry]:
        """Every entry, oldest first."""
        ...


@record(frozen=True, slots=True)
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


@record(frozen=True, slots=True)
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


@record(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of the run."""

    name: str
    """The tool."""
    args: Mapping[str, Any]
    """The arguments it ran with (as the middleware's ``awrap_tool_call`` passed them on)."""
    result: Any
    """What it returned (as ``awrap_tool_call`` gave it back); ``None`` when it raised."""
    error: str | None
    """The error it raised, as text, or ``None``."""
    node: str | None
    """The node that called it."""
    duration_ms: float
    """How long it ran."""
    review: str | None = None
    """``"approved"``, ``"edited"`` or ``"rejected"`` by a reviewer, ``None`` if not reviewed.

    A rejected call did not run: its ``result`` is the reject message.
    """


@record(frozen=True, slots=True)
class ToolResult:
    """What became of one tool call of ``runtime.call_tools``, in the order of the calls."""

    name: str
    """The tool that ran: the one proposed, or the one a reviewer's edit named."""
    arguments: Mapping[str, Any]
    """The arguments it ran with (after an edit)."""
    result: Any
    """What the tool returned, or the reject message when it was rejected."""
    status: Literal["ran", "approved", "edited", "rejected"]
    """``"ran"`` without review; otherwise the reviewer's decision (``"rejected"``: not run)."""
    id: str | None = None
    """The call's id as given (a model's tool call id), for the tool message of the reply."""


@record(frozen=True, slots=True)
class Message:
    """A message of the conversation the run took part in."""

    role: str
    """``"user"``, ``"assistant"``, ``"system"`` or ``"tool"``."""
    content: str
    """Its text."""


NodeRun: TypeAlias = tuple[str, int, str, float, float]
"""One node execution as the run records it: node, step, status, and the
:func:`time.perf_counter` readings of its start and end."""


@record(eq=False, slots=True)
class RunRecord:
    """The mutable record behind :class:`RunLog`; only the run-context layer writes it."""

    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    node_runs: list[NodeRun] = field(default_factory=list)
    """Node executions, in the order they finished: what :attr:`RunLog.steps` shows.

    Kept as plain tuples of clock readings (a step costs no record and no wall-clock
    read); :meth:`steps` makes their :class:`StepRecord` when the log is read.
    """
    messages: list[Message] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    clock_origin: float = field(default_factory=time.perf_counter)
    """:func:`time.perf_counter` when :attr:`started_at` was read: a node's start in
    seconds since the epoch is ``started_at`` plus its clock reading's distance from this."""
    made: list[StepRecord] = field(default_factory=list)
    """The :class:`StepRecord` of the first ``len(made)`` node runs, made when first read."""

    def steps(self) -> list[StepRecord]:
        """The :class:`StepRecord` of every node run so far, in order."""
        made = self.made
        for node, step, status, start, end in self.node_runs[len(made) :]:
            started_at = self.started_at + (start - self.clock_origin)
            made.append(StepRecord(node, step, status, started_at, (end - start) * 1000))
        return made


class RunLog:
    """What happened in the run so far, read-only: ``runtime.log``."""

    __slots__ = ("_log",)

    _log: RunRecord

    def __init__(self, log: RunRecord) -> None:
        object.__setattr__(self, "_log", log)

    @property
    def steps(self) -> tuple[StepRecord, ...]:
        """Node executions, in the order they finished."""
        return tuple(self._log.steps())

    @property
    def messages(self) -> tuple[Message, ...]:
        """Messages added with :meth:`Runtime.add_message`, in order."""
        return tuple(self._log.messages)

    @property
    def tool_calls(self) -> tuple[ToolCallRecord, ...]:
        """Tool calls made with :meth:`Runtime.call_tool`, in the order they finished."""
        return tuple(self._log.tool_calls)

    @property
    def usage(self) -> Usage:
        """Tokens counted with :meth:`Runtime.add_usage`."""
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
            "RunLog is read-only; the runtime records steps, messages and tool calls"
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise ImmutableError(
            "RunLog is read-only; the runtime records steps, messages and tool calls"
        )

    def __repr__(self) -> str:
        log = self._log
        return (
            f"<RunLog steps={len(log.node_runs)} tool_calls={len(log.tool_calls)} "
            f"total_tokens={log.prompt_tokens + log.completion_tokens}>"
        )


@record(frozen=True, slots=True)
class RunOutcome:
    """How a run ended, as :attr:`RunHandle.outcome` tells it."""

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


class RunExtension(Protocol):
    """What the run-context layer does for one run of the engine.

    The engine runs each node through :meth:`around_node` when middleware wraps
    nodes, else itself, logging it with :meth:`node_ran`; a node's
    :class:`~pyctx_web.graph.runtime.Runtime` reaches the run's tools, memory,
    log and cancel through this object.
    """

    wraps_nodes: bool
    """Whether middleware wraps node calls (``awrap_node_call``)."""

    def node_ran(self, task: TaskSpec, out: NodeOutcome | None, start: float) -> None:
        """Log a node run from ``start`` (a perf_counter reading) to now; ``None``: cancelled."""

    @property
    def memory(self) -> MemoryProvider | None:
        """The graph's memory, if it has one."""

    @property
    def record(self) -> RunRecord:
        """What the run has done so far; ``runtime.log`` is its read-only view."""

    async def call_tool(self, name: str, args: Mapping[str, Any]) -> Any:
        """Run the graph's tool ``name`` with ``args`` and return its result."""

    async def call_tools(self, calls: Iterable[ToolCallSpec]) -> list[ToolResult]:
        """Run the tool calls of one model reply, reviewed where middleware says so."""

    def cancel(self, reason: str | None = None) -> None:
        """Stop the run at its next ``await``."""

    async def around_node(
        self,
        task: TaskSpec,
        attempts: Callable[[], Awaitable[OutcomeT]],
        error_outcome: Callable[[Exception], OutcomeT],
    ) -> OutcomeT:
        """Run ``attempts`` (the node, with its retries) and return its outcome.

        ``error_outcome(error)`` makes the outcome of a node that failed before or
        after running (a middleware error).
        """


# Their public homes: where users import them and what reprs and docs show.
publish("pyctx_web.graph.memory", MemoryEntry, MemoryProvider)
publish(
    "pyctx_web.graph.runtime",
    Usage,
    StepRecord,
    ToolCallRecord,
    ToolResult,
    Message,
    RunLog,
    RunOutcome,
)
