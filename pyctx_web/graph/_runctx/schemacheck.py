"""The schema of the schemas tools accept: refuse a JSON Schema the validator cannot honour.

:func:`check_schema` walks a tool's ``parameters`` and raises
:class:`~pyctx_web.errors.ArgumentValueError` on the first keyword it cannot
check as JSON Schema (draft 2020-12) says, naming the keyword, where it is, its
value and what the value must be:

- a keyword the validator does not support (``$id``, ``$anchor``, ``$dynamicRef``,
  ``unevaluatedProperties``, ``dependencies``, a misspelt one...); annotations
  (``title``, ``description``, ``default``, ``examples``, ``format``...) and
  extensions named ``x-...`` are accepted and check nothing;
- a malformed value: ``minLength: "3"``, ``pattern: 5``, a non-list ``anyOf``,
  a negative count, an empty ``enum`` or ``allOf``, an unknown type name, a
  pattern Python's ``re`` cannot run, ``items`` as a list (``prefixItems`` is for
  that);
- a ``$ref`` that is not ``"#"`` or a JSON pointer into the same schema, that names
  nothing, or that loops back without ever moving into the value.

A ``parameters`` that is not a mapping raises
:class:`~pyctx_web.errors.ArgumentTypeError`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph._runctx.jsonschema import TYPES, ecma_regex, is_integer, is_number, resolve

__all__ = ["DIALECT", "KEYWORDS", "check_schema"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The only ``$schema`` accepted."""

_SCHEMA = "a schema (an object, true or false)"


def _is_names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(n, str) for n in value)
        and (len(set(value)) == len(value))
    )


def _is_type(value: Any) -> bool:
    if isinstance(value, str):
        return value in TYPES
    return bool(value) and _is_names(value) and all(name in TYPES for name in value)


def _is_count(value: Any) -> bool:
    return is_integer(value) and value >= 0


def _is_finite(value: Any) -> bool:
    return is_number(value) and math.isfinite(value)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _anything(value: Any) -> bool:
    return True


_COUNT = ("a non-negative integer", _is_count)
_NUMBER = ("a finite number", _is_finite)
_STRING = ("a string", _is_string)
_BOOL = ("true or false", _is_bool)

_VALUES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "type": (f"one of {', '.join(TYPES)}, or a non-empty list of distinct ones", _is_type),
    "enum": ("a non-empty list", lambda v: isinstance(v, list) and bool(v)),
    "const": ("any JSON value", _anything),
    "multipleOf": ("a number greater than 0", lambda v: _is_finite(v) and v > 0),
    "minimum": _NUMBER,
    "maximum": _NUMBER,
    "exclusiveMinimum": _NUMBER,
    "exclusiveMaximum": _NUMBER,
    "minLength": _COUNT,
    "maxLength": _COUNT,
    "pattern": _STRING,
    "minItems": _COUNT,
    "maxItems": _COUNT,
    "uniqueItems": _BOOL,
    "minContains": _COUNT,
    "maxContains": _COUNT,
    "minProperties": _COUNT,
    "maxProperties": _COUNT,
    "required": ("a list of distinct property names", _is_names),
    "dependentRequired": (
        "an object whose values are lists of distinct property names",
        lambda v: isinstance(v, Mapping) and all(_is_names(n) for n in v.values()),
    ),
    "$ref": ("a string", _is_string),
    "$schema": (repr(DIALECT), lambda v: v == DIALECT),
    "$comment": _STRING,
    "title": _STRING,
    "description": _STRING,
    "default": ("any JSON value", _anything),
    "examples": ("a list", lambda v: isinstance(v, list)),
    "deprecated": _BOOL,
    "readOnly": _BOOL,
    "writeOnly": _BOOL,
    "format": _STRING,
    "contentEncoding": _STRING,
    "contentMediaType": _STRING,
    "discriminator": (
        "an object with a string 'propertyName' (OpenAPI)",
        lambda v: isinstance(v, Mapping) and isinstance(v.get("propertyName"), str),
    ),
}
"""Keywords whose value is not a schema: what it must be, and the test of it."""

