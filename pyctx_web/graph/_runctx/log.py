"""What a run records as it goes: node executions, tool calls, messages, token usage.

The runtime writes a :class:`RunLog`; nodes and tools read it through the
read-only :class:`RunState` (``ctx.state``). :class:`RunOutcome` is how a run
ended, as ``Hooks.on_end`` receives it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

from pyctx_web.errors import ImmutableError

__all__ = [
    "Message",
    "RunLog",
    "RunOutcome",
    "RunState",
    "StepRecord",
    "ToolCallRecord",
    "ToolResult",
    "Usage",
]


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
    review: str | None = None
    """``"approved"``, ``"edited"`` or ``"rejected"`` by a reviewer, ``None`` if not reviewed.

    A rejected call did not run: its ``result`` is the reject message.
    """


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What became of one tool call of ``ctx.call_tools``, in the order of the calls."""

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


@dataclass(frozen=True, slots=True)
class Message:
    """A message of the conversation the run took part in."""

    role: str
    """``"user"``, ``"assistant"``, ``"system"`` or ``"tool"``."""
    content: str
    """Its text."""


@dataclass(eq=False, slots=True)
class RunLog:
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

    _log: RunLog

    def __init__(self, log: RunLog) -> None:
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
