"""State values and snapshots as the JSON a LangGraph Server sends.

:func:`to_jsonable` turns anything a graph keeps in its state into plain JSON
data (dicts with str keys, lists, str, int, float, bool, None) the way the
server's encoder does: a LangChain message (or any object with
``model_dump()``) becomes its ``model_dump()`` dict, a dataclass (an
:class:`~pyctx_web.graph.types.Interrupt`) the dict of its fields, a named
tuple the dict of its fields, a ``Send`` ``{"node", "args"}``, an exception
``{"error": type name, "message": str}`` (the message withheld, as the server
withholds it, unless the error is one of Python's ``ValueError``,
``TypeError``... or the graph's own), an enum its value, a UUID, path or IP
address its string, a set a list, datetimes ISO 8601, bytes base64, and what it
does not know ``None``.
NUL characters in strings become U+FFFD and lone surrogates ``"?"``, as in the
server's JSON, so the result always encodes to UTF-8.

pyctx_web keeps messages as OpenAI-style dicts where ``langchain_core`` is not
importable (``{"role": "user", "content": ..., "id": ...}``, see
:mod:`pyctx_web.graph.message`); the server would hold LangChain messages
there, so such a dict is sent in their shape (``type``, ``content``, ``id``,
``additional_kwargs``, ``tool_calls``...), which is what the SDK's clients read.

:func:`thread_state` turns a :class:`~pyctx_web.graph.types.StateSnapshot` into
the API's ``ThreadState``.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import json
import uuid
from collections import deque
from collections.abc import Mapping
from typing import Any, Final

from pyctx_web.graph.types import Send
from pyctx_web.server._messages import is_dict_message, message_json

__all__ = [
    "as_returned_jsonable",
    "checkpoint_json",
    "dumps",
    "empty_thread_state",
    "interrupt_json",
    "server_metadata",
    "thread_state",
    "to_jsonable",
]

_SCALARS: Final = (bool, int, type(None))


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON, encoded as :func:`to_jsonable` says."""
    return json.dumps(to_jsonable(value), separators=(",", ":"), ensure_ascii=False).encode()


def _clean_str(text: str) -> str:
    """``text`` with NUL characters made U+FFFD and lone surrogates ``"?"``."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("?" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


def _key(key: Any) -> str:
    """A dict key as a JSON object key (non-str keys as their JSON text or str)."""
    if isinstance(key, str):
        return _clean_str(key)
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, enum.Enum):
        return _key(key.value)
    if isinstance(key, datetime.date | datetime.time):
        return key.isoformat()
    return str(key)


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON data, encoded as the LangGraph Server encodes state."""
    kind = type(value)
    # Exact types first: state is mostly these, and one lookup is cheaper than isinstance chains.
    if kind is str:
        return _clean_str(value)
    if kind is int or kind is bool or value is None:
        return value
    if kind is dict:
        return _dict_jsonable(value)
    if kind is list or kind is tuple:
        return [to_jsonable(item) for item in value]
    if isinstance(value, str):
        return _clean_str(value)
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, float):
        # NaN and infinities are not JSON: the server's encoder writes null.
        return value if value - value == 0 else None
    if isinstance(value, dict):
        return _dict_jsonable(value)
    if isinstance(value, list):
        return [to_jsonable(item) for item in value]
    return _object_jsonable(value)


def as_returned_jsonable(value: Any) -> Any:
    """``value`` as :func:`to_jsonable` gives it, but a dict that looks like a message kept
    as it is: a node's return (a task's ``result``) holds what the node returned."""
    if type(value) is dict:
        return {
            (key if type(key) is str and key.isascii() and "\x00" not in key else _key(key)): (
                as_returned_jsonable(item)
            )
            for key, item in value.items()
        }
    if type(value) is list or type(value) is tuple:
        return [as_returned_jsonable(item) for item in value]
    return to_jsonable(value)


def _dict_jsonable(value: dict[Any, Any]) -> dict[str, Any]:
    """A dict as a JSON object; a pyctx_web dict message in LangChain's shape."""
    if "role" in value and is_dict_message(value):
        value = message_json(value)
    return {
        (key if type(key) is str and key.isascii() and "\x00" not in key else _key(key)): (
            _clean_str(item) if type(item) is str else to_jsonable(item)
        )
        for key, item in value.items()
    }


_TOLD_ERRORS: Final = (
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    RuntimeError,
    RecursionError,
    TimeoutError,
)
"""Errors whose message the server sends: Python's own, which carry no secrets by design."""

_TOLD_ERROR_NAMES: Final = frozenset(
    (
        "InvalidUpdateError",
        "GraphBubbleUp",
        "GraphInterrupt",
        "EmptyInputError",
        "TaskNotFound",
        "HTTPException",
        "UserInterrupt",
    )
)
"""The graph's and the server's own errors whose message the server sends (by class name)."""


def _error_json(error: BaseException) -> dict[str, Any]:
    """``{"error": type name, "message": ...}``; the message is withheld for other errors."""
    told = isinstance(error, _TOLD_ERRORS) or any(
        cls.__name__ in _TOLD_ERROR_NAMES for cls in type(error).__mro__
    )
    message = _clean_str(str(error)) if told else "An internal error occurred"
    return {"error": type(error).__name__, "message": message}


