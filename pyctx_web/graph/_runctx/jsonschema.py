"""A JSON Schema (draft 2020-12) validator for tool arguments.

The keywords it checks, by the kind of value they apply to:

- any value: ``type`` (one or a list), ``enum``, ``const``, ``allOf``, ``anyOf``,
  ``oneOf``, ``not``, ``if``/``then``/``else``, and ``$ref`` to a part of the same
  schema (``"#"`` or a JSON pointer such as ``"#/$defs/Item"``, the place for
  shared parts being ``$defs``); a subschema may be ``true`` or ``false``;
- numbers: ``multipleOf``, ``minimum``, ``maximum``, ``exclusiveMinimum``,
  ``exclusiveMaximum``;
- strings: ``minLength``, ``maxLength`` (in code points), ``pattern``;
- arrays: ``prefixItems``, ``items``, ``contains`` with ``minContains`` and
  ``maxContains``, ``minItems``, ``maxItems``, ``uniqueItems``;
- objects: ``properties``, ``patternProperties``, ``additionalProperties``,
  ``propertyNames``, ``required``, ``dependentRequired``, ``dependentSchemas``,
  ``minProperties``, ``maxProperties``.

Annotations (``title``, ``description``, ``default``, ``examples``, ``format``...)
check nothing. :func:`~pyctx_web.graph._runctx.schemacheck.check_schema` refuses
every other keyword, and malformed values of these, before a schema is used here.

JSON values are Python's: ``None``, ``bool``, ``int``/``float``, ``str``,
``list``/``tuple`` and ``Mapping``. An integer is an ``int`` or a ``float`` with
no fraction (``2.0`` is one); ``True`` is neither an integer nor a number.
``enum``, ``const`` and ``uniqueItems`` compare as JSON does: ``1`` equals ``1.0``,
``true`` equals no number. ``pattern`` is an ECMA-262 regular expression, run by
:func:`ecma_regex`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._runctx.regexcost import pattern_problem

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = ["TYPES", "ecma_regex", "is_integer", "is_number", "json_equal", "resolve", "validate"]

TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
"""The names ``type`` accepts."""

_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""ECMA-262's ``\\s``: its white space and line terminators."""


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number: an int or a float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """Whether ``value`` is a JSON integer: an int, or a float with no fraction such as 2.0."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def type_matches(value: Any, expected: str) -> bool:
    """Whether ``value`` is of the JSON Schema type named ``expected``."""
    if expected == "null":
        return value is None
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "integer":
        return is_integer(value)
    if expected == "number":
        return is_number(value)
    if expected == "string":
        return isinstance(value, str)
    if expected == "array":
        return isinstance(value, list | tuple)
    return isinstance(value, Mapping)  # "object"


def _json_type(value: Any) -> str:
    for name in TYPES:
        if type_matches(value, name):
            return name
    return type(value).__qualname__


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 equals 1.0, a boolean equals no number, arrays and objects deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    return a is b or (type(a) is type(b) and bool(a == b))


@functools.lru_cache(maxsize=512)
def ecma_regex(pattern: str) -> re.Pattern[str]:
    r"""Compile the ECMA-262 ``pattern`` for Python's ``re``; raise ``re.error`` if it cannot.

    ``\d``, ``\w`` and ``\b`` are ASCII-only, ``\s`` is ECMA's white space, ``$``
    matches only at the very end, ``\cX``, ``\u{...}`` and ``(?<name>...)`` are
    translated. Python's ``re`` has no ``\p{...}``: such patterns do not compile.
    Neither do patterns whose matching can take exponential time (nested
    quantifiers, backreferences...: :func:`~pyctx_web.graph._runctx.regexcost.pattern_problem`).
    """
    if (problem := pattern_problem(pattern)) is not None:
        raise re.error(problem)
    return re.compile(_translate(pattern), re.ASCII)


def _translate(pattern: str) -> str:
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            token, i = _escape(pattern, i, in_class)
            out.append(token)
            continue
        if in_class:
            in_class = char != "]"
            char = "\\" + char if char in "[&~|" else char
        elif char == "[":
            in_class = True
            if pattern.startswith("[]", i) or pattern.startswith("[^]", i):
                char, in_class = ("(?!)" if pattern[i + 1] == "]" else r"[\s\S]"), False
                i += 1 if pattern[i + 1] == "]" else 2
        elif char == "$":
            char = r"\Z"
        elif pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            char, i = "(?P<", i + 2
        out.append(char)
        i += 1
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The Python form of the escape at ``pattern[i]`` and the index after it."""
    letter = pattern[i + 1]
    if letter == "s":
        return (_SPACE if in_class else f"[{_SPACE}]"), i + 2
    if letter == "S" and not in_class:
        return f"[^{_SPACE}]", i + 2
    following = pattern[i + 2 : i + 3]
    if letter == "c" and following.isascii() and following.isalpha():
        return f"\\x{ord(following) % 32:02x}", i + 3
    if letter == "u" and following == "{":
        end = pattern.find("}", i + 3)
        digits = pattern[i + 3 : end]
        if end > 0 and digits and all(c in "0123456789abcdefABCDEF" for c in digits):
            return f"\\U{int(digits, 16):08x}", end + 1
    return pattern[i : i + 2], i + 2


