"""JSON encoding of state values for checkpoints.

Checkpointable: ``str``, ``int``, ``float``, ``bool``, ``None``; ``list`` and
``tuple`` (a tuple comes back as a tuple); ``dict`` with ``str`` keys; the
dataclasses and enums the state schema names (itself, and those its annotations
name at any depth, ``Literal[Color.RED]`` included); LangChain messages, in
LangChain's dict form; pydantic models, by class name and fields
(:mod:`~pyctx_web.graph._engine.serde_models` says which classes come back).
Subclasses of ``list``, ``dict``, ``str``, ``int`` and ``float`` other than
enums come back as the plain type.

What JSON cannot hold faithfully fails before anything of its checkpoint is stored,
with a :class:`~pyctx_web.graph.errors.SerializationError` naming the state key,
where in its value the part is, its type and what is wrong:

* other types (sets, bytes, datetimes...), non-finite floats, dict keys that
  are not ``str`` or are enum members;
* members of enums the schema does not name. An ``IntEnum`` or ``StrEnum``
  member is an ``int`` or ``str`` that JSON would store as a plain number or
  text: one of an enum the schema names is stored with its class name and comes
  back as the same member, as a dataclass does; any other is refused;
* a ``str`` holding a lone surrogate (``"\\ud800"``): UTF-8, the text SQLite and
  IndexedDB store, has no form for it;
* an ``int`` of more than :data:`MAX_INT_DIGITS` digits (4300, CPython's default
  ``sys.get_int_max_str_digits()``, or this process's limit when lower): every
  reader of the thread (another process, Pyodide in another tab) parses it back;
* nesting deeper than :data:`MAX_DEPTH` (100) lists, tuples, dicts,
  dataclasses and models (one more in a node's whole update, a ``Send`` argument, an
  interrupt or a resume value, which hold state values). States are a few
  levels deep (messages, their tool calls, their arguments); 100 keeps the
  encoder, the readers' JSON parsers and the decoder far below their recursion
  limits (Pyodide's stack is smaller), however deep the run's stack already is.

A dataclass or an enum is stored by name (``module.QualName``) and rebuilt only
if the schema names it: stored data never makes the graph import or build other
types; a stored pydantic model whose class it may not name comes back as the
dict of its fields. What cannot be read back (too deep to parse, an int too
long for this process, an unknown dataclass or enum) raises ``ValueError``: a
corrupt checkpoint.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any, Final

from pyctx_web.graph._engine.schema_types import collect_types, hints_of, type_key
from pyctx_web.graph._engine.serde_models import (
    is_langchain_message,
    is_model,
    is_model_class,
    langchain_message,
    model_fields,
    rebuild,
    validate_model,
)
from pyctx_web.graph.errors import SerializationError
from pyctx_web.jsonparse import STORED_CHARS, STORED_DEPTH, parse_json

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JsonSerde", "collect_types"]

MAX_DEPTH: Final = 100
"""How many lists, tuples, dicts, dataclasses and models a checkpointed value may nest."""
MAX_INT_DIGITS: Final = 4300
"""The most decimal digits a checkpointed int may have: CPython's default limit."""

_MARK: Final = "__pyctx__"
"""Key of the objects the encoding adds; a user dict holding it is wrapped."""

_SUPPORTED: Final = (
    "supported: str, int, float, bool, None, list, tuple, dict with str keys, "
    "the dataclasses and enums of the state schema and pydantic models"
)
_SURROGATE: Final = "[\ud800-\udfff]"
"""A lone surrogate: compiled (by ``re``, once) with the first str that holds one."""
_SHORT_INT: Final = 10**600  # fewer digits than any limit CPython allows (640 at least)


class _Unsupported(Exception):
    """Internal: ``value`` cannot be encoded; ``trail`` lists its containers, innermost first."""

    def __init__(self, value: Any, problem: str) -> None:
        super().__init__(problem)
        self.value = value
        self.problem = problem
        self.trail: list[Any] = []