def _object_jsonable(value: Any) -> Any:
    """An object that is not a JSON type, as the server's encoder writes it."""
    if isinstance(value, Send):
        return {"node": value.node, "args": to_jsonable(value.arg)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if not isinstance(value, type):
        for method in ("model_dump", "dict", "_asdict"):
            dump = getattr(value, method, None)
            if callable(dump):
                return to_jsonable(dump())
    return _stdlib_jsonable(value)


def _stdlib_jsonable(value: Any) -> Any:
    """A standard-library value the server's encoder knows, else ``None``."""
    if isinstance(value, BaseException):
        return _error_json(value)
    if isinstance(value, set | frozenset | deque | tuple):
        return [to_jsonable(item) for item in value]
    if isinstance(value, Mapping):
        return {_key(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, datetime.timezone):
        return value.tzname(None)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        if not value.is_finite() or (isinstance(exponent, int) and exponent < 0):
            return to_jsonable(float(value))
        return int(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if isinstance(value, uuid.UUID):
        return str(value)
    return _named_jsonable(value)


def _named_jsonable(value: Any) -> Any:
    """Paths, IP addresses, zones and patterns by their text; anything else ``None``."""
    module = type(value).__module__
    if module in ("pathlib", "ipaddress", "pathlib._local"):
        return str(value)
    if module == "zoneinfo":
        return value.tzname(None)
    pattern = getattr(value, "pattern", None)
    if module == "re" and isinstance(pattern, str | bytes):
        return to_jsonable(pattern)
    return None


# --- ThreadState --------------------------------------------------------------------------------


def checkpoint_json(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The API's ``Checkpoint`` for the checkpoint ``config`` names; None when it names none."""
    configurable = (config or {}).get("configurable") or {}
    if not configurable.get("thread_id") or not configurable.get("checkpoint_id"):
        return None
    out: dict[str, Any] = {
        "checkpoint_id": configurable["checkpoint_id"],
        "thread_id": configurable["thread_id"],
    }
    if "checkpoint_ns" in configurable:
        out["checkpoint_ns"] = configurable["checkpoint_ns"] or ""
    if "checkpoint_map" in configurable:
        out["checkpoint_map"] = to_jsonable(configurable["checkpoint_map"])
    return out


_INTERRUPT_FIELDS: Final = ("id", "value", "response_schema")


def interrupt_json(interrupt: Any) -> dict[str, Any]:
    """An interrupt as the state lists it: ``{"id", "value"}``, and its ``response_schema``
    when it has one."""
    fields: Mapping[str, Any] = (
        interrupt
        if isinstance(interrupt, Mapping)
        else {name: getattr(interrupt, name, None) for name in _INTERRUPT_FIELDS}
    )
    out = {"id": fields.get("id"), "value": to_jsonable(fields.get("value"))}
    schema = fields.get("response_schema")
    if schema is not None:
        out["response_schema"] = to_jsonable(schema)
    return out


def _task_json(task: Any) -> dict[str, Any]:
    """One pending task of a snapshot as the API's ``ThreadTask``."""
    state = task.state
    nested = state is not None and hasattr(state, "tasks") and hasattr(state, "next")
    return {
        "id": task.id,
        "name": task.name,
        "path": to_jsonable(task.path),
        "error": to_jsonable(task.error),
        "interrupts": [interrupt_json(i) for i in task.interrupts],
        "checkpoint": to_jsonable(state["configurable"])
        if state is not None and not nested
        else None,
        "state": thread_state(state) if nested else None,
        "result": as_returned_jsonable(getattr(task, "result", None)),
    }


_OWN_METADATA: Final = ("source", "step", "parents")
"""The keys of a checkpoint's metadata the graph writes (the rest come from the run's config)."""


def server_metadata(metadata: Any) -> Any:
    """A checkpoint's metadata as JSON, in the server's order: its checkpointer puts the
    config's entries first and the graph's own (``source``, ``step``, ``parents``) last."""
    if not isinstance(metadata, Mapping):
        return to_jsonable(metadata)
    ordered = {k: v for k, v in metadata.items() if k not in _OWN_METADATA}
    ordered.update((k, metadata[k]) for k in _OWN_METADATA if k in metadata)
    return to_jsonable(ordered)


def thread_state(snapshot: Any) -> dict[str, Any]:
    """A :class:`~pyctx_web.graph.types.StateSnapshot` as the API's ``ThreadState`` JSON."""
    config = snapshot.config
    parent = snapshot.parent_config
    return {
        "values": to_jsonable(snapshot.values),
        "next": list(snapshot.next),
        "tasks": [_task_json(task) for task in snapshot.tasks],
        "metadata": server_metadata(snapshot.metadata),
        "created_at": to_jsonable(snapshot.created_at),
        "checkpoint": checkpoint_json(config),
        "parent_checkpoint": checkpoint_json(parent),
        "interrupts": [interrupt_json(i) for i in getattr(snapshot, "interrupts", ())],
        "checkpoint_id": config["configurable"].get("checkpoint_id") if config else None,
        "parent_checkpoint_id": parent["configurable"]["checkpoint_id"] if parent else None,
    }


def empty_thread_state() -> dict[str, Any]:
    """The ``ThreadState`` of a thread no graph has run on yet: no values, no checkpoint."""
    return {
        "values": {},
        "next": [],
        "tasks": [],
        "metadata": None,
        "created_at": None,
        "checkpoint": None,
        "parent_checkpoint": None,
        "interrupts": [],
        "checkpoint_id": None,
        "parent_checkpoint_id": None,
    }