def resolve(root: Any, ref: str) -> Any:
    """The part of ``root`` that ``ref`` (``"#"`` or ``"#/a/json/pointer"``) names.

    Raise :class:`~pyctx_web.errors.ArgumentValueError` when it names nothing in ``root``.
    """
    if not ref.startswith("#"):
        raise ArgumentValueError(f"{ref!r} is not a reference inside the schema ('#/...')")
    # Imported here: urllib.parse (with ipaddress) is heavy to import in Pyodide.
    from urllib.parse import unquote

    pointer = unquote(ref[1:])
    if pointer and not pointer.startswith("/"):
        raise ArgumentValueError(f"{ref!r} is not a JSON pointer ('#/...')")
    node = root
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list | tuple) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise ArgumentValueError(f"{ref!r} names nothing in the schema")
    return node


def _is_multiple(value: float, step: float) -> bool:
    """Whether ``value`` is a whole multiple of ``step``, both read as decimals."""
    # Imported here: fractions loads the decimal extension module, slow in Pyodide.
    from fractions import Fraction

    def exact(number: float) -> Fraction:
        return Fraction(number) if isinstance(number, int) else Fraction(repr(number))

    try:
        return (exact(value) / exact(step)).denominator == 1
    except (ValueError, OverflowError, ZeroDivisionError):
        return False


def validate(value: Any, schema: Mapping[str, Any] | bool, path: str = "args") -> list[str]:
    """Return every way ``value`` breaks ``schema``, one message each; empty when valid.

    ``schema`` must have passed ``check_schema`` (or be ``True`` or ``False``).
    """
    run = _Run(schema)
    run.check(value, schema, path)
    return run.problems


