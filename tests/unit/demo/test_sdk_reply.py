"""The SDK's streamed chat completion chunks, and one JSON completion, become a Reply."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("openai", reason="the OpenAI SDK is installed in the tooling venv only")

from openai.types.chat import ChatCompletionChunk
from protocol import ModelError, Reply, ToolCall
from sdk_reply import ChunkReply, reply_from_completion


def chunk(delta: Any = None, finish: str | None = None, **choice: Any) -> str:
    return json.dumps(
        {"choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}]}
    )


def run(*data: str) -> tuple[list[str], ChunkReply]:
    """The pieces of the chunks (as the SDK makes them from ``data``) and their reply."""
    reply = ChunkReply()
    return [reply.feed(ChatCompletionChunk.construct(**json.loads(d))) for d in data], reply


def test_text_pieces_come_back_as_they_arrive() -> None:
    """Each chunk's content is returned by feed and the reply joins them."""
    pieces, stream = run(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, "stop"),
    )
    assert pieces == ["", "Hel", "lo", ""]
    assert stream.finish_reason == "stop"
    assert stream.reply() == Reply("Hello")


def test_empty_choices_null_delta_and_null_content_are_skipped() -> None:
    """Usage chunks (choices: []), a null or missing delta and null content add nothing."""
    pieces, stream = run(
        json.dumps({"choices": [], "usage": {"prompt_tokens": 3}}),
        chunk(None),
        json.dumps({"choices": [{"index": 0}]}),
        chunk({"content": None}),
        chunk({"content": "x"}),
        json.dumps({"choices": [{"index": 1, "delta": {"content": "other choice"}}]}),
    )
    assert pieces == ["", "", "", "", "x", ""]
    assert stream.finish_reason is None
    assert stream.reply() == Reply("x")


def test_streamed_tool_call_fragments_are_joined_by_index() -> None:
    """The id and name of the first fragment and the arguments of all make each call."""
    _, stream = run(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "ask_user", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"quest'}}]}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "function": {"name": "send_email", "arguments": '{"to": '},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ion": "Which?"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"a@b.c"}'}}]}),
        chunk({}, "tool_calls"),
    )
    assert stream.reply() == Reply(
        "",
        (
            ToolCall("call_a", "ask_user", {"question": "Which?"}),
            ToolCall("call_b", "send_email", {"to": "a@b.c"}),
        ),
    )


def test_tool_calls_without_index_or_id_get_their_own_slot_and_an_id() -> None:
    """Whole calls sent without an index each make a call; a call without id gets call_<n>."""
    _, stream = run(
        chunk({"tool_calls": [{"function": {"name": "a", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"function": {"name": "b", "arguments": ""}}]}),
    )
    assert stream.reply().tool_calls == (ToolCall("call_0", "a", {}), ToolCall("call_1", "b", {}))


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [('{"to": ', "not valid JSON"), ("[1, 2]", "not a JSON object"), ("nope", "not valid JSON")],
)
def test_tool_arguments_that_are_not_a_json_object_name_the_tool(
    arguments: str, problem: str
) -> None:
    """Arguments that are not a JSON object raise ModelError naming the tool."""
    _, stream = run(
        chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "send_email"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
    )
    message = f"The model called the tool 'send_email' with arguments that are {problem}: "
    with pytest.raises(ModelError, match="^" + re.escape(message + repr(arguments)) + "$"):
        stream.reply()


def test_a_content_filter_stop_without_content_raises() -> None:
    """finish_reason content_filter with nothing said raises ModelError."""
    _, stream = run(chunk({}, "content_filter"))
    with pytest.raises(ModelError, match=r"^The model API's content filter stopped the reply\.$"):
        stream.reply()


def test_a_plain_json_completion_gives_its_message() -> None:
    """A chat.completion object gives its content and tool calls (arguments as text or object)."""
    body = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "ask_user", "arguments": '{"question": "?"}'},
                        },
                        {"function": {"name": "schedule_meeting", "arguments": {"at": "9"}}},
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    assert reply_from_completion(body) == Reply(
        "",
        (
            ToolCall("c1", "ask_user", {"question": "?"}),
            ToolCall("call_1", "schedule_meeting", {"at": "9"}),
        ),
    )
    text = {"choices": [{"message": {"role": "assistant", "content": "Hi"}}]}
    assert reply_from_completion(text) == Reply("Hi")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": {"message": "no such model"}}, "reported an error: no such model"),
        ({"choices": []}, "answered JSON that is not a chat completion (no choices)."),
        ([1], "answered JSON that is not a chat completion (no choices)."),
        ({"choices": [{"index": 0}]}, "answered a chat completion without a message."),
        (
            {"choices": [{"message": {"tool_calls": [{"id": "x"}]}}]},
            "answered a tool call without a function.",
        ),
    ],
)
def test_a_malformed_json_completion_names_the_problem(body: Any, message: str) -> None:
    """JSON that is not a usable chat completion raises ModelError saying why."""
    whole = f"The model API {message}"
    with pytest.raises(ModelError, match="^" + re.escape(whole) + "$"):
        reply_from_completion(body)
