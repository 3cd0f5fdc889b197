"""``langgraph.checkpoint.serde.jsonplus``: a saver serializer for Python objects, allowlisted.

:class:`JsonPlusSerializer` turns a value into ``(type, bytes)`` for a saver's ``serde``:
``("null", b"")``, ``("bytes", ...)``, ``("bytearray", ...)``, or ``("jsonplus", JSON)``
where tuples, sets, bytes, datetimes, UUIDs, decimals, enums, dataclasses and pydantic
models are marked objects. An enum, dataclass or model is stored by its class's module
and name, and reading it back imports that class only if the serializer allows it:

* ``allowed_msgpack_modules=True`` (the default): any class, each new one logged once as
  an unregistered type (``LANGGRAPH_STRICT_MSGPACK=true`` in the environment makes the
  default strict);
* a collection of ``(module, name)`` pairs or classes: those, and LangChain's messages
  and documents; any other is blocked (logged once) and read back as its plain data (a
  model's or dataclass's fields as a dict, an enum's value);
* ``None``: only LangChain's messages and documents.

The parameter keeps LangGraph's name, though the bytes are JSON, not msgpack. The
warnings go to the ``langgraph.checkpoint.serde.jsonplus`` logger, as LangGraph's do.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import importlib
import json
import logging
import os
import uuid
from collections.abc import Iterable
from enum import Enum
from typing import Any, Final

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = ["JsonPlusSerializer"]

logger = logging.getLogger("langgraph.checkpoint.serde.jsonplus")
_warned_unregistered_types: set[tuple[str, str]] = set()
"""The classes already logged as unregistered (each is logged once a process)."""
_warned_blocked_types: set[tuple[str, str]] = set()
"""The classes already logged as blocked (each is logged once a process)."""

_MARK: Final = "__jsonplus__"
_SAFE_MODULES: Final = ("langchain_core.messages", "langchain_core.documents")
_DEFAULT: Final[Any] = object()
_PLAIN: Final = (str, int, float, bool, type(None))
_SCALARS: Final[dict[str, tuple[type, Any]]] = {
    "datetime": (datetime.datetime, datetime.datetime.fromisoformat),
    "date": (datetime.date, datetime.date.fromisoformat),
    "time": (datetime.time, datetime.time.fromisoformat),
    "uuid": (uuid.UUID, uuid.UUID),
    "decimal": (decimal.Decimal, decimal.Decimal),
}
_ISO: Final = {"datetime", "date", "time"}


def _allowlist(allowed: Any) -> set[tuple[str, str]] | bool | None:
    if allowed is True or allowed is None:
        return allowed
    if isinstance(allowed, str | bytes) or not isinstance(allowed, Iterable):
        raise ArgumentTypeError(
            "allowed_msgpack_modules must be True, None or (module, name) pairs or classes"
        )
    return {_key(entry) for entry in allowed}


def _key(entry: Any) -> tuple[str, str]:
    if isinstance(entry, type):
        return entry.__module__, entry.__qualname__
    if isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(p, str) for p in entry):
        return entry[0], entry[1]
    raise ArgumentValueError(
        f"an allowlist entry is a (module, name) pair or a class, not {entry!r}"
    )


class JsonPlusSerializer:
    """Values to ``(type, bytes)`` and back, classes read back only as allowed (see the module)."""

    def __init__(
        self, *, pickle_fallback: bool = False, allowed_msgpack_modules: Any = _DEFAULT
    ) -> None:
        if pickle_fallback:
            raise ArgumentValueError("JsonPlusSerializer(pickle_fallback=True) is not supported")
        if allowed_msgpack_modules is _DEFAULT:
            strict = os.environ.get("LANGGRAPH_STRICT_MSGPACK", "").lower() in {"1", "true", "yes"}
            allowed_msgpack_modules = None if strict else True
        self._allowed = _allowlist(allowed_msgpack_modules)

    def with_msgpack_allowlist(self, extra_allowlist: Iterable[Any]) -> JsonPlusSerializer:
        """A serializer that also allows ``extra_allowlist`` (this one when that adds nothing)."""
        if self._allowed is True:
            return self
        base = set(self._allowed or ())
        merged = base | {_key(entry) for entry in extra_allowlist}
        if merged == base:
            return self
        return JsonPlusSerializer(allowed_msgpack_modules=merged)

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """``(type, bytes)`` of ``obj``; a value of no supported type raises ArgumentTypeError."""
        if obj is None:
            return "null", b""
        if isinstance(obj, bytes | bytearray):
            return type(obj).__name__, bytes(obj)
        return "jsonplus", json.dumps(_encode(obj), separators=(",", ":")).encode()

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The value :meth:`dumps_typed` gave ``data`` for."""
        kind, raw = data
        if kind == "null":
            return None
        if kind in {"bytes", "bytearray"}:
            return raw if kind == "bytes" else bytearray(raw)
        if kind != "jsonplus":
            raise ArgumentValueError(f"cannot read a value serialized as {kind!r}")
        return self._decode(json.loads(raw))

    def _allows(self, module: str, name: str) -> bool:
        key = (module, name)
        if module.startswith(_SAFE_MODULES):
            return True
        if self._allowed is True:
            _warn_once(
                _warned_unregistered_types,
                key,
                "Deserializing unregistered type %s.%s from checkpoint. Set "
                "LANGGRAPH_STRICT_MSGPACK=true to block such types, or allow it explicitly "
                "with allowed_msgpack_modules=[(%r, %r)]",
            )
            return True
        if isinstance(self._allowed, set) and key in self._allowed:
            return True
        _warn_once(
            _warned_blocked_types,
            key,
            "Blocked deserialization of %s.%s - not in allowed_msgpack_modules; "
            "read back as its data. Allow it with allowed_msgpack_modules=[(%r, %r)]",
        )
        return False

    def _decode(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        mark = value.get(_MARK)
        if mark is None:
            return {k: self._decode(v) for k, v in value.items()}
        if mark in {"tuple", "set", "frozenset"}:
            items = [self._decode(v) for v in value["items"]]
            return {"tuple": tuple, "set": set, "frozenset": frozenset}[mark](items)
        if mark == "dict":
            return {self._decode(k): self._decode(v) for k, v in value["items"]}
        if mark == "bytes":
            return base64.b64decode(value["data"])
        if mark in _SCALARS:
            return _SCALARS[mark][1](value["text"])
        if mark == "object":
            return self._object(value)
        raise ArgumentValueError(f"unknown {_MARK} marker {mark!r}")

    def _object(self, value: dict[str, Any]) -> Any:
        module, name = value["type"]
        data = self._decode(value["data"])
        if not self._allows(module, name):
            return data
        cls: Any = importlib.import_module(module)
        for part in name.split("."):
            cls = getattr(cls, part)
        kind = value["kind"]
        if kind == "enum":
            return cls(data)
        if kind == "pydantic":
            return cls.model_validate(data)
        return cls(**data)


def _warn_once(seen: set[tuple[str, str]], key: tuple[str, str], message: str) -> None:
    if key not in seen:
        seen.add(key)
        logger.warning(message, *key, *key)


def _encode(value: Any) -> Any:
    """The JSON-ready form of ``value``: plain JSON as it is, the rest marked."""
    if isinstance(value, _PLAIN) and not isinstance(value, Enum):
        return value
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if all(type(k) is str for k in value) and _MARK not in value:
            return {k: _encode(v) for k, v in value.items()}
        return {_MARK: "dict", "items": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple | set | frozenset) and not hasattr(value, "_fields"):
        return {_MARK: type(value).__name__, "items": [_encode(v) for v in value]}
    if isinstance(value, bytes | bytearray):
        return {_MARK: "bytes", "data": base64.b64encode(value).decode("ascii")}
    for mark, (kind, _) in _SCALARS.items():
        if type(value) is kind:
            text = value.isoformat() if mark in _ISO else str(value)  # type: ignore[attr-defined]
            return {_MARK: mark, "text": text}
    return _object(value)


def _object(value: Any) -> dict[str, Any]:
    """An enum member, a pydantic model or a dataclass, by its class's module and name."""
    cls = type(value)
    if isinstance(value, Enum):
        kind, data = "enum", value.value
    elif hasattr(cls, "model_fields") and hasattr(value, "model_dump"):
        kind, data = "pydantic", value.model_dump()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        kind, data = "dataclass", {f.name: getattr(value, f.name) for f in fields if f.init}
    else:
        raise ArgumentTypeError(f"JsonPlusSerializer cannot store a {cls.__qualname__!r}")
    return {
        _MARK: "object",
        "type": [cls.__module__, cls.__qualname__],
        "kind": kind,
        "data": _encode(data),
    }


publish("pyctx_web.graph.saver", JsonPlusSerializer)
