"""SSE encoding: events, ids, heartbeats."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from pyctx_web.errors import ArgumentValueError
from pyctx_web.server.sse import HEARTBEAT, EventIds, event, id_key, with_heartbeats


def test_event_lines_end_in_crlf() -> None:
    """An event is its name, compact JSON data and an optional id, each line ending in CRLF."""
    assert (
        event("values", {"a": [1, "é"]}) == 'event: values\r\ndata: {"a":[1,"é"]}\r\n\r\n'.encode()
    )
    assert event("metadata", {"run_id": "r"}, id="5-0") == (
        b'event: metadata\r\ndata: {"run_id":"r"}\r\nid: 5-0\r\n\r\n'
    )


def test_event_name_must_be_one_line() -> None:
    """An event name with a line break is refused, naming the name."""
    with pytest.raises(
        ArgumentValueError, match=r"^an SSE event name must be one non-empty line, not 'a\\nb'$"
    ):
        event("a\nb", None)


def test_ids_strictly_increase_within_a_millisecond() -> None:
    """Ids made in the same millisecond, or when the clock goes back, still increase."""
    times = iter([7, 7, 7, 9, 8])
    ids = EventIds(lambda: next(times))
    made = [ids.next() for _ in range(5)]
    assert made == ["7-0", "7-1", "7-2", "9-0", "9-1"]
    assert [id_key(i) for i in made] == sorted(id_key(i) for i in made)
    assert ids.last == "9-1"


def test_id_key_orders_minus_one_first_and_refuses_garbage() -> None:
    """'-1' sorts before every id; anything but 'ms-seq' is refused."""
    assert id_key("-1") < id_key("0-0") < id_key("10-2") < id_key("10-10")
    with pytest.raises(ArgumentValueError, match=r"^an event id is 'ms-seq' or '-1', not 'abc'$"):
        id_key("abc")


def test_heartbeats_fill_silences_and_stop_with_the_source() -> None:
    """A silent source gets heartbeats between its chunks; the stream ends when it ends."""
    release = asyncio.Event()

    async def source() -> AsyncIterator[bytes]:
        yield b"a"
        await release.wait()
        yield b"b"

    async def main() -> list[bytes]:
        out: list[bytes] = []
        async for chunk in with_heartbeats(source(), interval=0.001):
            out.append(chunk)
            if chunk == HEARTBEAT:
                release.set()
        return out

    out = asyncio.run(main())
    assert out[0] == b"a"
    assert out[-1] == b"b"
    assert set(out[1:-1]) == {HEARTBEAT}
    assert len(out) >= 3


def test_closing_the_heartbeat_stream_closes_the_source() -> None:
    """A client that stops reading closes the source (its finally runs)."""
    closed: list[bool] = []

    async def source() -> AsyncIterator[bytes]:
        try:
            yield b"a"
            await asyncio.Event().wait()
            yield b"never"
        finally:
            closed.append(True)

    async def main() -> None:
        stream = with_heartbeats(source(), interval=0.001)
        assert await anext(stream) == b"a"
        assert await anext(stream) == HEARTBEAT
        await stream.aclose()

    asyncio.run(main())
    assert closed == [True]


def test_chunks_ready_together_come_out_as_one() -> None:
    """Chunks the source gave while the stream's reader waited reach it joined, in order."""

    async def source() -> AsyncIterator[bytes]:
        for part in (b"a", b"b", b"c"):
            yield part

    async def main() -> list[bytes]:
        return [chunk async for chunk in with_heartbeats(source(), interval=5)]

    assert asyncio.run(main()) == [b"abc"]