class _Run:
    """One validation against one root schema, which ``$ref`` resolves in."""

    __slots__ = ("problems", "root")

    def __init__(self, root: Any) -> None:
        self.root = root
        self.problems: list[str] = []

    def passes(self, value: Any, schema: Any, path: str) -> bool:
        run = _Run(self.root)
        run.check(value, schema, path)
        return not run.problems

    def check(self, value: Any, schema: Any, path: str) -> None:
        if schema is True:
            return
        if schema is False:
            self.problems.append(f"{path}: no value is allowed here ({value!r})")
            return
        kind = schema.get("type")
        if kind is not None:
            kinds = [kind] if isinstance(kind, str) else list(kind)
            if not any(type_matches(value, k) for k in kinds):
                wanted = " or ".join(kinds)
                self.problems.append(
                    f"{path}: expected {wanted}, got {_json_type(value)} ({value!r})"
                )
                return
        if "enum" in schema and not any(json_equal(value, c) for c in schema["enum"]):
            choices = ", ".join(repr(choice) for choice in schema["enum"])
            self.problems.append(f"{path}: {value!r} is not one of {choices}")
        if "const" in schema and not json_equal(value, schema["const"]):
            self.problems.append(f"{path}: must be {schema['const']!r}, not {value!r}")
        self._check_applicators(value, schema, path)
        if is_number(value):
            self._check_number(value, schema, path)
        elif isinstance(value, str):
            self._check_string(value, schema, path)
        elif isinstance(value, list | tuple):
            self._check_array(value, schema, path)
        elif isinstance(value, Mapping):
            self._check_object(value, schema, path)

    def _check_applicators(self, value: Any, schema: Mapping[str, Any], path: str) -> None:
        if "$ref" in schema:
            self.check(value, resolve(self.root, schema["$ref"]), path)
        for option in schema.get("allOf", ()):
            self.check(value, option, path)
        if "anyOf" in schema:
            options = schema["anyOf"]
            if not any(self.passes(value, option, path) for option in options):
                self.problems.append(f"{path}: matches none of the {len(options)} allowed shapes")
        if "oneOf" in schema:
            options = schema["oneOf"]
            matched = sum(self.passes(value, option, path) for option in options)
            if matched == 0:
                self.problems.append(f"{path}: matches none of the {len(options)} allowed shapes")
            elif matched > 1:
                self.problems.append(
                    f"{path}: matches {matched} of the {len(options)} shapes of oneOf, not one"
                )
        if "not" in schema and self.passes(value, schema["not"], path):
            self.problems.append(f"{path}: matches the schema it must not ('not')")
        if "if" in schema:
            branch = "then" if self.passes(value, schema["if"], path) else "else"
            if branch in schema:
                self.check(value, schema[branch], path)

    def _check_number(self, value: float, schema: Mapping[str, Any], path: str) -> None:
        problems, low, high = (
            self.problems,
            schema.get("exclusiveMinimum"),
            schema.get("exclusiveMaximum"),
        )
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: {value!r} is less than the minimum {schema['minimum']!r}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: {value!r} is greater than the maximum {schema['maximum']!r}")
        if low is not None and value <= low:
            problems.append(f"{path}: {value!r} must be greater than {low!r}")
        if high is not None and value >= high:
            problems.append(f"{path}: {value!r} must be less than {high!r}")
        if "multipleOf" in schema and not _is_multiple(value, schema["multipleOf"]):
            problems.append(f"{path}: {value!r} is not a multiple of {schema['multipleOf']!r}")

    def _check_string(self, value: str, schema: Mapping[str, Any], path: str) -> None:
        if "minLength" in schema and len(value) < schema["minLength"]:
            self.problems.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            self.problems.append(f"{path}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and ecma_regex(schema["pattern"]).search(value) is None:
            self.problems.append(
                f"{path}: {value!r} does not match the pattern {schema['pattern']!r}"
            )

    def _check_array(
        self, value: list[Any] | tuple[Any, ...], schema: Mapping[str, Any], path: str
    ) -> None:
        problems = self.problems
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{path}: more than {schema['maxItems']} items")
        if schema.get("uniqueItems") is True:
            for later in range(1, len(value)):
                first = next((i for i in range(later) if json_equal(value[i], value[later])), None)
                if first is not None:
                    problems.append(f"{path}[{later}]: repeats item {first}; items must be unique")
        prefix = schema.get("prefixItems", ())
        for index, (item, option) in enumerate(zip(value, prefix, strict=False)):
            self.check(item, option, f"{path}[{index}]")
        if "items" in schema:
            for index in range(len(prefix), len(value)):
                self.check(value[index], schema["items"], f"{path}[{index}]")
        if "contains" in schema:
            found = sum(self.passes(item, schema["contains"], path) for item in value)
            least, most = schema.get("minContains", 1), schema.get("maxContains")
            if found < least:
                problems.append(f"{path}: {found} item(s) match 'contains', fewer than {least}")
            if most is not None and found > most:
                problems.append(f"{path}: {found} items match 'contains', more than {most}")

    def _check_object(self, value: Mapping[str, Any], schema: Mapping[str, Any], path: str) -> None:
        problems = self.problems
        for name in schema.get("required", ()):
            if name not in value:
                problems.append(f"{path}.{name}: required property is missing")
        for name, needed in schema.get("dependentRequired", {}).items():
            for other in needed if name in value else ():
                if other not in value:
                    problems.append(f"{path}.{other}: required when {name!r} is present")
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            problems.append(f"{path}: fewer than {schema['minProperties']} properties")
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            problems.append(f"{path}: more than {schema['maxProperties']} properties")
        for name, option in schema.get("dependentSchemas", {}).items():
            if name in value:
                self.check(value, option, path)
        for name in value if "propertyNames" in schema else ():
            if not self.passes(name, schema["propertyNames"], path):
                problems.append(f"{path}: the property name {name!r} is not allowed")
        self._check_properties(value, schema, path)

    def _check_properties(
        self, value: Mapping[str, Any], schema: Mapping[str, Any], path: str
    ) -> None:
        properties: Mapping[str, Any] = schema.get("properties", {})
        patterns: Mapping[str, Any] = schema.get("patternProperties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            known = name in properties
            if known:
                self.check(item, properties[name], f"{path}.{name}")
            for pattern, option in patterns.items():
                if isinstance(name, str) and ecma_regex(pattern).search(name) is not None:
                    known = True
                    self.check(item, option, f"{path}.{name}")
            if known:
                continue
            if extra is False:
                self.problems.append(f"{path}.{name}: unexpected property")
            else:
                self.check(item, extra, f"{path}.{name}")
