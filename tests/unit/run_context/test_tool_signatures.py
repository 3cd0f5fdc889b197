"""Tools made from typed functions: the schema their signature gives, refusals, calls, to_openai.

The module uses ``from __future__ import annotations``, so every annotation here
reaches ``@tool`` as a string; one test gives real type objects instead.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, Optional, Required, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.runtime import RunContext
from pyctx_web.graph.tools import Tool, ToolArgumentError, tool


class Address(TypedDict):
    """Where to ship."""

    street: str
    zip: NotRequired[int]


class Options(TypedDict, total=False):
    colour: Required[str]
    size: int


@dataclass
class Item:
    """One line of an order."""

    name: str
    quantity: int = 1
    tags: list[str] = field(default_factory=list)


@dataclass
class Priced:
    """A line whose price is set after it is made."""

    name: str
    price: float = field(default=0.0, init=False)


@dataclass
class Node:
    value: int
    children: list[Node]


@dataclass
class Point:
    x: int
    y: int


class Plain:
    """A class that is neither a TypedDict nor a dataclass."""


NOT_JSON = object()
"""A default that is no JSON value."""


class State(TypedDict, total=False):
    """The state of the graphs of this module."""

    answer: Any


def _parameters(fn: Any) -> dict[str, Any]:
    return tool(fn).to_openai()["function"]["parameters"]  # type: ignore[no-any-return]


def _property(annotation: str) -> dict[str, Any]:
    """The schema of one parameter ``x`` annotated ``annotation`` (evaluated here)."""
    namespace = dict(globals())
    exec(f"def probe(x: {annotation}) -> None: ...", namespace)
    return _parameters(namespace["probe"])["properties"]["x"]  # type: ignore[no-any-return]


# --- the schema of each annotation ----------------------------------------------------------------


def test_scalars_become_json_types() -> None:
    """str, int, float and bool become string, integer, number and boolean."""
    assert [_property(t) for t in ("str", "int", "float", "bool")] == [
        {"type": "string"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "boolean"},
    ]


def test_any_and_none_become_any_value_and_null() -> None:
    """Any allows every value and None allows only null."""
    assert (_property("Any"), _property("None")) == ({}, {"type": "null"})


def test_lists_become_arrays_of_their_items() -> None:
    """list[T] is an array of T's schema, and a bare list an array of anything."""
    assert _property("list[int]") == {"type": "array", "items": {"type": "integer"}}
    assert _property("list[list[str]]") == {
        "type": "array",
        "items": {"type": "array", "items": {"type": "string"}},
    }
    assert _property("list") == {"type": "array", "items": {}}


def test_dicts_with_string_keys_become_objects_of_their_values() -> None:
    """dict[str, T] is an object whose values match T; dict and dict[str, Any] allow any value."""
    assert _property("dict[str, float]") == {
        "type": "object",
        "additionalProperties": {"type": "number"},
    }
    assert _property("dict[str, Any]") == {"type": "object", "additionalProperties": True}
    assert _property("dict") == {"type": "object", "additionalProperties": True}


def test_literals_become_enums_typed_when_they_share_a_type() -> None:
    """Literal gives an enum with the type its values share, or a const for one value."""
    assert _property('Literal["low", "high"]') == {"enum": ["low", "high"], "type": "string"}
    assert _property('Literal[1, "a", None]') == {"enum": [1, "a", None]}
    assert _property("Literal[True]") == {"const": True, "type": "boolean"}


def test_optional_and_unions_become_any_of() -> None:
    """Optional[T], T | None and X | Y list each member's schema under anyOf."""
    optional = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert _property("Optional[str]") == optional
    assert _property("str | None") == optional
    assert _property("int | str | None") == {
        "anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]
    }


