"""Tools: functions a node calls by name, with arguments checked against a JSON Schema.

``@tool`` makes a :class:`Tool` of a typed function, its schema read from the
annotations and its description from the docstring, as LangChain's ``@tool``
does::

    @tool
    async def send_email(to: list[str], subject: str, body: str = "") -> str:
        '''Send an email.

        Args:
            to: The recipients' addresses.
        '''
        ...

    @tool
    async def remember(note: str, runtime: Runtime) -> None:
        "Keep a note for the session."   # runtime: the run's Runtime; not in the schema
        await runtime.memory.write([MemoryEntry(note, session_id=...)])

    graph = builder.compile(tools=[send_email, remember])
    # in a node: await runtime.call_tool("send_email", {"to": ["a@b.c"], "subject": "Hi"})
    # for a model: [t.to_openai() for t in (send_email, remember)]

The function is called with keyword arguments, ``fn(**args)``; Python fills in
the defaults of what the arguments leave out. The annotations that have a
schema, and the refusals of the others, are listed in
:mod:`pyctx_web.graph._runctx.signature_schema`.

A function may instead take the arguments as one dict with an explicit schema,
called as ``fn(args)``, or ``fn(args, runtime)`` when it takes two parameters::

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    @tool(parameters=schema)
    async def double(args: dict[str, Any]) -> int:
        "Double a number."
        return args["n"] * 2

A function is taken in this form when ``parameters=`` is given, or when its
parameters are exactly ``args`` (and ``runtime``) with ``args`` unannotated or
annotated as a mapping (``dict``, ``Mapping``, ``Any``); then ``parameters``
defaults to any object. Every other function is read from its signature (so a
signature tool with a dict parameter named ``args`` must name it otherwise).

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
from types import MappingProxyType
from typing import Any, overload

from pyctx_web._homes import publish
from pyctx_web._records import record
from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._engine.runtime import Runtime
from pyctx_web.graph._runctx.signature_text import signature, summary
from pyctx_web.graph.errors import ToolArgumentError

__all__ = ["Tool", "tool", "tool_table"]

ToolFunction = Callable[[dict[str, Any], "Runtime[Any]"], Any]


@record(frozen=True, slots=True)
class Tool:
    """A function with a name, a description and a JSON Schema for its arguments."""

    name: str
    """How nodes call it."""
    description: str
    """What it does, for people and models."""
    parameters: Mapping[str, Any]
    """A JSON Schema object its arguments must satisfy."""
    fn: ToolFunction
    """``fn(args, runtime)``, sync or async: the call of the decorated function."""

    def check(self, args: Any) -> None:
        """Raise :class:`ToolArgumentError` listing every way ``args`` break the schema."""
        if not isinstance(args, Mapping):
            raise ToolArgumentError(
                self.name, [f"args: expected an object (dict), got {type(args).__name__}"]
            )
        # The validator is loaded by the first check, not with the tools of a page.
        from pyctx_web.graph._runctx.jsonschema import validate

        problems = validate(args, self.parameters)
        if problems:
            raise ToolArgumentError(self.name, problems)

    def to_openai(self) -> dict[str, Any]:
        """The tool as an entry of a chat-completions ``tools`` list, a JSON-ready copy."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": _plain(self.parameters),
            },
        }

    async def invoke(self, args: dict[str, Any], runtime: Runtime[Any]) -> Any:
        """Call the function; await its result when it is awaitable."""
        result = self.fn(args, runtime)
        if is_awaitable(result):
            result = await result
        return result


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


@record(frozen=True, slots=True)
class ArgsCall:
    """Call ``function(args)``, or ``function(args, runtime)`` when it takes two parameters."""

    function: Callable[..., Any]
    """The decorated function."""
    takes_runtime: bool
    """Whether it takes the run's :class:`Runtime` second."""

    def __call__(self, args: Mapping[str, Any], runtime: Runtime[Any]) -> Any:
        """Call the function with the arguments as one dict."""
        if self.takes_runtime:
            return self.function(args, runtime)
        return self.function(args)


def args_call(fn: Callable[..., Any]) -> ArgsCall:
    """The call of a tool given ``parameters=``: ``fn(args)``, or ``fn(args, runtime)``."""
    try:
        count = len(signature(fn).parameters)
    except (TypeError, ValueError):
        count = 2  # a callable without a signature: given what a tool may take
    return ArgsCall(fn, count >= 2)


def _make_tool(
    fn: Callable[..., Any], name: str | None, description: str | None, parameters: Any
) -> Tool:
    if not callable(fn):
        raise ArgumentTypeError(f"@tool must decorate a function, not {type(fn).__name__!r}")
    tool_name = name or getattr(fn, "__name__", None)
    if not isinstance(tool_name, str) or not tool_name:
        raise ArgumentValueError("a tool needs a name: pass tool(name=...)")
    # The schema reader (and the validator it uses) loads with the first tool, not with the
    # middleware that names tools.
    from pyctx_web.graph._runctx.signature_schema import is_args_form, signature_tool

    call: ToolFunction
    if parameters is None and not is_args_form(fn):
        # A schema made from the signature is well-formed by construction: not checked again.
        parameters, call = signature_tool(fn, tool_name)
    else:
        call = args_call(fn)
        from pyctx_web.graph._runctx.schemacheck import check_schema

        parameters = {"type": "object"} if parameters is None else parameters
        check_schema(parameters, f"tool {tool_name!r} parameters")
    schema = parameters
    return Tool(
        name=tool_name,
        description=description if description is not None else summary(inspect.getdoc(fn) or ""),
        parameters=MappingProxyType(dict(schema)),
        fn=call,
    )


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    fn: str | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | str | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a :class:`Tool` of a function: ``@tool``, ``@tool("name")``, ``@tool(name=...)``.

    ``name`` defaults to the function's name, ``description`` to the first
    paragraph of its docstring. Without ``parameters`` a typed function gets its
    schema from its signature; see the module's documentation for which form a
    function takes. A ``parameters`` that is not a mapping, or a signature with
    no schema, raises :class:`~pyctx_web.errors.ArgumentTypeError`; a schema with
    a keyword the checks cannot honour :class:`~pyctx_web.errors.ArgumentValueError`.
    """
    if isinstance(fn, str):
        if name is not None:
            raise ArgumentTypeError("tool() got multiple values for argument 'name'")
        fn, name = None, fn
    if fn is not None:
        return _make_tool(fn, name, description, parameters)

    def decorate(function: Callable[..., Any]) -> Tool:
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


publish("pyctx_web.graph.tools", Tool, tool)
