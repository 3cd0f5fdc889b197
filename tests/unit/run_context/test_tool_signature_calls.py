"""Typed-function tools: which form a function takes, what @tool refuses, and calls in a graph.

The schemas themselves are in test_tool_signatures.py. Like it, this module uses
``from __future__ import annotations``: annotations reach ``@tool`` as strings.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.errors import ToolArgumentError
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.tools import tool


@dataclass
class Item:
    """One line of an order."""

    name: str
    quantity: int = 1


@dataclass
class Node:
    """A tree, which contains itself."""

    value: int
    children: list[Node]


class Plain:
    """A class that is neither a TypedDict nor a dataclass."""


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    answer: Any


# --- which form a function takes ------------------------------------------------------------------


def test_args_runtime_functions_and_explicit_schemas_keep_the_dict_form() -> None:
    """(args, runtime) functions and any function given parameters= are called with one dict."""
    given = Runtime(context="ctx")

    @tool
    def dict_form(args: dict[str, Any], runtime: Runtime[Any]) -> Any:
        """Echo the arguments and the context."""
        return args, runtime.context

    explicit = tool(parameters={"type": "object"})(lambda query, rt: (query, rt.context))
    one = tool(parameters={"type": "object"})(lambda query: query)
    untyped = tool(name="untyped")(lambda args, runtime: args)
    assert dict_form.parameters == {"type": "object"}
    assert untyped.parameters == {"type": "object"}
    assert asyncio.run(dict_form.invoke({"a": 1}, given)) == ({"a": 1}, "ctx")
    assert asyncio.run(explicit.invoke({"a": 1}, given)) == ({"a": 1}, "ctx")
    assert asyncio.run(one.invoke({"a": 1}, given)) == {"a": 1}


def test_an_args_runtime_function_whose_annotations_do_not_resolve_keeps_the_dict_form() -> None:
    """Annotations of an (args, runtime) function are not needed: unresolved ones are no error."""

    def handle(args: dict[str, Any], runtime: Undefined) -> Any:  # type: ignore[name-defined]  # noqa: F821
        """Echo the arguments."""
        return args, runtime.context

    made = tool(handle)
    assert made.parameters == {"type": "object"}
    assert asyncio.run(made.invoke({"a": 1}, Runtime(context=2))) == ({"a": 1}, 2)


def test_a_typed_args_parameter_takes_the_signature_form() -> None:
    """A parameter named args whose type is not a mapping makes a signature tool."""

    @tool
    def tagged(args: list[str], runtime: Runtime[Any]) -> list[str]:
        """Echo the tags."""
        return args

    assert tagged.parameters["properties"] == {
        "args": {"type": "array", "items": {"type": "string"}}
    }
    # No run: the tool never reads its runtime, so None stands for it (here and below).
    assert asyncio.run(tagged.invoke({"args": ["a"]}, None)) == ["a"]  # type: ignore[arg-type]


# --- refusals -------------------------------------------------------------------------------------


def _refused(source: str) -> str:
    """The message @tool raises for the function ``source`` defines (as ``f``)."""
    namespace = dict(globals())
    exec(source, namespace)
    with pytest.raises((ArgumentTypeError, ArgumentValueError)) as caught:
        tool(namespace["f"])
    return str(caught.value)


def test_an_unsupported_type_is_refused_with_advice() -> None:
    """set[int] is refused naming the tool, the parameter and the list to use instead."""
    assert _refused("def send_email(to: set[int]) -> None: ...\nf = send_email") == (
        "tool 'send_email': parameter 'to' has annotation set[int],"
        " which has no JSON Schema; use list[int]"
    )
    assert _refused("def f(to: tuple[str, ...]) -> None: ...").endswith("; use list[str]")


def test_a_nested_unsupported_type_is_named_where_it_is() -> None:
    """An unsupported type inside a list or a field is named with its container."""
    assert _refused("def f(x: list[frozenset[str]]) -> None: ...") == (
        "tool 'f': parameter 'x' has annotation list[frozenset[str]] with items"
        " frozenset[str], which has no JSON Schema; use list[str]"
    )
    assert "with field 'x' of bytes" in _refused(
        "from dataclasses import dataclass\n"
        "@dataclass\nclass D:\n    x: bytes\n"
        "def f(d: D) -> None: ..."
    )


def test_a_missing_annotation_is_refused() -> None:
    """A parameter without annotation is refused, pointing at Runtime for the run's Runtime."""
    assert _refused("def f(query: str, runtime) -> None: ...") == (
        "tool 'f': parameter 'runtime' has no annotation; annotate it with its type"
        " (Runtime for the parameter that gets the run's Runtime)"
    )


def test_star_parameters_are_refused() -> None:
    """*args and **kwargs cannot be filled from JSON arguments."""
    assert _refused("def f(*items: str) -> None: ...") == (
        "tool 'f': *items cannot be filled from JSON arguments; a tool takes named parameters"
    )
    assert "**extra cannot be filled" in _refused("def f(a: int, **extra: str) -> None: ...")


def test_positional_only_parameters_are_refused() -> None:
    """A positional-only parameter cannot be passed as a keyword, so it is refused."""
    assert "parameter 'a' is positional-only" in _refused("def f(a: int, /) -> None: ...")


def test_a_plain_class_is_refused() -> None:
    """A class that is neither a TypedDict nor a dataclass has no schema."""
    assert _refused("def f(p: Plain) -> None: ...") == (
        "tool 'f': parameter 'p' has annotation Plain, which has no JSON Schema;"
        " use a TypedDict or a dataclass"
    )


