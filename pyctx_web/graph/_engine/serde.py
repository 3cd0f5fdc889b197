"""JSON encoding of state values for checkpoints.

The checkpointable types are:

* ``str``, ``int``, ``float`` (finite), ``bool`` and ``None``;
* ``list`` and ``tuple`` (a tuple comes back as a tuple);
* ``dict`` with ``str`` keys (so also ``TypedDict`` values);
* instances of the dataclasses that appear in the state schema (the schema
  itself, and any dataclass named in its annotations, nested at any depth).

Subclasses of ``list`` and ``dict`` come back as plain ``list`` and ``dict``.
Anything else (sets, bytes, datetimes, enums, other classes) fails when the
checkpoint is written, with a :class:`~pyctx_web.graph.errors.SerializationError`
naming the state key, where in its value the part is, and its type.

A dataclass is stored by name (``module.QualName``) and rebuilt only if the
schema names it: stored data never makes the graph import or build other types.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
from collections.abc import Iterable
from typing import Annotated, Any, Final, ForwardRef, get_args, get_origin, get_type_hints

from pyctx_web.graph.errors import SerializationError

__all__ = ["JsonSerde", "collect_dataclasses"]

_MARK: Final = "__pyctx__"
"""Key of the objects the encoding adds; a user dict holding it is wrapped."""

_SUPPORTED: Final = (
    "str, int, float, bool, None, list, tuple, dict with str keys "
    "and dataclasses of the state schema"
)


def _type_key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def collect_dataclasses(annotation: Any, found: dict[str, type] | None = None) -> dict[str, type]:
    """Return ``{"module.QualName": cls}`` for every dataclass reachable from ``annotation``."""
    found = {} if found is None else found
    if isinstance(annotation, str | ForwardRef):
        return found
    origin = get_origin(annotation)
    if origin is Annotated:
        return collect_dataclasses(get_args(annotation)[0], found)
    if origin is not None or isinstance(annotation, types.UnionType):
        for arg in get_args(annotation):
            collect_dataclasses(arg, found)
        return found
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        key = _type_key(annotation)
        if key in found:
            return found
        found[key] = annotation
        try:
            hints = get_type_hints(annotation, include_extras=True)
        except (NameError, TypeError):
            # Unresolvable annotations only hide nested dataclasses; the type
            # itself is still known.
            hints = {}
        for hint in hints.values():
            collect_dataclasses(hint, found)
    return found


class _Unsupported(Exception):
    """Internal: the part of a value at ``path`` cannot be encoded."""

    def __init__(self, path: str, value: Any, why: str) -> None:
        super().__init__(path)
        self.path = path
        self.value = value
        self.why = why


class JsonSerde:
    """Encodes values to JSON text and back, for the dataclasses it was given."""

    __slots__ = ("_by_name",)

    def __init__(self, dataclass_types: Iterable[type] = ()) -> None:
        self._by_name: dict[str, type] = {_type_key(cls): cls for cls in dataclass_types}

    @classmethod
    def for_schema(cls, schema: type) -> JsonSerde:
        """A serde knowing the dataclasses reachable from ``schema`` and its annotations."""
        found: dict[str, type] = {}
        collect_dataclasses(schema, found)
        try:
            hints = get_type_hints(schema, include_extras=True)
        except (NameError, TypeError):
            # The schema was already checked by StateSchema; missing hints just
            # mean no nested dataclass is known.
            hints = {}
        for hint in hints.values():
            collect_dataclasses(hint, found)
        return cls(found.values())

    def encode(self, value: Any, *, key: str, label: str | None = None) -> Any:
        """Return a JSON-ready form of ``value``.

        ``key`` roots the path given in errors; ``label`` says what the value
        is (``"state key 'items'"`` by default).
        """
        try:
            return self._encode(value, key)
        except _Unsupported as u:
            type_name = type(u.value).__qualname__
            where = "" if u.path == key else f" at {u.path}"
            what = label if label is not None else f"state key {key!r}"
            raise SerializationError(
                f"cannot checkpoint {what}{where}: {type_name!r} is {u.why} "
                f"(supported: {_SUPPORTED})",
                key=key,
                path=u.path,
                type_name=type_name,
            ) from None

    def _encode(self, value: Any, path: str) -> Any:
        if value is None or isinstance(value, str | bool | int):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _Unsupported(path, value, "a non-finite float")
            return value
        if isinstance(value, list):
            # Plain items are copied as they are: no path string is built for them.
            return [
                v if type(v) in _PLAIN else self._encode(v, f"{path}[{i}]")
                for i, v in enumerate(value)
            ]
        if isinstance(value, tuple):
            items = [self._encode(v, f"{path}[{i}]") for i, v in enumerate(value)]
            return {_MARK: "tuple", "items": items}
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for k, v in value.items():
                if not isinstance(k, str):
                    raise _Unsupported(f"{path}[{k!r}]", k, "a dict key that is not a str")
                out[k] = v if type(v) in _PLAIN else self._encode(v, f"{path}[{k!r}]")
            return {_MARK: "dict", "items": out} if _MARK in out else out
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            cls = type(value)
            name = _type_key(cls)
            if self._by_name.get(name) is not cls:
                raise _Unsupported(path, value, "a dataclass the state schema does not name")
            fields = {
                f.name: self._encode(getattr(value, f.name), f"{path}.{f.name}")
                for f in dataclasses.fields(value)
                if f.init
            }
            return {_MARK: "dataclass", "type": name, "fields": fields}
        if _is_langchain_message(value):
            # LangChain's own dict form; its loader picks the class from a fixed list.
            from langchain_core.messages import message_to_dict

            data = self._encode(message_to_dict(value), path)
            return {_MARK: "lc_message", "data": data}
        raise _Unsupported(path, value, "not a checkpointable type")

    def decode(self, obj: Any) -> Any:
        """Rebuild a value from its JSON-ready form; ``ValueError`` if it is malformed."""
        if isinstance(obj, list):
            return [self.decode(v) for v in obj]
        if not isinstance(obj, dict):
            return obj
        mark = obj.get(_MARK)
        if mark is None:
            return {k: self.decode(v) for k, v in obj.items()}
        if mark == "tuple":
            return tuple(self.decode(v) for v in _field(obj, "items", list))
        if mark == "dict":
            return {k: self.decode(v) for k, v in _field(obj, "items", dict).items()}
        if mark == "dataclass":
            name = _field(obj, "type", str)
            cls = self._by_name.get(name)
            if cls is None:
                raise ValueError(f"stored dataclass {name!r} is not named by the state schema")
            fields = {k: self.decode(v) for k, v in _field(obj, "fields", dict).items()}
            try:
                return cls(**fields)
            except TypeError as exc:
                raise ValueError(f"cannot rebuild dataclass {name!r}: {exc}") from exc
        if mark == "lc_message":
            return _langchain_message(self.decode(_field(obj, "data", dict)))
        raise ValueError(f"unknown {_MARK} marker {mark!r}")

    @staticmethod
    def dumps(doc: Any) -> str:
        """JSON text of an already encoded document."""
        return _ENCODER.encode(doc)

    @staticmethod
    def loads(text: str) -> Any:
        """Parse JSON text; ``ValueError`` if it is not valid JSON."""
        return json.loads(text)


_PLAIN: Final = frozenset({str, int, bool, type(None)})
"""Types whose values are their own JSON form (not float: it must be finite)."""

_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _is_langchain_message(value: Any) -> bool:
    """Whether ``value`` is a LangChain message (known without importing LangChain)."""
    cls = type(value)
    return cls.__module__.startswith("langchain_core.messages") and hasattr(value, "model_dump")


def _langchain_message(data: dict[str, Any]) -> Any:
    """The LangChain message stored as ``data``; ``ValueError`` where LangChain is missing."""
    try:
        from langchain_core.messages import messages_from_dict
    except ImportError as exc:
        raise ValueError(
            "a stored LangChain message cannot be read: langchain_core is not installed"
        ) from exc
    return messages_from_dict([data])[0]


def _field(obj: dict[str, Any], name: str, kind: type) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"malformed {obj.get(_MARK)!r} object: {name!r} is not a {kind.__name__}")
    return value