_SUBSCHEMA = {"items", "contains", "not", "if", "then", "else", "additionalProperties"}
_SUBSCHEMA |= {"propertyNames", "contentSchema"}
_SCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
_SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "dependentSchemas"}
_IN_PLACE = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"}
"""Keywords that apply their subschemas to the value itself, not to a part of it."""

KEYWORDS = frozenset(_VALUES) | _SUBSCHEMA | _SCHEMA_LISTS | _SCHEMA_MAPS
"""Every keyword a tool's schema may use (and extensions named ``x-...``)."""

_HINTS = {
    "$id": "refer to parts of the schema with '$ref': '#/$defs/...' instead",
    "$anchor": "refer to parts of the schema with '$ref': '#/$defs/...' instead",
    "$dynamicRef": "use '$ref'",
    "$dynamicAnchor": "use '$ref'",
    "$vocabulary": "the vocabulary is fixed",
    "$recursiveRef": "a draft 2019-09 keyword: use '$ref'",
    "unevaluatedProperties": "use 'additionalProperties'",
    "unevaluatedItems": "use 'items'",
    "dependencies": "a draft-07 keyword: use 'dependentRequired' or 'dependentSchemas'",
    "definitions": "a draft-07 keyword: use '$defs'",
    "additionalItems": "a draft-07 keyword: use 'items' after 'prefixItems'",
    "nullable": "an OpenAPI 3.0 keyword: add 'null' to 'type'",
}


def check_schema(schema: Any, where: str = "parameters") -> None:
    """Raise when ``schema`` is not a JSON Schema object that :func:`validate` fully checks."""
    if not isinstance(schema, Mapping):
        raise ArgumentTypeError(
            f"{where} must be a JSON Schema object (a dict), not {type(schema).__name__!r}"
        )
    _Walk(schema, where).run()


def _refuse(where: str, keyword: str, value: Any, must: str) -> ArgumentValueError:
    return ArgumentValueError(f"{where}: {keyword!r} must be {must}, not {value!r}")