def test_a_dict_with_non_string_keys_is_refused() -> None:
    """JSON object keys are strings, so dict[int, str] is refused."""
    assert _refused("def f(m: dict[int, str]) -> None: ...") == (
        "tool 'f': parameter 'm' has annotation dict[int, str], whose keys are int;"
        " JSON object keys are strings: use dict[str, str]"
    )


def test_an_unresolved_forward_reference_is_refused() -> None:
    """A string annotation naming nothing is refused with the name that is missing."""
    assert _refused("def f(a: int, b: 'Missing') -> None: ...") == (
        "tool 'f': parameter 'b' has annotation 'Missing', which does not resolve:"
        " name 'Missing' is not defined"
    )


def test_a_literal_of_a_non_json_value_is_refused() -> None:
    """Literal values must be JSON strings, numbers, booleans or null."""
    assert _refused("from typing import Literal\ndef f(a: Literal[b'x']) -> None: ...") == (
        "tool 'f': parameter 'a' has annotation Literal[b'x'], whose value b'x'"
        " is not a JSON string, number, boolean or null"
    )


def test_a_class_that_contains_itself_is_refused() -> None:
    """A recursive dataclass has no finite schema, so it is refused."""
    message = _refused("def f(tree: Node) -> None: ...")
    assert message.endswith("Node contains itself, which a tool's schema cannot express")


def test_two_runtime_parameters_are_refused() -> None:
    """Only one parameter can receive the run's Runtime."""
    message = _refused("def f(a: Runtime[Any], b: Runtime) -> None: ...")
    assert message == "tool 'f': parameter 'b' is a second Runtime parameter; 'a' already gets it"


# --- calls ----------------------------------------------------------------------------------------


@tool
def add_line(item: Item, note: str = "none", count: int = 1, price: float = 0) -> dict[str, Any]:
    """Add a line to the basket."""
    return {"item": item, "note": note, "count": count, "price": price}


@tool
async def who_asks(question: str, runtime: Runtime[Any], loud: bool = False) -> dict[str, Any]:
    """Say which run asks."""
    await asyncio.sleep(0)
    assert runtime.execution_info is not None
    return {
        "question": question.upper() if loud else question,
        "run_id": runtime.execution_info.run_id,
    }


def _caller(name: str, args: dict[str, Any], seen: list[Any]) -> Any:
    async def ask(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        assert runtime.execution_info is not None
        seen.append(runtime.execution_info.run_id)
        return {"answer": await runtime.call_tool(name, args)}

    graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    return graph.compile(tools=[add_line, who_asks])


@pytest.mark.asyncio
async def test_a_sync_tool_gets_keywords_defaults_and_a_built_dataclass() -> None:
    """The tool gets keywords, Python's defaults, an Item built from JSON and numbers as typed."""
    args = {"item": {"name": "pen", "quantity": 2.0}, "count": 3.0, "price": 2}
    answer = (await _caller("add_line", args, []).ainvoke({}))["answer"]
    assert answer == {"item": Item("pen", 2), "note": "none", "count": 3, "price": 2.0}
    assert (type(answer["count"]), type(answer["item"].quantity), type(answer["price"])) == (
        int,
        int,
        float,
    )


@pytest.mark.asyncio
async def test_an_async_tool_gets_the_runtime() -> None:
    """The Runtime parameter receives the calling run's Runtime, not an argument."""
    seen: list[Any] = []
    result = await _caller("who_asks", {"question": "who?", "loud": True}, seen).ainvoke({})
    assert result["answer"] == {"question": "WHO?", "run_id": seen[0]}
    assert "runtime" not in who_asks.parameters["properties"]


@pytest.mark.asyncio
async def test_bad_arguments_are_refused_before_the_call() -> None:
    """Missing, mistyped and unknown arguments raise ToolArgumentError listing each."""
    app = _caller("add_line", {"item": {"quantity": "2"}, "colour": "red"}, [])
    with pytest.raises(ToolArgumentError) as caught:
        await app.ainvoke({})
    assert caught.value.problems == [
        "args.item.name: required property is missing",
        "args.item.quantity: expected integer, got string ('2')",
        "args.colour: unexpected property",
    ]


def test_check_refuses_a_runtime_given_as_an_argument() -> None:
    """The Runtime parameter is not an argument, so passing it is refused."""
    with pytest.raises(
        ToolArgumentError,
        match=r"^invalid arguments for tool 'who_asks':\n  args\.runtime: unexpected property$",
    ):
        who_asks.check({"question": "q", "runtime": 1})


def test_a_partial_takes_the_parameters_it_leaves_open() -> None:
    """A functools.partial is read through its function; what it binds gets its default."""

    def greet(name: str, greeting: str) -> str:
        return f"{greeting}, {name}"

    hello = tool(name="hello")(functools.partial(greet, greeting="Hello"))
    assert hello.parameters["required"] == ["name"]
    assert hello.parameters["properties"]["greeting"] == {"type": "string", "default": "Hello"}
    # No run: the tool has no runtime parameter, so None stands for the runtime (here and below).
    assert asyncio.run(hello.invoke({"name": "Ada"}, None)) == "Hello, Ada"  # type: ignore[arg-type]


def test_union_arguments_are_built_by_the_member_they_match() -> None:
    """A union of a dataclass and null builds the dataclass only from an object."""

    @tool
    def maybe(item: Item | None = None, items: dict[str, Item] | None = None) -> Any:
        """Echo the item."""
        return item, items

    call = maybe.invoke
    assert asyncio.run(call({"item": None}, None)) == (None, None)  # type: ignore[arg-type]
    assert asyncio.run(call({"items": {"a": {"name": "x"}}}, None)) == (  # type: ignore[arg-type]
        None,
        {"a": Item("x")},
    )
