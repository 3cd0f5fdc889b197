"""What the demo's models speak: OpenAI-shaped messages and tools in, a reply with tool calls out.

Both models (the offline one and any OpenAI-compatible API) implement
:class:`ChatModel`, so the assistant's graph is the same code for both.

Messages are chat-completions dicts: ``{"role": "system" | "user", "content"}``,
``{"role": "assistant", "content", "tool_calls": [{"id", "type": "function",
"function": {"name", "arguments": "<JSON text>"}}]}`` and ``{"role": "tool",
"tool_call_id", "name", "content"}``. Tools are ``Tool.to_openai()`` entries.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from model_error import ModelError

__all__ = ["ChatModel", "ModelError", "Reply", "TokenSink", "ToolCall"]

TokenSink = Callable[[str], Awaitable[None]]
"""Awaited with each piece of the reply's text as it arrives."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call of a tool that a model asked for."""

    id: str
    """The model's id of the call; the tool's result message names it."""
    name: str
    """The tool's name."""
    arguments: dict[str, Any]
    """The arguments, decoded from the model's JSON text."""

    def to_message(self) -> dict[str, Any]:
        """The call as an entry of an assistant message's ``tool_calls``."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }


@dataclass(frozen=True, slots=True)
class Reply:
    """What a model answered: text, tool calls, or both."""

    content: str = ""
    """The text of the reply."""
    tool_calls: tuple[ToolCall, ...] = field(default=())
    """The tools the model asks to call, in order."""

    def to_message(self) -> dict[str, Any]:
        """The reply as an assistant message of the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        return message


class ChatModel(Protocol):
    """A model the assistant can talk to."""

    kind: str
    """``"offline"`` or ``"openai"``."""
    token_delay_ms: float
    """Pause between streamed tokens when the answer is shown."""

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        on_token: TokenSink | None = None,
    ) -> Reply:
        """Answer ``messages``, offered ``tools``; await ``on_token`` with each text piece.

        Raise :class:`ModelError` with a message a person understands when the
        model cannot answer. Cancelling the awaiting task stops the request.
        """
        ...

    def describe(self) -> dict[str, Any]:
        """What the page may show of this model: never a key."""
        ...