def _is_utf8(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form (no lone surrogate): encoding is the fastest check."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _scalar_problem(value: str | int | float) -> str | None:
    """What keeps a str, int or float (or a subclass's value) out of a checkpoint, or ``None``."""
    if isinstance(value, str):
        if value.isascii() or _is_utf8(value) or not (found := re.search(_SURROGATE, value)):
            return None
        where = f"U+{ord(found.group()):04X} at index {found.start()}"
        return f"a str holding a lone surrogate ({where}), which UTF-8 text cannot store"
    if isinstance(value, int):
        current = sys.get_int_max_str_digits()
        limit = MAX_INT_DIGITS if current == 0 else min(current, MAX_INT_DIGITS)
        if abs(value) < 10**limit:  # only ints of 600 digits or more get here
            return None
        return f"an int of more than {limit} digits, the most every reader of a checkpoint parses"
    return None if math.isfinite(value) else f"a non-finite float ({_SUPPORTED})"


def _segment(container: Any, child: Any) -> str:
    """How the path goes from ``container`` to its part ``child``."""
    if isinstance(container, dict):
        found = (f"[{k!r}]" for k, v in container.items() if k is child or v is child)
    elif isinstance(container, list | tuple):
        found = (f"[{i}]" for i, v in enumerate(container) if v is child)
    elif isinstance(container, Enum):
        return ".value"
    elif is_model(container):
        found = (f".{k}" for k, v in model_fields(container).items() if v is child)
    elif dataclasses.is_dataclass(container):
        fields = dataclasses.fields(container)
        found = (f".{f.name}" for f in fields if getattr(container, f.name, None) is child)
    else:
        return ""  # a LangChain message, then its dict form
    return next(found, "[?]")


_ATOMS: Final = frozenset({bool, type(None)})  # their own JSON form, as ASCII str


_TOO_DEEP: Final = f"nested deeper than {MAX_DEPTH} levels, the most a checkpoint holds"
_NOT_NAMED: Final = f"the state schema does not name ({_SUPPORTED})"


class JsonSerde:
    """Encodes values to JSON text and back, for the dataclasses and enums it was given."""

    __slots__ = ("_by_name",)

    def __init__(self, known_types: Iterable[type] = ()) -> None:
        self._by_name: dict[str, type] = {type_key(cls): cls for cls in known_types}

    @classmethod
    def for_schema(cls, schema: type, hints: Iterable[Any] = ()) -> JsonSerde:
        """A serde knowing the dataclasses, enums and pydantic models ``schema``, its
        annotations and ``hints`` (those of keys other schemas added) name."""
        found: dict[str, type] = {}
        seen: set[int] = set()
        collect_types(schema, found, seen)
        for hint in itertools.chain(hints_of(schema), hints):
            collect_types(hint, found, seen)
        return cls(found.values())

    def encode(self, value: Any, *, key: str, label: str | None = None) -> Any:
        """Return a JSON-ready form of ``value``.

        ``key`` roots the path given in errors; ``label`` says what the value
        is (``"state key 'items'"`` by default).
        """
        try:
            # What a label names (a node's whole update, a Send argument...) holds
            # state values: it may nest one level more.
            return self._encode(value, 0 if label is None else -1)
        except _Unsupported as u:
            chain = [*reversed(u.trail), u.value]
            path = key + "".join(_segment(c, part) for c, part in itertools.pairwise(chain))
            type_name = type(u.value).__qualname__
            raise SerializationError(
                key=key, path=path, type_name=type_name, problem=u.problem, label=label
            ) from None

    def encode_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``{key: encode(value, key=key)}`` of state values, atoms copied without a call."""
        # ASCII text, atoms and short ints are their own JSON form: tested here, as a
        # call per key costs more than the test.
        return {
            key: value
            if (type(value) is str and value.isascii())
            or type(value) in _ATOMS
            or (type(value) is int and -_SHORT_INT < value < _SHORT_INT)
            else self.encode(value, key=key)
            for key, value in values.items()
        }

    def encode_update(self, node: str, update: Any) -> Any:
        """``encode`` of the whole update of ``node``, labelled as such if it fails."""
        try:
            # A dict, what nodes return, is one level inside a label's nesting allowance.
            return self._dict(update, 0) if type(update) is dict else self._encode(update, -1)
        except _Unsupported:
            # Encoded again to name the part that failed: the label is made only then.
            return self.encode(update, key=node, label=f"the update of node {node!r}")

    def _encode(self, value: Any, depth: int) -> Any:
        """The JSON-ready form of ``value``, inside ``depth`` containers."""
        cls = type(value)
        if (cls is str and value.isascii()) or cls in _ATOMS:
            return value
        if cls is int and -_SHORT_INT < value < _SHORT_INT:
            return value
        if isinstance(value, list | tuple | dict):
            if depth >= MAX_DEPTH:
                raise _Unsupported(value, _TOO_DEEP)
            try:
                if isinstance(value, dict):
                    return self._dict(value, depth + 1)
                items = self._items(value, depth + 1)
            except _Unsupported as u:
                u.trail.append(value)
                raise
            return items if isinstance(value, list) else {_MARK: "tuple", "items": items}
        if isinstance(value, str | int | float) and not isinstance(value, Enum):
            # A subclass of a JSON type is stored, and read back, as the plain type.
            if (problem := _scalar_problem(value)) is None:
                return value
            raise _Unsupported(value, problem)
        try:
            return self._object(value, depth)
        except _Unsupported as u:
            if u.value is not value:
                u.trail.append(value)
            raise

    def _items(self, items: list[Any] | tuple[Any, ...], depth: int) -> list[Any]:
        return [  # ASCII text and atoms are copied as they are, without a call
            v if (type(v) is str and v.isascii()) or type(v) in _ATOMS else self._encode(v, depth)
            for v in items
        ]

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[str, Any]:
        out = {
            (k if type(k) is str and k.isascii() else _key(k)): (
                v
                if (type(v) is str and v.isascii())
                or type(v) in _ATOMS
                or (type(v) is int and -_SHORT_INT < v < _SHORT_INT)
                else self._encode(v, depth)
            )
            for k, v in value.items()
        }
        return {_MARK: "dict", "items": out} if _MARK in out else out

    def _object(self, value: Any, depth: int) -> Any:
        """The JSON-ready form of an enum member, a dataclass or a LangChain message."""
        cls, name = type(value), type_key(type(value))
        if isinstance(value, Enum):
            if self._by_name.get(name) is not cls:
                raise _Unsupported(value, f"a member of an enum {_NOT_NAMED}")
            return {_MARK: "enum", "type": name, "value": self._encode(value.value, depth)}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            if self._by_name.get(name) is not cls:
                raise _Unsupported(value, f"a dataclass {_NOT_NAMED}")
            if depth >= MAX_DEPTH:
                raise _Unsupported(value, _TOO_DEEP)
            fields = {
                f.name: self._encode(getattr(value, f.name), depth + 1)
                for f in dataclasses.fields(value)
                if f.init
            }
            return {_MARK: "dataclass", "type": name, "fields": fields}
        if is_langchain_message(value):
            # LangChain's own dict form; its loader picks the class from a fixed list.
            from langchain_core.messages import message_to_dict

            data = self._encode(message_to_dict(value), depth)
            return {_MARK: "lc_message", "data": data}
        if is_model(value):
            return self._model(value, name, depth)
        raise _Unsupported(value, f"not a checkpointable type ({_SUPPORTED})")

    def _model(self, value: Any, name: str, depth: int) -> dict[str, Any]:
        """The JSON-ready form of a pydantic model: its class name and its fields."""
        if depth >= MAX_DEPTH:
            raise _Unsupported(value, _TOO_DEEP)
        # The graph's own value: its class may be rebuilt from this process's checkpoints.
        self._by_name[name] = type(value)
        fields = self._dict(model_fields(value), depth + 1)
        return {_MARK: "model", "type": name, "fields": fields}

    def decode(self, obj: Any) -> Any:
        """Rebuild a value from its JSON-ready form; ``ValueError`` if it cannot be rebuilt."""
        try:
            return self._decode(obj)
        except RecursionError:
            raise ValueError("a stored value is nested too deeply to rebuild") from None

    def _decode(self, obj: Any) -> Any:
        if isinstance(obj, list):
            return [self._decode(v) for v in obj]
        if not isinstance(obj, dict):
            return obj
        mark = obj.get(_MARK)
        if mark is None:
            return {k: self._decode(v) for k, v in obj.items()}
        if mark == "tuple":
            return tuple(self._decode(v) for v in _field(obj, "items", list))
        if mark == "dict":
            return {k: self._decode(v) for k, v in _field(obj, "items", dict).items()}
        if mark == "dataclass":
            cls = self._known(obj, "dataclass")
            fields = {k: self._decode(v) for k, v in _field(obj, "fields", dict).items()}
            return rebuild(f"dataclass {cls.__qualname__!r}", lambda: cls(**fields))
        if mark == "enum":
            cls = self._known(obj, "enum")
            value = self._decode(obj.get("value"))
            return rebuild(f"enum {cls.__qualname__!r}", lambda: cls(value))
        if mark == "model":
            return self._model_of(obj)
        if mark == "lc_message":
            return langchain_message(self._decode(_field(obj, "data", dict)))
        raise ValueError(f"unknown {_MARK} marker {mark!r}")

    def _model_of(self, obj: dict[str, Any]) -> Any:
        """The stored model; the dict of its fields if the graph may not name its class."""
        name = _field(obj, "type", str)
        fields = self._decode(_field(obj, "fields", dict))
        cls = self._by_name.get(name)
        if not is_model_class(cls):
            return fields  # no class is imported or built for stored data
        return rebuild(f"model {name!r}", lambda: validate_model(cls, fields))

    def _known(self, obj: dict[str, Any], kind: str) -> type:
        """The class a stored ``kind`` object names, if the schema names it."""
        name = _field(obj, "type", str)
        cls = self._by_name.get(name)
        if cls is None or not (
            issubclass(cls, Enum) if kind == "enum" else dataclasses.is_dataclass(cls)
        ):
            raise ValueError(f"stored {kind} {name!r} is not named by the state schema")
        return cls

    @staticmethod
    def dumps(doc: Any) -> str:
        """JSON text of an already encoded document, valid UTF-8 whatever it holds."""
        text = _ENCODER.encode(doc)
        if text.isascii() or _is_utf8(text):
            return text
        # Not a state value (encode refuses them) but an error message: escape it.
        return _ASCII_ENCODER.encode(doc)

    @staticmethod
    def loads(text: str) -> Any:
        """Parse JSON text; ``ValueError`` if it is not valid JSON this process can read.

        Stored text is outside data: text longer or deeper than a checkpoint can be
        (:data:`~pyctx_web.jsonparse.STORED_DEPTH`) is refused unparsed.
        """
        return parse_json(
            text, source="the document", max_chars=STORED_CHARS, max_depth=STORED_DEPTH
        )


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_ASCII_ENCODER: Final = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def _key(key: Any) -> str:
    """``key`` if a checkpoint can hold it as a dict key (a str without lone surrogates)."""
    if isinstance(key, Enum):
        raise _Unsupported(key, f"an enum member used as a dict key ({_SUPPORTED})")
    if not isinstance(key, str):
        raise _Unsupported(key, f"a dict key that is not a str ({_SUPPORTED})")
    if (problem := _scalar_problem(key)) is not None:
        raise _Unsupported(key, problem)
    return key


def _field(obj: dict[str, Any], name: str, kind: type) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"malformed {obj.get(_MARK)!r} object: {name!r} is not a {kind.__name__}")
    return value
