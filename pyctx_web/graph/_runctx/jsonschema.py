"""A small JSON Schema validator for tool arguments.

It covers the part of JSON Schema (draft 2020-12) that tool parameters use:
``type`` (one or a list), ``properties``, ``required``, ``additionalProperties``,
``items``, ``enum``, ``const``, ``minimum``/``maximum`` and their exclusive
forms, ``minLength``/``maxLength``, ``pattern``, ``minItems``/``maxItems`` and
``anyOf``. Unknown keywords (``description``, ``title``, ``default``...) are
ignored, as JSON Schema says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = ["check_schema", "validate"]

_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


def _type_matches(value: Any, expected: str) -> bool:
    if expected == "null":
        return value is None
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if expected == "string":
        return isinstance(value, str)
    if expected == "array":
        return isinstance(value, list | tuple)
    return isinstance(value, Mapping)  # "object"


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _type_matches(value, name):
            return name
    return type(value).__qualname__


def check_schema(schema: Any, where: str = "parameters") -> None:
    """Raise ``TypeError``/``ValueError`` when ``schema`` is not a usable JSON Schema object."""
    if not isinstance(schema, Mapping):
        raise ArgumentTypeError(
            f"{where} must be a JSON Schema object (a dict), not {type(schema).__name__!r}"
        )
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for item in kinds:
        if item not in _TYPES:
            raise ArgumentValueError(f"{where}: unknown JSON Schema type {item!r}")
    for key in ("properties",):
        if key in schema:
            props = schema[key]
            if not isinstance(props, Mapping):
                raise ArgumentTypeError(f"{where}.{key} must be an object")
            for name, sub in props.items():
                check_schema(sub, f"{where}.properties.{name}")
    if "required" in schema and not (
        isinstance(schema["required"], list) and all(isinstance(n, str) for n in schema["required"])
    ):
        raise ArgumentTypeError(f"{where}.required must be a list of property names")
    if isinstance(schema.get("items"), Mapping):
        check_schema(schema["items"], f"{where}.items")
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except re.error as error:
            raise ArgumentValueError(
                f"{where}.pattern is not a valid regular expression: {error}"
            ) from None


def validate(value: Any, schema: Mapping[str, Any], path: str = "args") -> list[str]:
    """Return every way ``value`` breaks ``schema``, one message each; empty when valid."""
    problems: list[str] = []
    _validate(value, schema, path, problems)
    return problems


def _validate(value: Any, schema: Mapping[str, Any], path: str, problems: list[str]) -> None:
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_type_matches(value, k) for k in kinds):
            wanted = " or ".join(kinds)
            problems.append(f"{path}: expected {wanted}, got {_json_type(value)} ({value!r})")
            return
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(repr(choice) for choice in schema["enum"])
        problems.append(f"{path}: {value!r} is not one of {choices}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{path}: must be {schema['const']!r}, not {value!r}")
    if "anyOf" in schema:
        options = schema["anyOf"]
        if not any(not validate(value, option, path) for option in options):
            problems.append(f"{path}: matches none of the {len(options)} allowed shapes")
    if _type_matches(value, "number"):
        _check_range(value, schema, path, problems)
    if isinstance(value, str):
        _check_string(value, schema, path, problems)
    if isinstance(value, list | tuple):
        _check_array(value, schema, path, problems)
    if isinstance(value, Mapping):
        _check_object(value, schema, path, problems)


def _check_range(value: float, schema: Mapping[str, Any], path: str, problems: list[str]) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{path}: {value!r} is less than the minimum {schema['minimum']!r}")
    if "maximum" in schema and value > schema["maximum"]:
        problems.append(f"{path}: {value!r} is greater than the maximum {schema['maximum']!r}")
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        problems.append(f"{path}: {value!r} must be greater than {schema['exclusiveMinimum']!r}")
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        problems.append(f"{path}: {value!r} must be less than {schema['exclusiveMaximum']!r}")


def _check_string(value: str, schema: Mapping[str, Any], path: str, problems: list[str]) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        problems.append(f"{path}: shorter than {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        problems.append(f"{path}: longer than {schema['maxLength']} characters")
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        problems.append(f"{path}: {value!r} does not match the pattern {schema['pattern']!r}")


def _check_array(
    value: list[Any] | tuple[Any, ...], schema: Mapping[str, Any], path: str, problems: list[str]
) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        problems.append(f"{path}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        problems.append(f"{path}: more than {schema['maxItems']} items")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            _validate(item, items, f"{path}[{index}]", problems)


def _check_object(
    value: Mapping[str, Any], schema: Mapping[str, Any], path: str, problems: list[str]
) -> None:
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            problems.append(f"{path}.{name}: required property is missing")
    for name, item in value.items():
        if name in properties:
            _validate(item, properties[name], f"{path}.{name}", problems)
            continue
        extra = schema.get("additionalProperties", True)
        if extra is False:
            problems.append(f"{path}.{name}: unexpected property")
        elif isinstance(extra, Mapping):
            _validate(item, extra, f"{path}.{name}", problems)
