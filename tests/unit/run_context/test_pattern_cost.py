"""Schemas whose patterns can take exponential time to match are refused when they are read."""

from __future__ import annotations

import re

import pytest

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._runctx.jsonschema import ecma_regex
from pyctx_web.graph._runctx.regexcost import pattern_problem
from pyctx_web.graph._runctx.schemacheck import check_schema

NESTED = "repeats a group that contains a quantifier"
ALIKE = "repeats a group whose alternatives can start alike"
BACKREFERENCE = "uses a backreference"

REFUSED = {
    "^(a+)+$": NESTED,
    "(a*b?)*": NESTED,
    r"^(\d+,){2,}$": NESTED,
    "((a)?)+": NESTED,
    "(x+x+)+y": NESTED,
    "(?:[a-z]+\\.)*com": NESTED,
    "(a|a)*": ALIKE,
    "(a|ab)+": ALIKE,
    r"(\w|_)+": ALIKE,
    "(|a)*": ALIKE,
    r"(a)\1": BACKREFERENCE,
    r"(?<x>a)\k<x>": BACKREFERENCE,
}
ACCEPTED = [
    "^[a-z]+$",
    r"^\d{3}-\d{4}$",
    "^(https?)://",
    "(a|b)*",
    "(ab){3}",
    "(a+){1}",
    "(a+)?",
    r"(?:\.|,)+",
    "(a[+*])+",
    "^🐲*$",
]


@pytest.mark.parametrize(("pattern", "shape"), REFUSED.items())
def test_exponential_shapes_are_refused_naming_the_pattern(pattern: str, shape: str) -> None:
    """Nested quantifiers, alike alternatives under repetition and backreferences are refused."""
    expected = f"the pattern {pattern!r} {shape}, which can take exponential time to match"
    assert pattern_problem(pattern) == expected
    with pytest.raises(re.error, match=rf"^{re.escape(expected)}$"):
        ecma_regex(pattern)


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_linear_shapes_are_accepted(pattern: str) -> None:
    """Patterns without a repeated group that could backtrack compile and match."""
    assert pattern_problem(pattern) is None
    assert ecma_regex(pattern) is not None


def test_a_tool_schema_with_a_nested_quantifier_is_refused_whole() -> None:
    """check_schema refuses ^(a+)+$ in a property, naming where, the pattern and why."""
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}
    with pytest.raises(
        ArgumentValueError,
        match=r"^parameters\.properties\.code: 'pattern' must be an ECMA-262 regular expression "
        r"that Python's re can run \(the pattern '\^\(a\+\)\+\$' repeats a group that contains "
        r"a quantifier, which can take exponential time to match\), not '\^\(a\+\)\+\$'$",
    ):
        check_schema(schema)


def test_a_pattern_property_name_with_alike_alternatives_is_refused() -> None:
    """patternProperties names are patterns too and follow the same rule."""
    with pytest.raises(ArgumentValueError, match=r"alternatives can start alike"):
        check_schema({"type": "object", "patternProperties": {"^(x|xy)+$": {}}})
