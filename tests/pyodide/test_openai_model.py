"""The demo's OpenAI-compatible model in Pyodide reads every stream shape and tool-call form.

It fetches from the real scripted server on 127.0.0.1 (see openai_support).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.openai_server import (
    OpenAIServer,
    Pause,
    Stream,
    completion,
    sse,
    text_reply,
    tool_call_reply,
)

from .openai_support import ASK_USER, KEY, MESSAGES, app, chunk, complete, server

__all__ = ["app", "server"]


def test_streamed_text_arrives_piece_by_piece_with_the_key_in_the_header_only(
    app: Any, server: OpenAIServer
) -> None:
    """Each streamed piece reaches on_token; the request holds the key only in Authorization."""
    result = complete(app, server, text_reply("Sure", ", I will ", "send it."))
    assert result == {"content": "Sure, I will send it.", "tool_calls": [],
                      "tokens": ["Sure", ", I will ", "send it."]}  # fmt: skip
    (post,) = server.completions()
    headers = {name.lower(): value for name, value in post.headers.items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    assert post.path == "/v1/chat/completions"
    assert post.json == {"model": "scripted-model", "messages": MESSAGES, "stream": True}
    assert KEY not in post.body


def test_the_model_asks_through_ask_user(app: Any, server: OpenAIServer) -> None:
    """A streamed ask_user call comes back as the reply's tool call, with the tools offered."""
    arguments = {"question": "Which email?", "choices": ["Draft a reply", "Summarize my inbox"]}
    result = complete(app, server, tool_call_reply("ask_user", arguments), tools=[ASK_USER])
    assert result == {"content": "", "tokens": [],
                      "tool_calls": [["call_1", "ask_user", arguments]]}  # fmt: skip
    assert server.completions()[0].json["tools"] == [ASK_USER]


def test_tool_call_fragments_of_several_calls_are_joined_by_index(
    app: Any, server: OpenAIServer
) -> None:
    """Interleaved argument fragments of two calls make two whole calls, in index order."""
    email = {"to": "team@example.com", "subject": "Daily report", "body": "Figures attached."}
    meeting = {"title": "Review", "when": "Monday 10:00", "attendees": ["ana", "bo"]}
    script = tool_call_reply(
        "send_email", email, ("schedule_meeting", meeting), fragments=5, content="Doing both."
    )
    result = complete(app, server, script)
    assert result["content"] == "Doing both."
    assert result["tool_calls"] == [
        ["call_1", "send_email", email],
        ["call_2", "schedule_meeting", meeting],
    ]


def _content(text: str) -> str:
    return json.dumps(chunk({"content": text}))


SHAPES = {
    "crlf": [
        f"data: {_content('a')}\r\n\r\n",
        f"data: {_content('b')}\r\n\r\ndata: [DONE]\r\n\r\n",
    ],
    "cr": [f"data: {_content('a')}\r\r", f"data: {_content('b')}\r\rdata: [DONE]\r\r"],
    "cr_then_lf_in_the_next_read": [
        f"data: {_content('a')}\r",
        Pause(0.05),
        f"\n\r\ndata: {_content('b')}\n\ndata: [DONE]\n\n",
    ],
    "comments_and_fields": [
        ": keep-alive\n\n",
        f"event: message\nid: 1\nretry: 3000\ndata:{_content('a')}\n\n",
        f": ping\ndata: {_content('b')}\n: between\n\n",
        "data: [DONE]\n\n",
    ],
    "multi_line_data": [
        'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "a"}}]}\n\n',
        f"data: {_content('b')}\n\ndata: [DONE]\n\n",
    ],
    "split_in_the_middle_of_a_line": [
        f"data: {_content('a')}\n\nda",
        Pause(0.05),
        f"ta: {_content('b')}\n\ndata: [DO",
        "NE]\n\n",
    ],
    "usage_null_delta_and_null_content": [
        *sse(
            chunk({"role": "assistant", "content": None}),
            chunk(None),
            {"choices": [{"index": 0}]},
            chunk({"content": "a"}),
            chunk({"content": "b"}, "stop"),
            {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}},
            "[DONE]",
        )
    ],
    "done_without_a_final_newline": [
        *sse(chunk({"content": "a"}), chunk({"content": "b"})),
        "data: [DONE]",
    ],
    "finish_reason_without_done": [*sse(chunk({"content": "a"}), chunk({"content": "b"}, "stop"))],
}


@pytest.mark.parametrize("pieces", SHAPES.values(), ids=SHAPES.keys())
def test_stream_shapes(app: Any, server: OpenAIServer, pieces: list[Any]) -> None:
    """Every event-stream shape the standard allows gives the same two pieces of text."""
    result = complete(app, server, Stream(pieces))
    assert result == {"content": "ab", "tool_calls": [], "tokens": ["a", "b"]}


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        (
            sse(chunk({"content": "a"}), {"error": {"message": "Context length exceeded"}}),
            "The model API reported an error: Context length exceeded",
        ),
        (["data: <html>oops</html>\n\n"], "a stream event that is not JSON: '<html>oops</html>'"),
        (
            sse(chunk({"content": "a"})),
            "The model API's stream ended before the reply was complete.",
        ),
        (
            sse(
                chunk(
                    {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "send_email"}}]}
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"to": '}}]}),
                "[DONE]",
            ),
            "The model called the tool 'send_email' with arguments that are not valid JSON",
        ),
    ],
    ids=["error_object", "not_json", "cut_short", "bad_tool_arguments"],
)
def test_a_bad_stream_ends_the_reply_with_a_message(
    app: Any, server: OpenAIServer, pieces: list[str], message: str
) -> None:
    """An error object, a non-JSON event, a stream cut short or bad tool arguments say so."""
    result = complete(app, server, Stream(pieces))
    assert message in result["error"]


def test_a_plain_json_answer_to_a_stream_request(app: Any, server: OpenAIServer) -> None:
    """A server that answers one chat.completion gives its text (as one token) and tool calls."""
    result = complete(app, server, completion("Hello there."))
    assert result == {"content": "Hello there.", "tool_calls": [], "tokens": ["Hello there."]}
    call = {"id": "call_9", "type": "function",
            "function": {"name": "ask_user", "arguments": '{"question": "Which?"}'}}  # fmt: skip
    result = complete(app, server, completion(None, [call]))
    assert result["tool_calls"] == [["call_9", "ask_user", {"question": "Which?"}]]
