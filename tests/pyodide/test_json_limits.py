"""JSON nested 100,000 levels deep from a model or in a state is refused in Pyodide, which lives on.

Parsing such text overflows the WebAssembly stack, a fatal error of the whole
interpreter; each test then makes an ordinary call in the same Pyodide.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.openai_server import OpenAIServer, Stream, sse, text_reply

from .openai_support import app, chunk, complete, server

__all__ = ["app", "server"]

DEEP = 100_000


def test_a_stream_event_nested_100000_deep_is_a_model_error(app: Any, server: OpenAIServer) -> None:
    """A stream event nesting 100,000 arrays ends the reply with a ModelError; the next reads."""
    result = complete(app, server, Stream(sse("[" * DEEP + "]" * DEEP)))
    assert result == {
        "error": "A stream event of the model API nests deeper than 256 levels; it was not parsed",
        "tokens": [],
    }
    assert complete(app, server, text_reply("still here"))["content"] == "still here"


def test_tool_call_arguments_nested_100000_deep_are_a_model_error(
    app: Any, server: OpenAIServer
) -> None:
    """Tool-call arguments nesting 100,000 objects end the reply with a ModelError; Python lives."""
    arguments = '{"a":' * DEEP + "1" + "}" * DEEP
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "ask_user", "arguments": arguments}}  # fmt: skip
    result = complete(app, server, Stream(sse(chunk({"tool_calls": [call]}, "tool_calls"))))
    assert result == {
        "error": "The JSON of the arguments of the model's call of the tool 'ask_user' nests "
        "deeper than 256 levels; it was not parsed",
        "tokens": [],
    }
    assert complete(app, server, text_reply("still here"))["content"] == "still here"
