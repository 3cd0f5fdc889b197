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

:class:`HumanInTheLoopMiddleware` pauses the run for a person to approve, edit
or reject tool calls before they run (LangChain's middleware of that name);
:class:`ToolResult` is what ``ctx.call_tools`` returns for each call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, UsageError
from pyctx_web.graph._runctx.log import ToolResult

if TYPE_CHECKING:
    from pyctx_web.graph._runctx.context import RunContext

__all__ = [
    "DECISIONS",
    "SCOPES",
    "HumanInTheLoopMiddleware",
    "Middleware",
    "MiddlewareContext",
    "Next",
    "ReviewConfig",
    "ToolInvocation",
    "ToolResult",
    "run_scope",
]

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


DECISIONS: Final = ("approve", "edit", "reject")
"""The decisions a reviewer may make on a tool call, as LangChain names them."""

_CONFIG_KEYS: Final = ("allowed_decisions", "description", "arguments_schema")

Description = Callable[[dict[str, Any], "RunContext[Any]"], "str | Awaitable[str]"]
"""``description(call, ctx)``: the text shown for ``call`` (``name``, ``arguments``, ``id``)."""


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    """How the calls of one tool are reviewed."""

    allowed_decisions: tuple[str, ...]
    """The decisions the reviewer may make, among :data:`DECISIONS`."""
    description: str | Description | None = None
    """The text shown with each call, or a function making it; ``None``: the default."""
    arguments_schema: Mapping[str, Any] | None = None
    """The JSON Schema edited arguments must satisfy; ``None``: the tool's parameters."""


def _review_config(tool: str, config: Any) -> ReviewConfig | None:
    """``config`` of ``interrupt_on[tool]`` checked: ``None`` for a tool that runs unreviewed."""
    if config is True:
        return ReviewConfig(DECISIONS)
    if config is False:
        return None
    where = f"interrupt_on[{tool!r}]"
    if not isinstance(config, Mapping):
        raise ArgumentTypeError(f"{where} must be a bool or a dict, not {type(config).__name__!r}")
    unknown = sorted(str(k) for k in config if k not in _CONFIG_KEYS)
    if unknown:
        raise ArgumentValueError(
            f"{where} has unknown key(s) {', '.join(map(repr, unknown))}; "
            f"known keys: {', '.join(_CONFIG_KEYS)}"
        )
    allowed = config.get("allowed_decisions", DECISIONS)
    if isinstance(allowed, str) or not isinstance(allowed, Iterable):
        raise ArgumentTypeError(f"{where}['allowed_decisions'] must be a list of decision types")
    allowed = list(allowed)
    if not allowed or any(not isinstance(d, str) or d not in DECISIONS for d in allowed):
        raise ArgumentValueError(
            f"{where}['allowed_decisions'] must be a non-empty list among "
            f"{', '.join(map(repr, DECISIONS))}, not {allowed!r}"
        )
    description = config.get("description")
    if description is not None and not isinstance(description, str) and not callable(description):
        raise ArgumentTypeError(
            f"{where}['description'] must be a str or a function (call, ctx) -> str, "
            f"not {type(description).__name__!r}"
        )
    schema = config.get("arguments_schema")
    if schema is not None:
        # Imported here: the schema checker and validator wait for a schema to check.
        from pyctx_web.graph._runctx.schemacheck import check_schema

        check_schema(schema, f"{where}['arguments_schema']")
        schema = MappingProxyType(dict(schema))
    return ReviewConfig(tuple(dict.fromkeys(allowed)), description, schema)


async def _pass_on(mctx: MiddlewareContext[Any], next_: Next) -> None:
    # The review happens once for a whole batch of calls, before any of them
    # reaches ``tool:before``; at that point it only passes control inward.
    await next_()


@dataclass(frozen=True, slots=True, init=False, eq=False)
class HumanInTheLoopMiddleware(Middleware[Any]):
    """Pause the run for a person to approve, edit or reject tool calls before they run.

    ``interrupt_on`` maps a tool's name to ``True`` (any decision: approve, edit
    or reject), ``False`` (runs unreviewed, as a tool not named) or a dict with
    ``allowed_decisions`` (a list among ``"approve"``, ``"edit"``,
    ``"reject"``; all three when left out), ``description`` (a str, or a
    function ``description(call, ctx)`` of the call ``{"name", "arguments",
    "id"}`` and the run's :class:`~pyctx_web.graph.runtime.RunContext`, returning
    the str, or an awaitable of it) and ``arguments_schema`` (the JSON Schema
    edited arguments must satisfy, on top of the tool's own; shown to the
    reviewer; the tool's parameters when left out). The default description is
    ``f"{description_prefix}\n\nTool: {name}\nArgs: {arguments}"``.

    The calls a node makes together (``await ctx.call_tools([...])``, or one
    ``await ctx.call_tool(name, args)``) are reviewed together: the node pauses
    with one ``interrupt()`` whose value lists the calls to review, in order::

        {"action_requests": [{"name", "arguments", "description"}, ...],
         "review_configs": [{"action_name", "allowed_decisions", "arguments_schema"}, ...]}

    (one review config per tool among the requests). The other calls of the
    batch run without review. The run resumes with one decision per request, in
    order: ``{"type": "approve"}``, ``{"type": "edit", "edited_action": {"name":
    ..., "arguments": {...}}}`` (``"args"`` is accepted for ``"arguments"``; the
    name may be any tool of the graph, and the arguments are checked against its
    schema) or ``{"type": "reject", "message": "..."}`` (the tool does not run and
    the message is its result; by default the message is LangChain's). A
    missing, extra, malformed or disallowed decision, or edited arguments that
    break the schema, refuse the resume with
    :class:`~pyctx_web.graph.errors.ResumeError` listing each problem by decision
    index; the thread is left as it was, so the same question can be answered
    again (when one resume answers the questions of several nodes of a step, the
    nodes whose decisions were fine run and keep their results). As with any
    ``interrupt()``, the node runs again from its first line on
    resume: it must propose the same calls (same names and arguments), or the
    resume is refused rather than the decisions applied to other calls.

    The review comes before the ``tool:before`` middleware of each call,
    whatever this middleware's place in the list; when several are given, the
    first that names a tool reviews its calls. The tools it reviews must be tools
    of the graph (checked by ``compile()``). Decisions are emitted as an
    ``"approval"`` event and recorded in ``ctx.state.tool_calls`` (``review``).

    ::

        graph = builder.compile(
            InMemorySaver(),
            tools=[send_email, schedule_meeting, read_data],
            middleware=[
                HumanInTheLoopMiddleware(
                    interrupt_on={
                        "send_email": True,
                        "schedule_meeting": {
                            "allowed_decisions": ["approve", "reject"],
                            "description": "A meeting goes into everyone's calendar",
                        },
                        "read_data": False,
                    },
                    description_prefix="Tool execution requires approval",
                )
            ],
        )

        # in a node: results = await ctx.call_tools(reply["tool_calls"])
        result = await graph.ainvoke({"messages": [...]}, thread_id="t1")
        question = result["__interrupt__"][0].value   # action_requests, review_configs
        await graph.ainvoke(
            Command(resume={"decisions": [
                {"type": "approve"},
                {"type": "reject", "message": "No meetings on Friday."},
            ]}),
            thread_id="t1",
        )
    """

    interrupt_on: Mapping[str, ReviewConfig]
    """The tools whose calls are reviewed, with how; tools not listed run unreviewed."""
    description_prefix: str
    """The first line of the default description."""

    def __init__(
        self,
        interrupt_on: Mapping[str, bool | Mapping[str, Any]],
        *,
        description_prefix: str = "Tool execution requires approval",
        name: str = "human_in_the_loop",
    ) -> None:
        Middleware.__init__(self, name, "tool:before", _pass_on)
        if not isinstance(interrupt_on, Mapping):
            raise ArgumentTypeError(
                f"interrupt_on must be a dict of tool names, not {type(interrupt_on).__name__!r}"
            )
        if not isinstance(description_prefix, str):
            raise ArgumentTypeError(
                f"description_prefix must be a str, not {type(description_prefix).__name__!r}"
            )
        configs: dict[str, ReviewConfig] = {}
        for tool, config in interrupt_on.items():
            if not isinstance(tool, str) or not tool:
                raise ArgumentTypeError(f"interrupt_on keys must be tool names (str), not {tool!r}")
            checked = _review_config(tool, config)
            if checked is not None:
                configs[tool] = checked
        object.__setattr__(self, "interrupt_on", MappingProxyType(configs))
        object.__setattr__(self, "description_prefix", description_prefix)

    def check_tools(self, known: Collection[str]) -> None:
        """Raise ``ArgumentValueError`` naming the tools it reviews that ``known`` lacks."""
        missing = [name for name in self.interrupt_on if name not in known]
        if missing:
            names = ", ".join(map(repr, sorted(known))) or "none"
            raise ArgumentValueError(
                f"middleware {self.name!r}: interrupt_on names tool(s) "
                f"{', '.join(map(repr, missing))} that the graph does not have; "
                f"its tools: {names}"
            )
