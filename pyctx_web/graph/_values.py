"""The values a graph exchanges with its nodes and callers, which :mod:`.types` exports.

:class:`Send` and :class:`Command` steer the run from routers and nodes;
:class:`Interrupt` describes a question a node asked with ``interrupt()``;
:class:`StateSnapshot` and :class:`PregelTask` describe a saved checkpoint;
:class:`RetryPolicy` says how often a failing node is tried again. They sit
below the engine, which imports them, and name ``pyctx_web.graph.types`` as
their module.
"""

# No ``from __future__ import annotations``: these classes name graph.types as their
# module, and typing.get_type_hints() could not resolve string annotations there.
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any, ClassVar, Final, Generic, TypeVar, final

from pyctx_web._homes import publish
from pyctx_web._records import lazy_dataclass
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = [
    "UNSET",
    "Command",
    "Interrupt",
    "PregelTask",
    "RetryPolicy",
    "Send",
    "StateSnapshot",
]


@final
class _Unset:
    """The type of :data:`UNSET`: a field that was not given."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"  # copies and pickles of a Command keep the one marker


UNSET: Final = _Unset()
"""Marks a :class:`Command` field that was not given (``None`` is a value)."""


@lazy_dataclass(frozen=True, slots=True)
class Send:
    """Run ``node`` in the next step with ``arg`` as its input instead of the state.

    Return one or a list from a router or in ``Command(goto=...)`` to fan out:
    each ``Send`` becomes its own task, and the writes of those tasks are
    applied in the order the ``Send`` objects were given.
    """

    node: str
    """The node to run."""
    arg: Any
    """What the node receives as its first parameter."""

    def __post_init__(self) -> None:
        if not isinstance(self.node, str) or not self.node:
            raise ArgumentTypeError(f"Send() node must be a non-empty str, not {self.node!r}")


N = TypeVar("N", bound=str)


@lazy_dataclass(frozen=True, slots=True)
class Command(Generic[N]):
    """Resume a paused run, or, returned by a node, update the state and choose the next nodes.

    ``invoke(Command(resume=value), config)`` answers the pending interrupt;
    ``Command(resume={interrupt_id: value, ...})`` answers several at once, and
    ``update=`` given with it changes the state the resumed node sees. A node
    returning ``Command(update={...}, goto="other")`` writes the update and adds
    ``other`` to the next step (its static edges still apply); annotate it
    ``-> Command[Literal["other", ...]]`` to declare where it may go;
    ``graph=Command.PARENT`` sends the command to the parent graph.
    """

    resume: Any = UNSET
    """The answer to the pending interrupt, or a map ``{interrupt_id: answer}``."""
    update: Mapping[str, Any] | None = None
    """State updates, applied through the reducers as if the node returned them."""
    goto: str | Send | Sequence[str | Send] | None = None
    """Nodes (or :class:`Send` objects) to run in the next step."""
    graph: str | None = None
    """``None`` for the graph of the node that returns it; :attr:`PARENT` for its parent graph."""

    PARENT: ClassVar[str] = "__parent__"
    """``Command(graph=Command.PARENT, ...)``, returned in a subgraph, updates and routes the
    parent graph, as if the node running the subgraph returned it."""

    def __repr__(self) -> str:
        parts = [] if self.graph is None else [f"graph={self.graph!r}"]
        if self.resume is not UNSET:
            parts.append(f"resume={self.resume!r}")
        if self.update is not None:
            parts.append(f"update={self.update!r}")
        if self.goto is not None:
            parts.append(f"goto={self.goto!r}")
        return f"Command({', '.join(parts)})"


@lazy_dataclass(frozen=True, slots=True)
class Interrupt:
    """A question a node asked with :func:`~pyctx_web.graph.types.interrupt`, awaiting an answer."""

    value: Any
    """What the node passed to ``interrupt()``."""
    id: str
    """Deterministic id of this question: key of a ``Command(resume={id: answer})`` map."""
    response_schema: dict[str, Any] | None = None
    """JSON Schema of the answer the node expects, if it gave one."""


@lazy_dataclass(frozen=True, slots=True)
class PregelTask:
    """A task of the step a checkpoint is about to run (or is running, when paused)."""

    id: str
    """Deterministic id of the task."""
    name: str
    """The node the task runs."""
    path: tuple[Any, ...] = ()
    """How it was scheduled: ``("__pregel_pull", node)``, or ``("__pregel_push", index, False)``
    for the ``index``-th :class:`Send` of the step."""
    error: str | None = None
    """``"ExcType: message"`` of the last failed attempt, if the task failed."""
    interrupts: tuple[Interrupt, ...] = ()
    """The thread's latest state: the task's question if it waits for an answer. A checkpoint
    of the history (or named by id): the last question the task asked, answered or not."""
    state: Any = None
    """The subgraph's :class:`StateSnapshot` (``get_state(..., subgraphs=True)``), else ``None``."""
    result: Mapping[str, Any] | None = None
    """The state update of the task if it finished."""