def test_annotated_text_describes_the_value() -> None:
    """The first string of Annotated becomes the description; other metadata is ignored."""
    assert _property('Annotated[int, 3, "how many"]') == {
        "type": "integer",
        "description": "how many",
    }
    assert _property('list[Annotated[str, "a name"]]') == {
        "type": "array",
        "items": {"type": "string", "description": "a name"},
    }


def test_typed_dict_becomes_a_closed_object_with_its_required_keys() -> None:
    """A TypedDict is an object of its keys; totality, Required and NotRequired set required."""
    assert _property("Address") == {
        "type": "object",
        "properties": {"street": {"type": "string"}, "zip": {"type": "integer"}},
        "required": ["street"],
        "additionalProperties": False,
        "description": "Where to ship.",
    }
    assert _property("Options") == {
        "type": "object",
        "properties": {"colour": {"type": "string"}, "size": {"type": "integer"}},
        "required": ["colour"],
        "additionalProperties": False,
    }


def test_dataclass_becomes_an_object_of_its_init_fields() -> None:
    """A dataclass is an object of its init fields; those without a default are required."""
    assert _property("Item") == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "quantity": {"type": "integer", "default": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name"],
        "additionalProperties": False,
        "description": "One line of an order.",
    }


def test_dataclass_fields_outside_init_are_left_out() -> None:
    """A field with init=False cannot be passed, so it is not in the schema (LangChain lists it)."""
    assert list(_property("Priced")["properties"]) == ["name"]


def test_classes_without_docstring_have_no_description() -> None:
    """Neither the docstring @dataclass writes nor the one a TypedDict inherits describes it."""
    assert "description" not in _property("Point")
    assert "description" not in _property("Options")


def test_signature_gives_required_defaults_and_a_closed_object() -> None:
    """Parameters without default are required, JSON defaults are kept, others are closed out."""

    @tool
    def send_email(to: list[str], subject: str, body: str = "", when: Any = NOT_JSON) -> str:
        """Send an email."""
        return subject

    assert isinstance(send_email, Tool)
    assert send_email.parameters["required"] == ["to", "subject"]
    assert send_email.parameters["properties"]["body"] == {"type": "string", "default": ""}
    assert send_email.parameters["additionalProperties"] is False


def test_docstring_args_describe_parameters() -> None:
    """A Google-style Args section describes each parameter, over Annotated text."""

    @tool
    def search(
        query: str, limit: Annotated[int, "ignored"] = 5, lang: Annotated[str, "kept"] = "en"
    ) -> list[str]:
        """Search the web.

        Longer explanation.

        Args:
            query: What to look for,
                over two lines.
            limit (int): How many results.

        Returns:
            The results.
        """
        return []

    properties = search.parameters["properties"]
    assert search.description == "Search the web."
    assert properties["query"]["description"] == "What to look for, over two lines."
    assert properties["limit"]["description"] == "How many results."
    assert properties["lang"]["description"] == "kept"


def test_real_type_objects_give_the_same_schema_as_strings() -> None:
    """Annotations that are type objects, not strings, are read the same way."""

    def plain(names, limit=3):  # type: ignore[no-untyped-def]
        """List names."""

    plain.__annotations__ = {"names": list[str], "limit": int | None, "return": list[str]}
    assert tool(plain).parameters["properties"] == {
        "names": {"type": "array", "items": {"type": "string"}},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 3},
    }


def test_name_and_description_forms() -> None:
    """@tool("name") and @tool(name=..., description=...) name and describe a typed tool."""

    @tool("find")
    def lookup(word: str) -> str:
        """Look a word up."""
        return word

    @tool(name="find2", description="Find it.")
    def other(word: str) -> str:
        return word

    assert (lookup.name, lookup.description) == ("find", "Look a word up.")
    assert (other.name, other.description) == ("find2", "Find it.")
    assert other.parameters["required"] == ["word"]
    with pytest.raises(TypeError, match="multiple values for argument 'name'"):
        tool("a", name="b")


# --- which form a function takes ------------------------------------------------------------------


