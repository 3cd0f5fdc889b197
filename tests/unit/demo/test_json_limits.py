"""The demo app refuses JSON from a model or the page that nests too deeply, with a clear error."""

from __future__ import annotations

import json
from typing import Any

import pytest
import worker_main
from http_policy import server_detail
from protocol import ModelError
from sdk_reply import tool_call
from sdk_transport import EventTapMethods
from worker_main import make_server

from pyctx_web.errors import JsonLimitError

DEEP = 100_000


def test_a_deep_stream_event_is_refused_before_the_sdk_parses_it() -> None:
    """A stream event nesting 100,000 arrays, in pieces, is refused when it ends, unparsed."""
    tap = EventTapMethods(None, None, None)
    event = b"data: " + b"[" * DEEP + b"]" * DEEP
    for start in range(0, len(event), 65_536):
        tap._watch(event[start : start + 65_536])
    with pytest.raises(
        JsonLimitError,
        match=r"^A stream event of the model API nests deeper than 256 levels; it was not parsed$",
    ):
        tap._watch(b"\r\n\r\n")


def test_deep_tool_call_arguments_are_a_model_error() -> None:
    """Tool-call arguments nesting 100,000 objects raise ModelError naming the tool."""
    with pytest.raises(
        ModelError,
        match=r"^The JSON of the arguments of the model's call of the tool 'ask_user' nests "
        r"deeper than 256 levels; it was not parsed$",
    ):
        tool_call("call_1", "ask_user", '{"a":' * DEEP + "1" + "}" * DEEP)


def test_a_deep_error_body_is_shown_as_text() -> None:
    """An error body too deep to parse is shown as its text's start."""
    assert server_detail("[" * DEEP) == "[" * 300


def test_a_deep_page_message_is_answered_with_an_error() -> None:
    """A page message nesting 100,000 arrays is answered with an error event; the worker lives."""
    posted: list[dict[str, Any]] = []
    worker = worker_main.DemoWorker(lambda text: posted.append(json.loads(text)), make_server())
    worker.receive("[" * DEEP + "]" * DEEP)
    worker.receive(json.dumps({"op": "nothing"}))
    assert [event["message"] for event in posted] == [
        "A message to the worker nests deeper than 256 levels; it was not parsed",
        "Unknown op 'nothing': expected configure_model or graph.",
    ]


def test_a_stored_tool_call_nested_100000_deep_is_refused_and_the_next_is_read() -> None:
    """A tool call in the thread's state whose JSON arguments nest 100,000 deep is refused with
    a ValueError naming the limit, before the parser's stack overflows; a plain one is read."""
    from messages import tool_calls

    def call(arguments: str) -> dict[str, Any]:
        function = {"name": "f", "arguments": arguments}
        return {"role": "assistant", "tool_calls": [{"id": "c1", "function": function}]}

    with pytest.raises(
        ValueError,
        match=r"^the JSON of a tool call's arguments nests deeper than 256 levels; "
        r"it was not parsed$",
    ):
        tool_calls(call("[" * DEEP + "]" * DEEP))
    assert tool_calls(call('{"x": "[[", "y": [1]}')) == [
        {"id": "c1", "name": "f", "arguments": {"x": "[[", "y": [1]}}
    ]
