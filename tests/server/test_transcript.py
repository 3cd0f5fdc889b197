"""The transcript normalizer and SSE parser of the server tier, on hand-made exchanges."""

from __future__ import annotations

import json

import pytest

from tests.server.transcript import Exchange, Normalizer, SseEvent, parse_sse, render

THREAD = "1f0c2d4e-5a6b-7c8d-9e0f-a1b2c3d4e5f6"
RUN = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"
INTERRUPT = "0123456789abcdef0123456789abcdef"


def test_ids_are_numbered_in_order_of_first_appearance() -> None:
    """The same id gets the same placeholder everywhere, numbered by first appearance."""
    normalizer = Normalizer()
    data = {
        "thread_id": THREAD,
        "path": f"/threads/{THREAD}/runs/{RUN}",
        "ns": f"child:{RUN.upper()}",
        INTERRUPT: [THREAD],
    }
    assert normalizer.data(data) == {
        "thread_id": "<id:1>",
        "path": "/threads/<id:1>/runs/<id:2>",
        "ns": "child:<id:2>",
        "<id:3>": ["<id:1>"],
    }


def test_times_server_address_and_dropped_members() -> None:
    """Times become <time>, the server's address <server>, and dropped members vanish."""
    normalizer = Normalizer("http://127.0.0.1:8123/", frozenset({"langgraph_version"}))
    data = {
        "created_at": "2026-11-27T10:50:30.297907+00:00",
        "ts": "2026-11-27T10:50:30Z",
        "metadata": {"langgraph_version": "1.2.24", "url": "http://127.0.0.1:8123"},
    }
    assert normalizer.data(data) == {
        "created_at": "<time>",
        "ts": "<time>",
        "metadata": {"url": "<server>"},
    }


def test_values_that_are_not_ids_are_kept() -> None:
    """Short hex strings, longer hex strings and numbers are not taken for ids."""
    normalizer = Normalizer()
    data = ["cafe", "0123456789abcdef0123456789abcdef00", 1.5, None, True]
    assert normalizer.data(data) == data


def test_sse_parser_joins_data_lines_and_skips_comments() -> None:
    """Events end at a blank line, multi-line data is joined, heartbeats are left out."""
    body = 'event: metadata\r\ndata: {"a":\r\ndata: 1}\r\nid: 5-0\r\n\r\n: heartbeat\r\n\r\n'
    body += "event: values\ndata: []\n"
    events = list(parse_sse(iter(body.splitlines())))
    assert events == [SseEvent("metadata", {"a": 1}, "5-0"), SseEvent("values", [], None)]


def test_sse_parser_rejects_data_that_is_not_json() -> None:
    """An event whose data is not JSON is an error, not a silently dropped event."""
    with pytest.raises(json.JSONDecodeError):
        list(parse_sse(iter(["event: values", "data: {", ""])))


def test_render_numbers_event_ids_and_keeps_replay_from_start() -> None:
    """SSE event ids get <event:N> placeholders; a Last-Event-ID of -1 is shown as is."""
    stream = Exchange(
        "GET",
        f"/threads/{THREAD}/runs/{RUN}/stream",
        None,
        {"last-event-id": "-1"},
        200,
        {"content-type": "text/event-stream; charset=utf-8"},
        events=[SseEvent("metadata", {"run_id": RUN}, "17-0"), SseEvent("end", None, "17-1")],
    )
    again = Exchange(
        "GET", f"/threads/{THREAD}/runs/{RUN}/stream", None, {"last-event-id": "17-0"}, 200, {}
    )
    again.events = []
    assert render([stream, again]).splitlines() == [
        "> GET /threads/<id:1>/runs/<id:2>/stream",
        ">   last-event-id: -1",
        "< 200",
        "<   content-type: text/event-stream; charset=utf-8",
        '<   event metadata [<event:1>]: {"run_id": "<id:2>"}',
        "<   event end [<event:2>]: null",
        "",
        "> GET /threads/<id:1>/runs/<id:2>/stream",
        ">   last-event-id: <event:1>",
        "< 200",
    ]


def test_an_event_id_repeated_in_a_stream_gets_a_placeholder_of_its_own() -> None:
    """Events sharing an id in one stream are numbered apart, and alike in a replay of it."""
    events = [SseEvent("metadata", {}, "9-0"), SseEvent("values", {}, "9-0")]
    content = {"content-type": "text/event-stream"}
    first = Exchange("POST", "/runs/stream", None, {}, 200, content, events=events)
    replay = Exchange("GET", "/runs/x/stream", None, {}, 200, content, events=list(events))
    lines = [line for line in render([first, replay]).splitlines() if "event " in line]
    assert lines == [
        "<   event metadata [<event:1>]: {}",
        "<   event values [<event:2>]: {}",
        "<   event metadata [<event:1>]: {}",
        "<   event values [<event:2>]: {}",
    ]
