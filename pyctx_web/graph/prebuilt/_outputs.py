"""What ``ToolNode`` makes of its tools' returns, and how it combines them into its update.

A tool returns a value (made a ``ToolMessage``), a ``ToolMessage``, a ``Command`` or a
list of ``Command`` and ``ToolMessage``. Every tool call must be answered by exactly one
``ToolMessage`` bound to its id, so a ``Command`` that updates the current graph must
carry it (a list must carry it once, in any of its items). The node's update is a dict
of messages when no tool returned a ``Command``; otherwise a list of updates and
commands in the tools' order, the parent-graph ``Send`` commands joined into one, last.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from copy import deepcopy
from typing import Any

from langchain_core.messages import RemoveMessage, ToolMessage, convert_to_messages

from pyctx_web.graph._values import Command, Send
from pyctx_web.graph.message import REMOVE_ALL_MESSAGES

__all__ = ["combine", "message_content", "normalize"]


def message_content(output: Any) -> Any:
    """A tool's output as message content: text and content blocks kept, else JSON (or str)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(
        isinstance(block, dict) and "type" in block for block in output
    ):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(output)


def normalize(result: Any, call: Any, as_list: bool, key: str) -> Any:
    """A tool's return checked and made a ToolMessage, a Command or a list of them.

    ``as_list`` tells that the node was given a list of messages (its update is then a
    list); ``key`` is its messages key.
    """
    content = message_content
    if isinstance(result, Command):
        return _checked(result, call, as_list, key, require=True)
    if isinstance(result, ToolMessage):
        result.content = content(result.content)
        return result
    if isinstance(result, list) and result and all(_is_output(r) for r in result):
        return _checked_list(result, call, as_list, key, content)
    return ToolMessage(content(result), name=call["name"], tool_call_id=call["id"])


def _is_output(item: Any) -> bool:
    return isinstance(item, Command | ToolMessage)


def _checked_list(
    items: list[Any], call: Any, as_list: bool, key: str, content: Callable[[Any], Any]
) -> list[Any]:
    bound = 0
    for item in items:
        if isinstance(item, ToolMessage):
            bound += item.tool_call_id == call["id"]
        elif isinstance(item, Command) and isinstance(item.update, dict):
            bound += sum(_answers(m, call) for m in item.update.get(key, []))
    if bound != 1:
        raise ValueError(
            f"Tool {call['name']} returned a list with {bound} messages bound to tool_call_id "
            f"{call['id']!r}; expected exactly one terminating ToolMessage."
        )
    out = []
    for item in items:
        if isinstance(item, Command):
            out.append(_checked(item, call, as_list, key, require=False))
        else:
            item.content = content(item.content)
            out.append(item)
    return out


def _answers(message: Any, call: Any) -> bool:
    return isinstance(message, ToolMessage) and message.tool_call_id == call["id"]


def _checked(command: Command[Any], call: Any, as_list: bool, key: str, require: bool) -> Any:
    """``command`` with its ToolMessage named after the tool; refused when it lacks one."""
    update: Any = command.update  # a list too, as LangGraph takes for list input
    if isinstance(update, dict):
        if as_list:
            raise ValueError(
                f"Tools can provide a dict in Command.update only when using dict with '{key}' "
                f"key as ToolNode input, got: {update} for tool '{call['name']}'"
            )
        command = deepcopy(command)
        messages = command.update.get(key, [])  # type: ignore[union-attr]  # a dict, as checked
    elif isinstance(update, list):
        if not as_list:
            raise ValueError(
                "Tools can provide a list of messages in Command.update only when using list "
                f"of messages as ToolNode input, got: {update} for tool '{call['name']}'"
            )
        command = deepcopy(command)
        messages = command.update
    else:
        return command
    messages = convert_to_messages(messages)
    if messages == [RemoveMessage(id=REMOVE_ALL_MESSAGES)]:
        return command
    answered = False
    for message in messages:
        if _answers(message, call):
            message.name = call["name"]
            answered = True
    if require and command.graph is None and not answered:
        raise ValueError(
            f"Expected to have a matching ToolMessage in Command.update for tool "
            f"'{call['name']}', got: {messages}. Every tool call (LLM requesting to call a "
            "tool) in the message history MUST have a corresponding ToolMessage."
        )
    return command


def combine(outputs: list[Any], as_list: bool, key: str) -> Any:
    """The node's update from its calls' outputs (see the module)."""
    flat: list[Any] = []
    for output in outputs:
        flat.extend(output if isinstance(output, list) else [output])
    if not any(isinstance(output, Command) for output in flat):
        return flat if as_list else {key: flat}
    combined: list[Any] = []
    sends: list[Send] = []
    for output in flat:
        if not isinstance(output, Command):
            combined.append([output] if as_list else {key: [output]})
        elif output.graph == Command.PARENT and _all_sends(output.goto):
            sends.extend(output.goto)  # type: ignore[arg-type]  # Sends, as checked
        else:
            combined.append(output)
    if sends:
        combined.append(Command(graph=Command.PARENT, goto=sends))
    return combined


def _all_sends(goto: Any) -> bool:
    return isinstance(goto, list) and all(isinstance(send, Send) for send in goto)