@lazy_dataclass(frozen=True, slots=True)
class StateSnapshot:
    """The state of a thread at one checkpoint, as ``aget_state`` and the history return it."""

    values: dict[str, Any] | Any
    """The state values. The thread's latest state shows them with the writes of its step's
    finished tasks; a checkpoint of the history (or named by id), as its step started. Both
    with a ``Command(update=...)`` given to the step with its answers.

    For an ``@entrypoint``, what the workflow returned."""
    next: tuple[str, ...]
    """The nodes of the step's tasks (empty when the run is over); in the thread's latest
    state, only those still to run."""
    config: dict[str, Any]
    """``{"configurable": {"thread_id": ..., "checkpoint_id": ...}}`` naming this checkpoint."""
    metadata: dict[str, Any] | None
    """``source`` (input, loop, update, fork), ``step``, ``writes`` and ``parents``."""
    created_at: str | None
    """ISO 8601 UTC time the checkpoint was written."""
    parent_config: dict[str, Any] | None
    """Config naming the checkpoint this one follows, or ``None`` for the first."""
    tasks: tuple[PregelTask, ...] = ()
    """The tasks of the step: its :class:`Send` tasks in the order sent, then its nodes' in
    the order the graph added them."""
    interrupts: tuple[Interrupt, ...] = ()
    """The questions of :attr:`tasks`, in task order."""


_NOT_RETRIED: Final = (
    ValueError,
    TypeError,
    ArithmeticError,
    ImportError,
    LookupError,
    NameError,
    SyntaxError,
    RuntimeError,
    ReferenceError,
    StopIteration,
    StopAsyncIteration,
    OSError,
)


def default_retry_on(exc: Exception) -> bool:
    """Whether :class:`RetryPolicy` retries ``exc`` by default, as LangGraph decides.

    Connection errors and HTTP errors with a 5xx status are retried; errors that
    a second attempt would raise again (bad values, types, lookups, runtime and
    OS errors) are not; anything else is.
    """
    if isinstance(exc, ConnectionError):
        return True
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int) and type(exc).__name__ in {"HTTPStatusError", "HTTPError"}:
        return 500 <= status < 600
    return not isinstance(exc, _NOT_RETRIED)


@lazy_dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a node that raises is tried again (interrupts are never retried).

    Attempt ``n`` (from 1) waits ``min(initial_interval * backoff_factor ** (n - 1),
    max_interval)`` seconds before attempt ``n + 1``, plus up to one second of
    jitter when ``jitter`` is true.
    """

    initial_interval: float = 0.5
    """Seconds to wait before the second attempt."""
    backoff_factor: float = 2.0
    """Factor the wait grows by after each attempt."""
    max_interval: float = 128.0
    """Upper bound of a wait, in seconds."""
    max_attempts: int = 3
    """Attempts in all, the first included."""
    jitter: bool = True
    """Add a random delay of up to one second to each wait."""
    retry_on: type[Exception] | tuple[type[Exception], ...] | Callable[[Exception], bool] = field(
        default=default_retry_on
    )
    """Exception types to retry, or a predicate on the exception (:func:`default_retry_on`)."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ArgumentValueError(
                f"RetryPolicy max_attempts must be an int >= 1, not {self.max_attempts!r}"
            )
        for name in ("initial_interval", "backoff_factor", "max_interval"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or value < 0:
                raise ArgumentValueError(f"RetryPolicy {name} must be a number >= 0, not {value!r}")

    def should_retry(self, exc: Exception) -> bool:
        """Whether ``exc`` is one this policy retries."""
        retry_on = self.retry_on
        if isinstance(retry_on, type | tuple):
            return isinstance(exc, retry_on)
        return bool(retry_on(exc))

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (counted from 1)."""
        base = min(self.initial_interval * self.backoff_factor ** (attempt - 1), self.max_interval)
        return base + (random.random() if self.jitter else 0.0)


publish("pyctx_web.graph.types", Send, Command, Interrupt, PregelTask, StateSnapshot, RetryPolicy)

# LangChain's tools return a ToolOutputMixin as it is, and wrap anything else in a
# ToolMessage: a tool returning a Command must return it as it is, as LangGraph's
# Command (a ToolOutputMixin) is. pyctx_web does not need langchain_core, and importing
# it costs a quarter of a second, so the mixin joins Command's bases only once
# langchain_core defines it: now if it has, else when it does.
_TOOL_OUTPUT_MODULE: Final = "langchain_core.messages.tool"


def _as_tool_output(module: Any) -> None:
    """Make :class:`Command` a ``ToolOutputMixin`` of ``module``, once."""
    mixin = getattr(module, "ToolOutputMixin", None)
    if isinstance(mixin, type) and not issubclass(Command, mixin):
        Command.__bases__ = (*Command.__bases__, mixin)


class _ToolOutputWatch:
    """A one-shot import hook: runs :func:`_as_tool_output` after LangChain's module loads."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != _TOOL_OUTPUT_MODULE:
            return None
        sys.meta_path.remove(self)
        from importlib.util import find_spec

        spec = find_spec(name)
        loader = None if spec is None else spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_then_mix(module: Any) -> None:
            exec_module(module)
            _as_tool_output(module)

        loader.exec_module = exec_then_mix  # type: ignore[union-attr,method-assign]
        return spec


if _TOOL_OUTPUT_MODULE in sys.modules:
    _as_tool_output(sys.modules[_TOOL_OUTPUT_MODULE])
else:
    sys.meta_path.insert(0, _ToolOutputWatch())
