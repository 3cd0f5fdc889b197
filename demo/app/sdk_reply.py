"""The demo's :class:`~protocol.Reply` from what the OpenAI SDK gives: streamed chunks or one body.

:class:`ChunkReply` takes the SDK's ``ChatCompletionChunk`` objects of a streamed
answer: text pieces come back as they arrive, tool-call fragments are joined by their
``index`` (the SDK streams them as they come), and :meth:`ChunkReply.reply` gives
the whole answer, the tools' arguments decoded within the JSON limits.
:func:`reply_from_completion` reads the ``chat.completion`` object a server sends
when it does not stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from http_policy import error_text
from protocol import ModelError, Reply, ToolCall

from pyctx_web.errors import JsonLimitError
from pyctx_web.jsonparse import EVENT_CHARS, parse_json

__all__ = ["ChunkReply", "reply_from_completion", "tool_call"]


def tool_call(call_id: str, name: str, arguments: str) -> ToolCall:
    """A :class:`ToolCall` from the model's JSON text of arguments; ``ModelError`` if malformed."""
    if not name:
        raise ModelError("The model asked for a tool call without naming the tool.")
    try:
        source = f"The JSON of the arguments of the model's call of the tool {name!r}"
        decoded = (
            parse_json(arguments, source=source, max_chars=EVENT_CHARS) if arguments.strip() else {}
        )
    except JsonLimitError as error:
        raise ModelError(str(error)) from None
    except ValueError as error:
        raise ModelError(
            f"The model called the tool {name!r} with arguments that are not valid JSON: "
            f"{arguments[:200]!r}"
        ) from error
    if not isinstance(decoded, dict):
        raise ModelError(
            f"The model called the tool {name!r} with arguments that are not a JSON object: "
            f"{arguments[:200]!r}"
        )
    return ToolCall(id=call_id, name=name, arguments=decoded)


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class ChunkReply:
    """The answer built from the SDK's chunks of a streamed chat completion."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.chars = 0
        """The characters of text and tool-call arguments so far."""

    def feed(self, chunk: Any) -> str:
        """The text piece that ``chunk`` carries ("" for none)."""
        piece = ""
        for choice in getattr(chunk, "choices", None) or ():  # [] for usage chunks
            if (getattr(choice, "index", 0) or 0) != 0:
                continue
            if isinstance(getattr(choice, "finish_reason", None), str):
                self.finish_reason = choice.finish_reason
            delta = getattr(choice, "delta", None)
            if delta is None:
                continue
            for fragment in getattr(delta, "tool_calls", None) or ():
                self._fragment(fragment)
            content = getattr(delta, "content", None)
            if isinstance(content, str) and content:
                self.content.append(content)
                self.chars += len(content)
                piece += content
        return piece

    def _fragment(self, fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        if not isinstance(index, int):
            # Some servers send whole calls without an index: match by id, else a new one.
            same = [i for i, c in self.calls.items() if c.id and c.id == fragment.id]
            index = same[0] if same else len(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        if isinstance(getattr(fragment, "id", None), str) and not call.id:
            call.id = fragment.id
        function = getattr(fragment, "function", None)
        name = getattr(function, "name", None)
        if isinstance(name, str) and not call.name:
            call.name = name
        arguments = getattr(function, "arguments", None)
        if isinstance(arguments, str):
            call.arguments += arguments
            self.chars += len(arguments)

    def reply(self) -> Reply:
        """The whole answer; ``ModelError`` if a tool call's arguments are not a JSON object."""
        if self.finish_reason == "content_filter" and not self.content and not self.calls:
            raise ModelError("The model API's content filter stopped the reply.")
        calls = tuple(
            tool_call(call.id or f"call_{index}", call.name, call.arguments)
            for index, call in sorted(self.calls.items())
        )
        return Reply(content="".join(self.content), tool_calls=calls)


def reply_from_completion(body: Any) -> Reply:
    """The answer in a ``chat.completion`` object; ``ModelError`` names what is wrong with it."""
    if isinstance(body, dict) and "error" in body:
        raise ModelError(f"The model API reported an error: {error_text(body['error'])}")
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelError("The model API answered JSON that is not a chat completion (no choices).")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ModelError("The model API answered a chat completion without a message.")
    content = message.get("content")
    calls = []
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise ModelError("The model API answered a tool call without a function.")
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # some servers send the object itself
            arguments = json.dumps(arguments)
        call_id = call.get("id")
        calls.append(
            tool_call(
                call_id if isinstance(call_id, str) and call_id else f"call_{index}",
                str(function.get("name") or ""),
                arguments if isinstance(arguments, str) else "",
            )
        )
    return Reply(content=content if isinstance(content, str) else "", tool_calls=tuple(calls))
