"""A chat completion's answer, from streamed chunks or from one JSON body, as a :class:`Reply`.

:class:`CompletionStream` takes the ``data`` of each server-sent event of a
``stream: true`` answer: text pieces come back as they arrive, tool-call
fragments are joined by their ``index``, and :meth:`CompletionStream.reply`
gives the whole answer. :func:`reply_from_completion` reads the
``chat.completion`` object a server sends when it does not stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from protocol import ModelError, Reply, ToolCall

from pyctx_web.errors import JsonLimitError
from pyctx_web.jsonparse import EVENT_CHARS, parse_json

__all__ = ["CompletionStream", "error_text", "reply_from_completion", "tool_call"]

DONE = "[DONE]"
"""The ``data`` of the event that ends an OpenAI stream."""


def error_text(error: Any) -> str:
    """The message of an API error object (``{"message": ...}``, or a bare string)."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or error.get("type")
        if isinstance(message, str) and message.strip():
            return message.strip()
        return json.dumps(error)[:300]
    return str(error).strip()[:300]


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


class CompletionStream:
    """The answer built from the ``data`` of each event of a streamed chat completion."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.done = False
        """Whether the stream said it was over (``[DONE]``)."""

    @property
    def complete(self) -> bool:
        """Whether the answer ended as a stream should: ``[DONE]`` or a finish reason."""
        return self.done or self.finish_reason is not None

    def feed(self, data: str, event: str = "message") -> str:
        """The text piece that the event with ``data`` carries ("" for none).

        ``ModelError`` when the event is an error or not a chat completion chunk.
        """
        if self.done:
            return ""  # the stream said it was over: what follows is not the answer
        if data.strip() == DONE:
            self.done = True
            return ""
        try:
            chunk = parse_json(
                data, source="A stream event of the model API", max_chars=EVENT_CHARS
            )
        except JsonLimitError as error:
            raise ModelError(str(error)) from None
        except ValueError as error:
            raise ModelError(
                f"The model API sent a stream event that is not JSON: {data[:200]!r}"
            ) from error
        if not isinstance(chunk, dict):
            raise ModelError(f"The model API sent a stream event that is not an object: {data!r}")
        if "error" in chunk or event == "error":
            raise ModelError(
                f"The model API reported an error: {error_text(chunk.get('error', chunk))}"
            )
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            raise ModelError(f"The model API sent a stream event without choices: {data[:200]!r}")
        piece = ""
        for choice in choices:  # [] for usage and content-filter chunks
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                piece += self._choice(choice)
        return piece

    def _choice(self, choice: dict[str, Any]) -> str:
        if isinstance(choice.get("finish_reason"), str):
            self.finish_reason = choice["finish_reason"]
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return ""
        for fragment in delta.get("tool_calls") or ():
            if isinstance(fragment, dict):
                self._fragment(fragment)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.content.append(content)
            return content
        return ""

    def _fragment(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index")
        if not isinstance(index, int):
            # Some servers send whole calls without an index: match by id, else a new one.
            same = [i for i, c in self.calls.items() if c.id and c.id == fragment.get("id")]
            index = same[0] if same else len(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        function = fragment.get("function")
        function = function if isinstance(function, dict) else {}
        if isinstance(fragment.get("id"), str) and not call.id:
            call.id = fragment["id"]
        if isinstance(function.get("name"), str) and not call.name:
            call.name = function["name"]
        if isinstance(function.get("arguments"), str):
            call.arguments += function["arguments"]

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
