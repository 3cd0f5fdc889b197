"""Tools made from typed functions: the schema of their signature, to_openai, LangChain agreement.

The module uses ``from __future__ import annotations``, so every annotation here
reaches ``@tool`` as a string; one test gives real type objects instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, Optional, Required, TypedDict

import pytest

from pyctx_web.graph._runctx.schemacheck import check_schema
from pyctx_web.graph.tools import Tool, tool


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
class Point:
    x: int
    y: int


NOT_JSON = object()
"""A default that is no JSON value."""


def _parameters(fn: Any) -> dict[str, Any]:
    """The derived schema, which the package's schema checker also accepts (@tool skips it)."""
    parameters: dict[str, Any] = tool(fn).to_openai()["function"]["parameters"]
    check_schema(parameters, "derived")
    return parameters


def _property(annotation: str) -> dict[str, Any]:
    """The schema of one parameter ``x`` annotated ``annotation`` (evaluated here)."""
    namespace = dict(globals())
    exec(f"def probe(x: {annotation}) -> None: ...", namespace)
    schema: dict[str, Any] = _parameters(namespace["probe"])["properties"]["x"]
    return schema


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


MAKE_A_TOOL = """
import re
compiled = []
plain_compile = re.compile
re.compile = lambda pattern, flags=0: compiled.append(pattern) or plain_compile(pattern, flags)
from pyctx_web.graph.tools import tool

@tool
def lookup(query: str) -> str:
    \"\"\"Look something up.\"\"\"
    return query

print(lookup.description)
print(any("Args" in str(pattern) for pattern in compiled))
"""


def test_a_tool_without_an_args_section_compiles_no_docstring_pattern() -> None:
    """Importing the tools and making one whose docstring has no Args section compiles none of
    the patterns that read such a section (a page makes its tools at start)."""
    done = subprocess.run(
        [sys.executable, "-c", MAKE_A_TOOL], capture_output=True, text=True, check=True
    )
    assert done.stdout.split("\n")[:2] == ["Look something up.", "False"]


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

    # Annotated below with type objects, the case under test, so none in the signature.
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
        lambda args, runtime: args["n"] * 2
    )
    assert double.to_openai() == {
        "type": "function",
        "function": {"name": "double", "description": "Double n.", "parameters": schema},
    }


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
