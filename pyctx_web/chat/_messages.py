"""Messages as the chat protocol shows them: chat-completions dicts, and the transcript's entries.

A graph's ``messages`` hold dicts (in Pyodide) or LangChain message objects
(where ``add_messages`` makes them); both become the same plain forms here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from pyctx_web._homes import publish
from pyctx_web.jsonparse import EVENT_CHARS, parse_json

__all__ = ["ASK_TOOL", "openai_message", "plain_message", "transcript"]

ASK_TOOL: Final = "ask_user"
"""The tool through which a model asks the user: its calls are questions, its results replies."""

_ROLES: Final = {"human": "user", "ai": "assistant"}
"""LangChain's message types that the chat protocol names otherwise."""


def plain_message(message: Any) -> dict[str, Any]:
    """A message as the chat protocol sends it: ``{"role", "content", ...}``.

    Dict messages are copied; LangChain message objects (where ``add_messages``
    makes them) become the same dict form.
    """
    if isinstance(message, Mapping):
        return dict(message)
    kind = str(getattr(message, "type", ""))
    plain = {"role": _ROLES.get(kind, kind), "content": getattr(message, "content", "")}
    if getattr(message, "id", None) is not None:
        plain["id"] = message.id
    return plain


def _calls(message: Any) -> list[dict[str, Any]]:
    """The tool calls of an assistant message as ``{"id", "name", "arguments": dict}``."""
    if isinstance(message, Mapping):
        calls = []
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            arguments = function.get("arguments", call.get("args", {}))
            if isinstance(arguments, str):
                arguments = parse_json(
                    arguments or "{}",
                    source="the JSON of a tool call's arguments",
                    max_chars=EVENT_CHARS,
                )
            name = function.get("name", call.get("name", ""))
            calls.append({"id": str(call.get("id", "")), "name": name, "arguments": arguments})
        return calls
    return [
        {"id": str(call.get("id", "")), "name": call["name"], "arguments": dict(call["args"])}
        for call in getattr(message, "tool_calls", None) or ()
    ]


def openai_message(message: Any) -> dict[str, Any]:
    """A message as chat-completions APIs take it, whichever form the state holds it in."""
    plain = plain_message(message)
    role = plain.get("role", "")
    out: dict[str, Any] = {"role": role, "content": _text(plain.get("content", ""))}
    calls = _calls(message)
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


def _field(message: Any, name: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # LangChain content blocks
        return "".join(
            str(b.get("text", "")) if isinstance(b, Mapping) else str(b) for b in content
        )
    return "" if content is None else str(content)


def _question(call: Mapping[str, Any]) -> dict[str, Any]:
    arguments = call["arguments"] if isinstance(call["arguments"], Mapping) else {}
    entry: dict[str, Any] = {
        "id": call["id"],
        "kind": "question",
        "role": "assistant",
        "content": str(arguments.get("question", "")),
    }
    if arguments.get("reason"):
        entry["reason"] = str(arguments["reason"])
    if isinstance(arguments.get("choices"), list) and arguments["choices"]:
        entry["choices"] = [str(choice) for choice in arguments["choices"]]
    return entry


def _assistant_entries(
    message: Any, ident: str, tools: dict[str, dict[str, Any]], asks: set[str]
) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    text = _text(plain_message(message).get("content", ""))
    calls = _calls(message)
    if text.strip():
        kind = "note" if calls else "answer"
        entries.append({"id": ident, "kind": kind, "role": "assistant", "content": text})
    for call in calls:
        if call["name"] == ASK_TOOL:
            asks.add(call["id"])
            entries.append(_question(call))
            continue
        entry = {
            "id": call["id"],
            "kind": "tool",
            "role": "assistant",
            "name": call["name"],
            "arguments": call["arguments"],
            "status": "pending",
            "content": "",
        }
        tools[call["id"]] = entry
        entries.append(entry)
    return entries


def _tool_result(message: Any, ident: str, tools: dict[str, Any], asks: set[str]) -> Any:
    call_id = str(_field(message, "tool_call_id") or "")
    content = _text(plain_message(message).get("content", ""))
    if call_id in asks:
        return {"id": ident, "kind": "reply", "role": "user", "content": content}
    entry = tools.get(call_id)
    if entry is not None:
        artifact = _field(message, "artifact")
        artifact = artifact if isinstance(artifact, Mapping) else {}
        entry["status"] = str(artifact.get("decision", "ran"))
        if isinstance(artifact.get("arguments"), Mapping):
            entry["arguments"] = dict(artifact["arguments"])
        entry["content"] = content
    return None


def transcript(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """The conversation as a UI shows it: one entry per bubble (see the package docstring).

    Each entry keeps ``index``, the position of the message it comes from.
    """
    entries: list[dict[str, Any]] = []
    tools: dict[str, dict[str, Any]] = {}
    asks: set[str] = set()
    for index, message in enumerate(messages):
        role = plain_message(message).get("role")
        ident = str(_field(message, "id") or f"m{index}")
        made: list[dict[str, Any]] = []
        if role == "user":
            content = _text(plain_message(message).get("content", ""))
            made = [{"id": ident, "kind": "message", "role": "user", "content": content}]
        elif role == "assistant":
            made = _assistant_entries(message, ident, tools, asks)
        elif role == "tool":
            reply = _tool_result(message, ident, tools, asks)
            made = [] if reply is None else [reply]
        for entry in made:
            entry["index"] = index
        entries.extend(made)
    return entries


publish("pyctx_web.chat", openai_message, plain_message, transcript)
