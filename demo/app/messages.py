"""The conversation in the form the demo's models read: chat-completions dicts.

The graph's ``messages`` hold dicts where pyctx_web runs it without
``langchain_core`` (the worker), and LangChain message objects where
``add_messages`` makes them (LangGraph itself, as under ``langgraph dev``).
:func:`openai_message` reads either; :func:`tool_calls` gives a message's calls
as ``{"id", "name", "arguments": dict}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["MAX_DEPTH", "openai_message", "parse_arguments", "role_of", "text_of", "tool_calls"]

MAX_DEPTH: Final = 256
"""The deepest nesting of a tool call's JSON arguments that is parsed: deeper text would
overflow the parser's stack (in Pyodide, a fatal error of the worker's Python)."""

_ROLES: Final = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant"}
"""LangChain's message types under the role chat-completions gives them."""


def _field(message: Any, name: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def role_of(message: Any) -> str:
    """``user``, ``assistant``, ``system`` or ``tool``, whichever form ``message`` has."""
    if isinstance(message, Mapping):
        role = message.get("role") or message.get("type") or ""
    else:
        role = getattr(message, "type", "")
    return _ROLES.get(str(role), str(role))


def text_of(message: Any) -> str:
    """The text of a message's content (LangChain's content blocks joined)."""
    content = _field(message, "content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(block.get("text", "")) if isinstance(block, Mapping) else str(block)
            for block in content
        )
    return "" if content is None else str(content)


def _nesting(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_arguments(text: str) -> Any:
    """A tool call's JSON arguments; ``ValueError`` when they nest deeper than
    :data:`MAX_DEPTH` or are not JSON."""
    if _nesting(text) > MAX_DEPTH:
        raise ValueError(
            f"the JSON of a tool call's arguments nests deeper than {MAX_DEPTH} levels; "
            "it was not parsed"
        )
    return json.loads(text or "{}")


def tool_calls(message: Any) -> list[dict[str, Any]]:
    """The tool calls of an assistant message, as ``{"id", "name", "arguments": dict}``."""
    calls = []
    for call in _field(message, "tool_calls") or ():
        function = call.get("function") or {}
        arguments = function.get("arguments", call.get("args", {}))
        if isinstance(arguments, str):
            arguments = parse_arguments(arguments)
        name = function.get("name", call.get("name", ""))
        calls.append({"id": str(call.get("id", "")), "name": str(name), "arguments": arguments})
    return calls


def openai_message(message: Any) -> dict[str, Any]:
    """``message`` as chat-completions APIs take it, whichever form the state holds it in."""
    role = role_of(message)
    out: dict[str, Any] = {"role": role, "content": text_of(message)}
    calls = tool_calls(message)
    if role == "assistant" and calls:
        out["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for call in calls
        ]
    if role == "tool":
        out["tool_call_id"] = str(_field(message, "tool_call_id") or "")
        name = _field(message, "name")
        if name:
            out["name"] = str(name)
    return out
