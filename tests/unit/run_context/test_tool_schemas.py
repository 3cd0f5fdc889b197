"""The JSON Schema rules of tool arguments: JSON's types and equality, and schemas @tool refuses."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._runctx.jsonschema import validate
from pyctx_web.graph.errors import ToolArgumentError
from pyctx_web.graph.tools import Tool, tool


def _make(parameters: Any) -> Tool:
    return tool(name="probe", parameters=parameters)(lambda args, runtime: None)


def _ok(value: Any, schema: dict[str, Any]) -> bool:
    _make(schema)
    return validate(value, schema) == []


def test_booleans_are_not_integers_for_enum_const_and_type() -> None:
    """True and False match no 1 or 0 in enum or const, and are not integers or numbers."""
    assert not _ok(True, {"enum": [1, 2]})
    assert not _ok(0, {"enum": [False]})
    assert not _ok(1.0, {"const": True})
    assert not _ok([False], {"const": [0]})
    assert not _ok(True, {"type": "integer"})
    assert not _ok(False, {"type": "number"})
    assert _ok(True, {"enum": [True, 1]})


def test_a_float_with_no_fraction_is_an_integer() -> None:
    """2.0 is an integer, equals 2 in enum and const, and 2.5 is not an integer."""
    assert _ok(2.0, {"type": "integer"})
    assert _ok(2.0, {"enum": [2]})
    assert _ok(1, {"const": 1.0})
    assert not _ok(2.5, {"type": "integer"})


def test_unique_items_compare_as_json() -> None:
    """uniqueItems tells 1 from true, and 1 from 1.0 not, in nested arrays and objects too."""
    schema = {"type": "array", "uniqueItems": True}
    assert _ok([1, True], schema)
    assert _ok([{"a": 0}, {"a": False}], schema)
    assert validate([1, 1.0], schema) == ["args[1]: repeats item 0; items must be unique"]


def test_string_lengths_count_code_points() -> None:
    """minLength and maxLength count code points, so one emoji is one character."""
    assert _ok("\U0001f4a9", {"maxLength": 1})
    assert not _ok("\U0001f4a9", {"minLength": 2})


def test_patterns_follow_ecma_262() -> None:
    """$ does not match before a final newline, and \\d and \\w are ASCII, as in JavaScript."""
    assert not _ok("abc\n", {"pattern": "^abc$"})
    assert not _ok("\u0663", {"pattern": "^\\d$"})
    assert not _ok("\u00e9", {"pattern": "^\\w$"})
    assert _ok("\u00a0", {"pattern": "^\\s$"})


def test_malformed_keywords_are_refused_with_keyword_value_and_rule() -> None:
    """@tool names the keyword, where it is, its value and what it must be."""
    cases = {
        "minLength": ({"properties": {"n": {"minLength": "3"}}}, "a non-negative integer"),
        "pattern": ({"pattern": 5}, "a string"),
        "anyOf": ({"anyOf": {"type": "string"}}, "a non-empty list of schemas"),
        "maxItems": ({"maxItems": -1}, "a non-negative integer"),
        "multipleOf": ({"multipleOf": 0}, "a number greater than 0"),
        "enum": ({"enum": []}, "a non-empty list"),
        "required": ({"required": "name"}, "a list of distinct property names"),
        "uniqueItems": ({"uniqueItems": 1}, "true or false"),
    }
    for keyword, (schema, rule) in cases.items():
        with pytest.raises(ArgumentValueError) as caught:
            _make(schema)
        message = str(caught.value)
        assert message.startswith("tool 'probe' parameters"), message
        assert f"{keyword!r} must be {rule}" in message, message
    with pytest.raises(ArgumentValueError, match=r"parameters\.properties\.n: 'minLength' .* '3'"):
        _make({"properties": {"n": {"minLength": "3"}}})


def test_unsupported_and_misspelt_keywords_are_refused() -> None:
    """A keyword the checks do not support, or do not know, is refused with a hint."""
    with pytest.raises(ArgumentValueError, match="unsupported JSON Schema keyword 'minLenght'"):
        _make({"properties": {"s": {"minLenght": 3}}})
    with pytest.raises(ArgumentValueError, match=r"'unevaluatedProperties'.*additionalProperties"):
        _make({"unevaluatedProperties": False})
    with pytest.raises(ArgumentValueError, match=r"'\$id'"):
        _make({"$id": "https://example.com/s"})
    with pytest.raises(ArgumentValueError, match="'prefixItems'"):
        _make({"items": [{"type": "string"}]})


def test_bad_references_and_regexes_are_refused() -> None:
    """A $ref to nothing or elsewhere, a $ref loop, and a pattern re cannot run are refused."""
    with pytest.raises(ArgumentValueError, match="names nothing"):
        _make({"$ref": "#/$defs/missing"})
    with pytest.raises(ArgumentValueError, match="not a reference inside the schema"):
        _make({"$ref": "https://example.com/schema.json"})
    with pytest.raises(ArgumentValueError, match="loops back"):
        _make({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})
    with pytest.raises(ArgumentValueError, match="'pattern' must be an ECMA-262 regular"):
        _make({"pattern": "\\p{Letter}"})
    with pytest.raises(ArgumentTypeError, match="must be a JSON Schema object"):
        _make(["not", "a", "schema"])


def test_annotations_and_extensions_are_accepted() -> None:
    """Annotations and x- extensions are accepted and check nothing."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "T",
        "description": "D",
        "default": {},
        "examples": [{}],
        "x-origin": "test",
        "properties": {"when": {"type": "string", "format": "date", "deprecated": True}},
    }
    assert _ok({"when": "not a date"}, schema)


def test_references_to_defs_check_recursive_values() -> None:
    """A $ref to $defs checks every level of a recursive value, with each problem's path."""
    schema = {
        "$defs": {"node": {"type": "object", "properties": {"kids": {"items": {"$ref": "#"}}}}},
        "$ref": "#/$defs/node",
        "required": ["kids"],
    }
    order = _make(schema)
    order.check({"kids": [{"kids": []}]})
    with pytest.raises(ToolArgumentError) as caught:
        order.check({"kids": [{"kids": [3]}]})
    assert caught.value.problems == ["args.kids[0].kids[0]: expected object, got integer (3)"]


def test_pydantic_schemas_are_accepted_and_checked() -> None:
    """A pydantic model's JSON Schema ($defs, $ref, oneOf, discriminator) works as parameters."""
    pytest.importorskip("pydantic")
    from pydantic import BaseModel, Field

    class Cat(BaseModel):
        kind: Literal["cat"]
        lives: int = Field(9, ge=0, le=9)

    class Dog(BaseModel):
        kind: Literal["dog"]
        name: str | None = None

    class Owner(BaseModel):
        pet: Annotated[Cat | Dog, Field(discriminator="kind")]
        tags: set[str] = set()
        pair: tuple[int, str] = (0, "")

    owner = _make(Owner.model_json_schema())
    owner.check({"pet": {"kind": "cat", "lives": 3}, "tags": ["a"], "pair": [1, "x"]})
    with pytest.raises(ToolArgumentError) as caught:
        owner.check({"pet": {"kind": "cat", "lives": 10}, "tags": ["a", "a"], "pair": ["1", "x"]})
    assert caught.value.problems == [
        "args.pet: matches none of the 2 allowed shapes",
        "args.tags[1]: repeats item 0; items must be unique",
        "args.pair[0]: expected integer, got string ('1')",
    ]
