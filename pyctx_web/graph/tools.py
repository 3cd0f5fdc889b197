"""Tools: functions a node calls by name, with arguments checked against a JSON Schema.

::

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    @tool(parameters=schema)
    async def double(args: dict[str, Any], ctx: RunContext[Any]) -> int:
        "Double a number."
        return args["n"] * 2

    graph = builder.compile(tools=[double])
    # in a node: await ctx.call_tool("double", {"n": 21})  -> 42

``parameters`` is JSON Schema, draft 2020-12, as far as
:mod:`pyctx_web.graph._runctx.jsonschema` checks it: every validation keyword and
applicator but ``unevaluatedItems``/``unevaluatedProperties``, with ``$ref`` to
parts of the same schema (``"#/$defs/..."``) and annotations such as ``title``,
``description``, ``default`` and ``format`` (which checks nothing). ``@tool``
refuses a schema with any other keyword, or a malformed value of these
(``minLength: "3"``, ``pattern: 5``, a non-list ``anyOf``), with an
:class:`~pyctx_web.errors.ArgumentValueError` naming the keyword, where it is,
its value and what it must be (:mod:`pyctx_web.graph._runctx.schemacheck`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, overload

from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph._runctx.schemacheck import check_schema
from pyctx_web.graph.errors import ToolArgumentError, UnknownToolError

if TYPE_CHECKING:
    from pyctx_web.graph._runctx.context import RunContext

__all__ = ["Tool", "ToolArgumentError", "UnknownToolError", "tool", "tool_table"]

ToolFunction = Callable[[dict[str, Any], "RunContext[Any]"], Any]


@dataclass(frozen=True, slots=True)
class Tool:
    """A function with a name, a description and a JSON Schema for its arguments."""

    name: str
    """How nodes call it."""
    description: str
    """What it does, for people and models."""
    parameters: Mapping[str, Any]
    """A JSON Schema object its arguments must satisfy."""
    fn: ToolFunction
    """``fn(args, ctx)``, sync or async."""

    def check(self, args: Any) -> None:
        """Raise :class:`ToolArgumentError` listing every way ``args`` break the schema."""
        if not isinstance(args, Mapping):
            raise ToolArgumentError(
                self.name, [f"args: expected an object (dict), got {type(args).__name__}"]
            )
        problems = validate(args, self.parameters)
        if problems:
            raise ToolArgumentError(self.name, problems)

    async def invoke(self, args: dict[str, Any], ctx: RunContext[Any]) -> Any:
        """Call the function; await its result when it is awaitable."""
        result = self.fn(args, ctx)
        if is_awaitable(result):
            result = await result
        return result


def _make_tool(
    fn: ToolFunction, name: str | None, description: str | None, parameters: Any
) -> Tool:
    if not callable(fn):
        raise ArgumentTypeError(f"@tool must decorate a function, not {type(fn).__name__!r}")
    tool_name = name or getattr(fn, "__name__", None)
    if not isinstance(tool_name, str) or not tool_name:
        raise ArgumentValueError("a tool needs a name: pass tool(name=...)")
    schema = {"type": "object"} if parameters is None else parameters
    check_schema(schema, f"tool {tool_name!r} parameters")
    doc = inspect.getdoc(fn) or ""
    return Tool(
        name=tool_name,
        description=description if description is not None else doc.split("\n\n", 1)[0],
        parameters=MappingProxyType(dict(schema)),
        fn=fn,
    )


@overload
def tool(fn: ToolFunction, /) -> Tool: ...
@overload
def tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> Callable[[ToolFunction], Tool]: ...


def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a :class:`Tool` of ``fn(args, ctx)``; use as ``@tool`` or ``@tool(name=..., ...)``.

    ``name`` defaults to the function's name, ``description`` to the first
    paragraph of its docstring, ``parameters`` to any object. A ``parameters``
    that is not a mapping raises :class:`~pyctx_web.errors.ArgumentTypeError`, one
    with a keyword the checks cannot honour :class:`~pyctx_web.errors.ArgumentValueError`.
    """
    if fn is not None:
        return _make_tool(fn, name, description, parameters)

    def decorate(function: ToolFunction) -> Tool:
        return _make_tool(function, name, description, parameters)

    return decorate


def tool_table(tools: Any) -> dict[str, Tool]:
    """Index ``tools`` by name; raise on a non-tool or a duplicate name."""
    table: dict[str, Tool] = {}
    for item in tools or ():
        if not isinstance(item, Tool):
            raise ArgumentTypeError(f"tools must be made with @tool, not {type(item).__name__!r}")
        if item.name in table:
            raise ArgumentValueError(f"two tools are named {item.name!r}")
        table[item.name] = item
    return table