class _Walk:
    """One check of a root schema: every subschema, every ``$ref``, every loop of them."""

    __slots__ = ("edges", "open", "refs", "root", "where", "where_of")

    def __init__(self, root: Mapping[str, Any], where: str) -> None:
        self.root = root
        self.where = where
        self.where_of: dict[int, str] = {}  # subschemas walked, by id
        self.open: set[int] = set()  # subschemas being walked: one inside itself is a loop
        self.edges: dict[int, list[Mapping[str, Any]]] = {}  # in-place subschemas and $refs
        self.refs: list[tuple[str, Mapping[str, Any]]] = []  # (where, schema with a $ref)

    def run(self) -> None:
        self.walk(self.root, self.where)
        done = 0
        while done < len(self.refs):  # a $ref may name a part no keyword walks
            where, node = self.refs[done]
            target = resolve(self.root, node["$ref"])
            if isinstance(target, Mapping):
                self.edges[id(node)].append(target)
                self.walk(target, f"{where}.$ref")
            done += 1
        self.find_loop()

    def walk(self, schema: Any, where: str) -> None:
        if isinstance(schema, bool):
            return
        if not isinstance(schema, Mapping):
            raise ArgumentValueError(f"{where} must be {_SCHEMA}, not {schema!r}")
        if id(schema) in self.open:
            raise ArgumentValueError(f"{where}: the schema contains itself")
        if id(schema) in self.where_of:  # the same object used twice: checked already
            return
        self.open.add(id(schema))
        self.where_of[id(schema)] = where
        self.edges.setdefault(id(schema), [])
        for keyword, value in schema.items():
            self.check_keyword(schema, keyword, value, where)
        self.open.discard(id(schema))

    def check_keyword(
        self, schema: Mapping[str, Any], keyword: Any, value: Any, where: str
    ) -> None:
        if keyword in _VALUES:
            must, test = _VALUES[keyword]
            if not test(value):
                names = value if isinstance(value, list) else [value]
                unknown = [n for n in names if isinstance(n, str) and n not in TYPES]
                if keyword == "type" and unknown:
                    raise ArgumentValueError(
                        f"{where}: unknown JSON Schema type {unknown[0]!r}; "
                        f"'type' must be {must}, not {value!r}"
                    )
                raise _refuse(where, keyword, value, must)
            if keyword in ("pattern", "$ref"):
                self.check_text(schema, keyword, value, where)
        elif keyword in _SUBSCHEMA:
            self.child(schema, keyword, value, f"{where}.{keyword}")
        elif keyword in _SCHEMA_LISTS:
            if not isinstance(value, list) or not value:
                raise _refuse(
                    where, keyword, value, "a non-empty list of schemas (objects, true or false)"
                )
            for index, item in enumerate(value):
                self.child(schema, keyword, item, f"{where}.{keyword}[{index}]")
        elif keyword in _SCHEMA_MAPS:
            if not isinstance(value, Mapping):
                raise _refuse(where, keyword, value, "an object whose values are schemas")
            for name, item in value.items():
                if keyword == "patternProperties":
                    self.check_text(schema, keyword, name, where)
                self.child(schema, keyword, item, f"{where}.{keyword}.{name}")
        elif not (isinstance(keyword, str) and keyword.startswith("x-")):
            raise self.unsupported(keyword, value, where)

    def child(self, parent: Mapping[str, Any], keyword: str, schema: Any, where: str) -> None:
        if keyword == "items" and isinstance(schema, list):
            raise ArgumentValueError(
                f"{where} must be {_SCHEMA}, not {schema!r}: for one schema per position "
                "use 'prefixItems'"
            )
        if keyword in _IN_PLACE and isinstance(schema, Mapping):
            self.edges.setdefault(id(parent), []).append(schema)
        self.walk(schema, where)

    def check_text(self, schema: Mapping[str, Any], keyword: str, text: str, where: str) -> None:
        if keyword == "$ref":
            try:
                target = resolve(self.root, text)
            except ArgumentValueError as error:
                raise ArgumentValueError(f"{where}: '$ref' {error}") from None
            if not isinstance(target, Mapping | bool):
                raise ArgumentValueError(f"{where}: '$ref' {text!r} names {target!r}, not a schema")
            self.refs.append((where, schema))
            return
        try:
            ecma_regex(text)
        except re.error as error:
            must = f"an ECMA-262 regular expression that Python's re can run ({error})"
            raise _refuse(where, keyword, text, must) from None

    def unsupported(self, keyword: Any, value: Any, where: str) -> ArgumentValueError:
        hint = _HINTS.get(keyword) if isinstance(keyword, str) else None
        if hint is None:
            hint = f"tool schemas may use {', '.join(sorted(KEYWORDS))}, and 'x-...' extensions"
        return ArgumentValueError(
            f"{where}: unsupported JSON Schema keyword {keyword!r} (with {value!r}); {hint}"
        )

    def find_loop(self) -> None:
        """Refuse a chain of ``$ref`` and in-place keywords that comes back to where it began."""
        state: dict[int, int] = {}  # 1 while on the path, 2 once done

        def visit(key: int) -> None:
            state[key] = 1
            for target in self.edges.get(key, ()):
                if state.get(id(target)) == 1:
                    raise ArgumentValueError(
                        f"{self.where_of.get(id(target), self.where)}: '$ref' loops back to this "
                        "schema without moving into the value"
                    )
                if id(target) not in state:
                    visit(id(target))
            state[key] = 2

        for key in list(self.where_of):
            if key not in state:
                visit(key)
