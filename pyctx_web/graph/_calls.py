"""What one call of a compiled graph asks for: its keywords, breakpoints and context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.execution import ExecutionContext
from pyctx_web.graph._engine.channels import is_state_type
from pyctx_web.graph._engine.spec import GraphSpec
from pyctx_web.graph.errors import InvalidGraphError

if TYPE_CHECKING:
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = [
    "Breakpoints",
    "RunOptions",
    "breakpoints",
    "check_options",
    "context_of",
    "durability_of",
    "multitask_of",
]

ExecutionContextArg = ExecutionContext | Mapping[str, Any] | None
Breakpoints = Sequence[str] | str | None
Durability = Literal["sync", "async", "exit"]
Multitask = Literal["reject", "enqueue"]
DURABILITIES: Final = ("sync", "async", "exit")


class RunOptions(TypedDict, total=False):
    """The keywords of ``invoke``, ``ainvoke``, ``stream``, ``astream`` and ``start``."""

    context: Any
    """The run's context (``runtime.context``); a dict becomes the context schema."""
    thread_id: Any
    """Shorthand for ``config={"configurable": {"thread_id": ...}}``."""
    interrupt_before: Breakpoints
    """Nodes to pause before in this run, instead of compile()'s."""
    interrupt_after: Breakpoints
    """Nodes to pause after in this run, instead of compile()'s."""
    multitask: Multitask
    """A second run of a busy thread: "reject" (``ThreadBusyError``, the default) or "enqueue"."""
    durability: Durability
    """When checkpoints are written: "sync" (the default), "async" or "exit", as LangGraph's."""
    execution_context: ExecutionContextArg
    """Tenant, user and correlation id: an ExecutionContext, or a mapping merged onto it."""


def check_options(options: RunOptions) -> None:
    """:class:`ArgumentTypeError` naming a keyword a run does not take."""
    unknown = set(options) - set(RunOptions.__annotations__)
    if unknown:
        raise ArgumentTypeError(
            f"got an unexpected keyword argument {sorted(unknown)[0]!r}; "
            f"expected {', '.join(sorted(RunOptions.__annotations__))}"
        )


def breakpoints(
    spec: GraphSpec,
    checkpointer: Checkpointer | None,
    names: Breakpoints,
    what: str,
    default: frozenset[str],
) -> frozenset[str]:
    """The nodes a call pauses at: its own ``interrupt_before``/``_after``, or compile()'s."""
    if names is None:
        return default
    if names == "*":
        return frozenset(spec.nodes)
    chosen = frozenset([names] if isinstance(names, str) else names)
    unknown = sorted(chosen - set(spec.nodes))
    if unknown:
        known = ", ".join(map(repr, spec.nodes))
        raise InvalidGraphError(f"{what}: unknown node(s) {unknown} (known nodes: {known})")
    if chosen and checkpointer is None:
        raise InvalidGraphError(f"{what} needs a checkpointer to pause and resume")
    return chosen


def multitask_of(options: RunOptions, default: str) -> str:
    """The call's ``multitask=``, or the graph's; :class:`ArgumentValueError` for others."""
    multitask = options.get("multitask") or default
    if multitask not in ("reject", "enqueue"):
        raise ArgumentValueError(f"multitask must be 'reject' or 'enqueue', not {multitask!r}")
    return multitask


def durability_of(options: RunOptions) -> str:
    """The run's durability: the ``durability=`` given, or ``"sync"``."""
    durability = options.get("durability") or "sync"
    if durability not in DURABILITIES:
        raise ArgumentValueError(
            f"durability must be one of {', '.join(map(repr, DURABILITIES))}, not {durability!r}"
        )
    return durability


def context_of(spec: GraphSpec, options: RunOptions) -> Any:
    """The run's ``context=``, as ``context_schema`` types it."""
    given = options.get("context")
    schema = spec.context_schema
    if isinstance(given, Mapping) and schema is not None and is_state_type(schema):
        return schema(**given)  # LangGraph builds the context schema from a dict
    return given