def test_args_ctx_functions_and_explicit_schemas_keep_the_dict_form() -> None:
    """(args, ctx) functions and any function given parameters= are called with one dict."""

    @tool
    def legacy(args: dict[str, Any], ctx: RunContext[Any]) -> Any:
        """Echo the arguments."""
        return args

    explicit = tool(parameters={"type": "object"})(lambda query, ctx: query)
    untyped = tool(name="untyped")(lambda args, ctx: args)
    assert legacy.parameters == {"type": "object"}
    assert untyped.parameters == {"type": "object"}
    assert asyncio.run(legacy.invoke({"a": 1}, None)) == {"a": 1}  # type: ignore[arg-type]
    assert asyncio.run(explicit.invoke({"a": 1}, None)) == {"a": 1}  # type: ignore[arg-type]


def test_a_typed_args_parameter_takes_the_signature_form() -> None:
    """A parameter named args whose type is not a mapping makes a signature tool."""

    @tool
    def tagged(args: list[str], ctx: RunContext[Any]) -> list[str]:
        """Echo the tags."""
        return args

    assert tagged.parameters["properties"] == {
        "args": {"type": "array", "items": {"type": "string"}}
    }
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
    """A parameter without annotation is refused, pointing at RunContext for the context."""
    assert _refused("def f(query: str, ctx) -> None: ...") == (
        "tool 'f': parameter 'ctx' has no annotation; annotate it with its type"
        " (RunContext for the parameter that gets the run context)"
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
    assert _refused("def f(a: Literal[b'x']) -> None: ...") == (
        "tool 'f': parameter 'a' has annotation Literal[b'x'], whose value b'x'"
        " is not a JSON string, number, boolean or null"
    )


def test_a_class_that_contains_itself_is_refused() -> None:
    """A recursive dataclass has no finite schema, so it is refused."""
    message = _refused("def f(tree: Node) -> None: ...")
    assert message.endswith("Node contains itself, which a tool's schema cannot express")


def test_two_run_context_parameters_are_refused() -> None:
    """Only one parameter can receive the run context."""
    message = _refused("def f(a: RunContext[Any], b: RunContext) -> None: ...")
    assert (
        message == "tool 'f': parameter 'b' is a second RunContext parameter; 'a' already gets it"
    )


# --- to_openai ------------------------------------------------------------------------------------


def test_to_openai_is_a_json_ready_copy() -> None:
    """to_openai gives the chat-completions entry as plain dicts; changing it changes nothing."""

    @tool
    def order(items: list[Item], ship_to: Address) -> str:
        """Place an order."""
        return "ok"

    entry = order.to_openai()
    assert entry["type"] == "function"
    assert entry["function"]["name"] == "order"
    assert entry["function"]["description"] == "Place an order."
    assert json.loads(json.dumps(entry)) == entry
    entry["function"]["parameters"]["properties"].clear()
    assert order.to_openai()["function"]["parameters"]["properties"]["ship_to"]["required"] == [
        "street"
    ]


def test_to_openai_of_an_explicit_schema_tool() -> None:
    """A tool made with parameters= gives that schema in its entry."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    double = tool(name="double", description="Double n.", parameters=schema)(
        lambda args, ctx: args["n"] * 2
    )
    assert double.to_openai() == {
        "type": "function",
        "function": {"name": "double", "description": "Double n.", "parameters": schema},
    }


# --- calls ----------------------------------------------------------------------------------------


@tool
def add_line(item: Item, note: str = "none", count: int = 1) -> dict[str, Any]:
    """Add a line to the basket."""
    return {"item": item, "note": note, "count": count}


@tool
async def who_asks(question: str, ctx: RunContext[Any], loud: bool = False) -> dict[str, Any]:
    """Say which run asks."""
    await asyncio.sleep(0)
    return {"question": question.upper() if loud else question, "run_id": ctx.run_id}


def _caller(name: str, args: dict[str, Any], seen: list[Any]) -> Any:
    async def ask(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        seen.append(ctx.run_id)
        return {"answer": await ctx.call_tool(name, args)}

    graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    return graph.compile(tools=[add_line, who_asks])


@pytest.mark.asyncio
async def test_a_sync_tool_gets_keywords_defaults_and_a_built_dataclass() -> None:
    """The tool gets its arguments as keywords, Python's defaults, and an Item built from JSON."""
    args = {"item": {"name": "pen", "quantity": 2.0}, "count": 3.0}
    result = await _caller("add_line", args, []).ainvoke({})
    assert result["answer"] == {"item": Item("pen", 2), "note": "none", "count": 3}
    assert type(result["answer"]["count"]) is int


@pytest.mark.asyncio
async def test_an_async_tool_gets_the_run_context() -> None:
    """The RunContext parameter receives the calling run's context, not an argument."""
    seen: list[Any] = []
    result = await _caller("who_asks", {"question": "who?", "loud": True}, seen).ainvoke({})
    assert result["answer"] == {"question": "WHO?", "run_id": seen[0]}
    assert "ctx" not in who_asks.parameters["properties"]


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


def test_check_refuses_a_run_context_given_as_an_argument() -> None:
    """The run context parameter is not an argument, so passing it is refused."""
    with pytest.raises(ToolArgumentError, match=r"args\.ctx: unexpected property"):
        who_asks.check({"question": "q", "ctx": 1})


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


# --- LangChain as reference -----------------------------------------------------------------------


def send_email(
    to: list[str],
    subject: str,
    body: str = "",
    cc: Optional[str] = None,  # noqa: UP045 - the Optional spelling is the case under test
    priority: Literal["low", "high"] = "low",
    retries: int | None = 3,
    headers: dict[str, str] = {},  # noqa: B006 - a default is only read
    urgent: bool = False,
    note: Annotated[str, "a note for the reader"] = "",
) -> str:
    """Send an email.

    Args:
        to: The recipients' addresses.
        subject: The subject line,
            which may be long.
        body (str): The text.
    """
    return subject


def ship(
    address: Address,
    items: list[Item],
    options: Options | None = None,
    code: int | str = 0,
    level: Literal[1, 2, 3] = 1,
    confirm: Literal[True] = True,
    extra: dict[str, Any] | None = None,
    anything: Any = None,
    weights: list[float] | None = None,
    points: list[Point] | None = None,
) -> None:
    """Ship items."""


def measure(
    values: list,  # type: ignore[type-arg]  # bare list is the case under test
    labels: dict,  # type: ignore[type-arg]  # bare dict is the case under test
    scale: float = 1,
    mixed: Literal[1, "a", None] = None,
) -> None:
    """Measure values."""


def _comparable(schema: Any) -> Any:
    """``schema`` without what only one side writes: pydantic's titles, our closed objects."""
    if isinstance(schema, list):
        return [_comparable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {}
    for key, value in schema.items():
        if key == "title" or (key == "additionalProperties" and value is False):
            continue
        if key == "properties":
            kept[key] = {name: _comparable(sub) for name, sub in value.items()}
        else:
            kept[key] = _comparable(value)
    return kept


@pytest.mark.parametrize(
    "function",
    [
        send_email,
        pytest.param(
            ship,
            marks=pytest.mark.skipif(
                sys.version_info < (3, 12), reason="pydantic takes typing.TypedDict from 3.12"
            ),
        ),
        measure,
    ],
)
def test_parameters_agree_with_langchain(function: Any) -> None:
    """Types, required, enums, defaults and descriptions agree with LangChain's conversion."""
    convert = pytest.importorskip("langchain_core.utils.function_calling").convert_to_openai_tool
    theirs = convert(function)["function"]["parameters"]
    assert _comparable(_parameters(function)) == _comparable(theirs)
