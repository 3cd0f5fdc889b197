"""Middleware around a run, its nodes and its tool calls.

A :class:`Middleware` names the points it serves (its scopes) and an async
``run(mctx, next)``. At each point the runtime calls the middlewares of that
scope as an onion: the first registered is outermost, and each decides when the
rest run by awaiting ``next()``. What a middleware does before ``next()`` runs
before the inner ones, what it does after runs after them::

    run:before ─ node:before ─ tool:before  [tool]  tool:after ─ node:after ─ run:after

A middleware may change ``mctx.tool.args`` at ``tool:before`` and
``mctx.tool.result`` at ``tool:after``. One that returns without awaiting
``next()`` skips the inner middlewares; at ``tool:before`` it also skips the
tool, whose result is then ``mctx.tool.result`` (a cache, a guard that answers
for the tool). Raising stops the operation with that error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, UsageError

if TYPE_CHECKING:
    from pyctx_web.graph._runctx.context import RunContext

__all__ = ["SCOPES", "Middleware", "MiddlewareContext", "Next", "ToolInvocation", "run_scope"]

TData = TypeVar("TData")

SCOPES: Final = (
    "run:before",
    "run:after",
    "node:before",
    "node:after",
    "tool:before",
    "tool:after",
)

Next = Callable[[], Awaitable[None]]
"""Runs the inner middlewares of the same point."""


@dataclass(eq=False, slots=True)
class ToolInvocation:
    """A tool call as middleware sees it."""

    name: str
    """The tool's name."""
    args: dict[str, Any]
    """The arguments; ``tool:before`` middleware may replace them."""
    result: Any = None
    """What the tool returned (``tool:after``); middleware may replace it."""
    error: BaseException | None = None
    """What the tool raised, if it raised (``tool:after``)."""


@dataclass(eq=False, slots=True)
class MiddlewareContext(Generic[TData]):
    """What a middleware receives: the point, the run's context and the operation."""

    scope: str
    """The point being served, one of :data:`SCOPES`."""
    ctx: RunContext[TData]
    """The run's context: input, data, state, user_context, execution_context..."""
    node: str | None = None
    """The node, at ``node:*`` and ``tool:*`` points (when the tool runs in a node)."""
    tool: ToolInvocation | None = None
    """The tool call, at ``tool:*`` points."""
    result: Any = None
    """The run's values at ``run:after``, the node's update at ``node:after``."""
    error: BaseException | None = None
    """What the run or node raised, at the ``:after`` points, if it raised."""


@dataclass(frozen=True, slots=True)
class Middleware(Generic[TData]):
    """A named function that runs at the points named in ``scopes``."""

    name: str
    """Shown in errors and in the run's records."""
    scopes: frozenset[str]
    """The points it serves, among :data:`SCOPES`; given as one str or several."""
    run: Callable[[MiddlewareContext[TData], Next], Awaitable[None] | None]
    """``async def run(mctx, next)``; a plain function is accepted too."""

    def __init__(
        self,
        name: str,
        scopes: str | Iterable[str],
        run: Callable[[MiddlewareContext[TData], Next], Awaitable[None] | None],
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ArgumentValueError(f"middleware name must be a non-empty str, not {name!r}")
        chosen = frozenset([scopes] if isinstance(scopes, str) else scopes)
        unknown = sorted(chosen.difference(SCOPES))
        if unknown or not chosen:
            raise ArgumentValueError(
                f"middleware {name!r}: unknown scope(s) {unknown or chosen!r}; "
                f"choose among {', '.join(SCOPES)}"
            )
        if not callable(run):
            raise ArgumentTypeError(f"middleware {name!r}: run must be callable")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "scopes", chosen)
        object.__setattr__(self, "run", run)


async def run_scope(middlewares: Iterable[Middleware[Any]], mctx: MiddlewareContext[Any]) -> bool:
    """Run the middlewares that serve ``mctx.scope`` as an onion, first registered outermost.

    Return whether every one of them passed control inward with ``next()``.
    """
    chain = [m for m in middlewares if mctx.scope in m.scopes]
    return await _dispatch(chain, 0, mctx)


async def _dispatch(chain: list[Middleware[Any]], index: int, mctx: MiddlewareContext[Any]) -> bool:
    if index == len(chain):
        return True
    middleware = chain[index]
    reached: bool | None = None

    async def next_() -> None:
        nonlocal reached
        if reached is not None:
            raise UsageError(f"middleware {middleware.name!r} called next() more than once")
        reached = False
        reached = await _dispatch(chain, index + 1, mctx)

    result = middleware.run(mctx, next_)
    if is_awaitable(result):
        await result
    return bool(reached)
