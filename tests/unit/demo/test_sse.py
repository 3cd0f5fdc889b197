"""The event-stream parser follows the HTML standard, whatever the pieces the text arrives in."""

from __future__ import annotations

import pytest
from sse import SSEEvent, SSEParser

SHAPES = {
    "lf": "data: one\n\ndata: two\n\n",
    "crlf": "data: one\r\n\r\ndata: two\r\n\r\n",
    "cr": "data: one\r\rdata: two\r\r",
    "mixed": "data: one\r\n\ndata: two\r\r\n",
}


def parse(*pieces: str) -> list[SSEEvent]:
    parser = SSEParser()
    events = [event for piece in pieces for event in parser.feed(piece)]
    return events + parser.close()


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_lf_cr_and_crlf_end_lines(text: str) -> None:
    """LF, CR and CRLF each end a line, and a blank line dispatches the event."""
    assert [e.data for e in parse(text)] == ["one", "two"]


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_split_anywhere_gives_the_same_events(text: str) -> None:
    """Every split into two or three pieces, between a CR and its LF too, gives the same events."""
    whole = parse(text)
    for i in range(len(text) + 1):
        assert parse(text[:i], text[i:]) == whole
        for j in range(i, len(text) + 1):
            assert parse(text[:i], text[i:j], text[j:]) == whole


def test_cr_then_lf_in_the_next_piece_is_one_line_end() -> None:
    """A CR ending a piece and an LF starting the next make one line end, not a blank line."""
    parser = SSEParser()
    assert parser.feed("data: a\r") == []
    assert parser.feed("\ndata: b\r") == []
    assert parser.feed("\n\r\n") == [SSEEvent("a\nb")]


def test_multi_line_data_is_joined_with_newlines() -> None:
    """The data lines of one event are joined with LF; an empty data line adds an empty line."""
    assert parse("data: a\ndata:b\ndata\ndata:  c\n\n") == [SSEEvent("a\nb\n\n c")]


def test_comments_and_unknown_fields_are_ignored() -> None:
    """Lines starting with a colon, and unknown fields, change nothing."""
    text = ": keep-alive\n:\nfoo: bar\ndata: x\n: between\n\n"
    assert parse(text) == [SSEEvent("x")]


def test_event_id_and_retry_fields() -> None:
    """event names the event once; the id carries over to later events; retry takes digits only."""
    text = "event: error\nid: 7\nretry: 1500\ndata: a\n\nretry: 1s\ndata: b\n\nid\ndata: c\n\n"
    assert parse(text) == [
        SSEEvent("a", "error", "7", 1500),
        SSEEvent("b", "message", "7", None),
        SSEEvent("c", "message", "", None),
    ]


def test_an_id_holding_nul_is_ignored() -> None:
    """An id field whose value holds NUL leaves the last event id as it was."""
    assert parse("id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n")[1].id == "1"


def test_only_one_space_after_the_colon_is_dropped() -> None:
    """One leading space of a value is dropped; a second one, and tabs, are kept."""
    assert parse("data:  two\n\ndata:\tt\n\n") == [SSEEvent(" two"), SSEEvent("\tt")]


def test_an_event_without_data_is_not_dispatched() -> None:
    """A blank line after fields without data dispatches nothing and resets the event name."""
    assert parse("event: ping\n\ndata: x\n\n") == [SSEEvent("x")]


def test_a_last_event_without_a_final_newline_is_dispatched_at_close() -> None:
    """The stream's last event is dispatched at close when no blank line (or no newline) ends it."""
    assert parse("data: a\n\ndata: [DONE]") == [SSEEvent("a"), SSEEvent("[DONE]")]
    assert parse("data: [DONE]\n") == [SSEEvent("[DONE]")]
    assert parse("data: [DONE]\r") == [SSEEvent("[DONE]")]


def test_a_leading_byte_order_mark_is_skipped() -> None:
    """A U+FEFF that starts the stream is not part of the first field name."""
    assert parse("\ufeff", "data: a\n\n") == [SSEEvent("a")]


def test_feed_after_close_is_an_error() -> None:
    """Feeding a closed parser raises ValueError."""
    parser = SSEParser()
    parser.close()
    with pytest.raises(ValueError, match=r"^feed\(\) after close\(\)$"):
        parser.feed("data: a\n\n")
