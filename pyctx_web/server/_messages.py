"""pyctx_web's dict messages in the shape a LangGraph Server sends LangChain messages.

Without ``langchain_core``, :func:`pyctx_web.graph.message.add_messages` keeps
messages as OpenAI-style dicts (``{"role": "user", "content": ..., "id": ...}``).
On a LangGraph Server the same reducer holds LangChain messages, which reach the
client as their ``model_dump()``: ``content``, ``additional_kwargs``,
``response_metadata``, ``type``, ``name``, ``id`` and, by type, ``tool_calls``,
``invalid_tool_calls``, ``usage_metadata`` or ``tool_call_id``, ``artifact``,
``status``. :func:`message_json` gives a dict message that shape, reading its
keys as LangChain reads a dict it coerces (unknown keys go to
``additional_kwargs``, a ``developer`` message is a system message marked with
``__openai_role__``, OpenAI-style tool calls have their JSON arguments parsed).
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["is_dict_message", "message_json"]

_TYPES: Final = {
    "user": "human",
    "assistant": "ai",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "remove": "remove",
}
"""The LangChain ``type`` of each role pyctx_web keeps in a dict message."""

_COMMON: Final = ("role", "content", "id", "name", "additional_kwargs", "response_metadata")
_BY_TYPE: Final = {
    "ai": ("tool_calls",),
    "tool": ("tool_call_id", "artifact", "status"),
}
"""The keys a message of each type reads itself; any other goes to ``additional_kwargs``."""


def is_dict_message(value: dict[Any, Any]) -> bool:
    """Whether ``value`` is a message as pyctx_web's ``add_messages`` keeps one."""
    role = value.get("role")
    return (
        isinstance(role, str)
        and role in _TYPES
        and isinstance(value.get("id"), str)
        and ("content" in value or role == "remove")
    )


def message_json(message: dict[str, Any]) -> dict[str, Any]:
    """The ``model_dump()`` of the LangChain message a dict message stands for."""
    role: str = message["role"]
    kind = _TYPES[role]
    known = _COMMON + _BY_TYPE.get(kind, ())
    extra = {key: value for key, value in message.items() if key not in known}
    given_kwargs = message.get("additional_kwargs")
    kwargs: dict[str, Any] = {**extra, **(given_kwargs if isinstance(given_kwargs, dict) else {})}
    if role == "developer":
        kwargs["__openai_role__"] = "developer"
    out: dict[str, Any] = {
        "content": message.get("content") or "",
        "additional_kwargs": kwargs,
        "response_metadata": message.get("response_metadata") or {},
        "type": kind,
        "name": message.get("name"),
        "id": message["id"],
    }
    if kind == "ai":
        calls, invalid = _tool_calls(message.get("tool_calls") or [])
        out["tool_calls"] = calls
        out["invalid_tool_calls"] = invalid
        out["usage_metadata"] = None
    elif kind == "tool":
        out["tool_call_id"] = message.get("tool_call_id")
        out["artifact"] = message.get("artifact")
        out["status"] = message.get("status") or "success"
    return out


def _tool_calls(calls: list[Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """LangChain ``tool_calls`` and ``invalid_tool_calls`` of a dict message's tool calls.

    A call is LangChain's (``name``, ``args``, ``id``) or OpenAI's (``id``,
    ``function: {name, arguments}``); arguments that are not a JSON object make
    the call invalid, with the text kept under ``args`` as LangChain keeps it.
    """
    valid: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        if isinstance(function, dict):
            name, args = function.get("name"), function.get("arguments")
        else:
            name, args = call.get("name"), call.get("args", {})
        if isinstance(args, str):
            text: str = args
            try:
                args = json.loads(text, strict=False) if text.strip() else {}
            except ValueError as error:
                invalid.append(_invalid_call(call, name, text, f"arguments are not JSON: {error}"))
                continue
        if not isinstance(args, dict):
            invalid.append(
                _invalid_call(
                    call, name, json.dumps(args, default=repr), "arguments are not an object"
                )
            )
            continue
        valid.append({"name": name, "args": args, "id": call.get("id"), "type": "tool_call"})
    return valid, invalid


def _invalid_call(call: dict[str, Any], name: Any, args: str, error: str) -> dict[str, Any]:
    """A tool call whose arguments could not be read, as LangChain's ``InvalidToolCall``."""
    return {
        "name": name,
        "args": args,
        "id": call.get("id"),
        "error": error,
        "type": "invalid_tool_call",
    }
