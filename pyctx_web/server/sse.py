"""Server-sent events as the LangGraph Server sends them.

Each event is ``event: NAME\\r\\ndata: JSON\\r\\n[id: ID\\r\\n]\\r\\n``; a comment
``: heartbeat`` keeps an idle stream alive (clients learn their idle watchdog
from it). Event ids are ``"<epoch ms>-<seq>"`` and strictly increasing within
one :class:`EventIds`, so a client that resumes after an id (``Last-Event-ID``)
misses no sibling made in the same millisecond.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import suppress
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError

__all__ = [
    "HEARTBEAT",
    "HEARTBEAT_SECONDS",
    "EventIds",
    "event",
    "id_key",
    "raw_event",
    "with_heartbeats",
]

HEARTBEAT: Final = b": heartbeat\r\n\r\n"
"""The comment sent on an idle stream."""

HEARTBEAT_SECONDS: Final = 5.0
"""How long a stream may stay silent before a heartbeat is sent, as the real server."""


def event(name: str, data: Any, id: str | None = None) -> bytes:
    """One SSE event: ``data`` as compact JSON (non-ASCII kept), ``id`` when given."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return raw_event(name, payload.encode(), id)


def raw_event(name: str, data: bytes, id: str | None = None) -> bytes:
    """One SSE event whose data is already JSON (compact: one line), ``id`` when given."""
    if not name or any(c in name for c in "\r\n"):
        raise ArgumentValueError(f"an SSE event name must be one non-empty line, not {name!r}")
    if b"\n" in data or b"\r" in data:
        raise ArgumentValueError("an SSE event's data must be one line of JSON")
    head = f"event: {name}\r\ndata: ".encode()
    tail = b"\r\n\r\n" if id is None else f"\r\nid: {id}\r\n\r\n".encode()
    return head + data + tail


def id_key(event_id: str) -> tuple[int, int]:
    """The order of an event id ``"ms-seq"`` (``"-1"`` is before every id)."""
    if event_id == "-1":
        return (-1, 0)
    ms, sep, seq = event_id.partition("-")
    if not sep or not ms.isdigit() or not seq.isdigit():
        raise ArgumentValueError(f"an event id is 'ms-seq' or '-1', not {event_id!r}")
    return (int(ms), int(seq))


class EventIds:
    """Strictly increasing ``"ms-seq"`` event ids, from a clock in milliseconds."""

    def __init__(self, clock: Callable[[], int] | None = None) -> None:
        self._clock = clock or (lambda: time.time_ns() // 1_000_000)
        self._last = (-1, 0)

    def next(self) -> str:
        """The next id: this millisecond's first, or the last one's successor."""
        ms = self._clock()
        last_ms, last_seq = self._last
        self._last = (ms, 0) if ms > last_ms else (last_ms, last_seq + 1)
        return f"{self._last[0]}-{self._last[1]}"

    @property
    def last(self) -> str | None:
        """The last id given, or None before the first."""
        return None if self._last[0] < 0 else f"{self._last[0]}-{self._last[1]}"


async def with_heartbeats(
    chunks: AsyncIterator[bytes], interval: float = HEARTBEAT_SECONDS
) -> AsyncGenerator[bytes, None]:
    """``chunks``, with :data:`HEARTBEAT` after every ``interval`` seconds without one.

    The source is read by one task of its own, ahead of the reader: chunks that
    arrived while the reader was busy come out joined as one (an SSE stream's
    chunk boundaries mean nothing), so a fast run costs its reader one send per
    batch rather than per event. A source error is raised after its chunks.
    Closing this iterator closes ``chunks`` (a client that leaves stops the run).
    """
    if interval <= 0:
        raise ArgumentValueError(f"the heartbeat interval must be positive, not {interval!r}")
    loop = asyncio.get_running_loop()
    reader = _Reader(chunks)
    last = loop.time()
    # One timer at a time, set again only once it fired (not one per chunk): Pyodide's
    # loop makes each a JavaScript timer, which may fire a little before ``due``.
    timer: asyncio.Handle | None = None

    def beat() -> None:
        nonlocal timer
        timer = None
        reader.ready.set()

    try:
        while True:
            if reader.buffer:
                batch = b"".join(reader.buffer)
                reader.buffer.clear()
                last = loop.time()
                yield batch
                continue
            if reader.task.done():
                reader.raise_failure()
                return
            now, due = loop.time(), last + interval
            if now >= due:
                last = now
                yield HEARTBEAT
                continue
            if timer is None:
                # A delay, not ``call_at(due)``: the clock has moved on since ``now``, and
                # Pyodide's loop refuses a time in the past where asyncio's runs it at once.
                timer = loop.call_later(max(0.0, due - loop.time()), beat)
            reader.ready.clear()
            await reader.ready.wait()
    finally:
        if timer is not None:
            timer.cancel()
        await reader.close()


class _Reader:
    """The task reading a stream's source into ``buffer``; ``ready`` is set at each chunk."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self.chunks = chunks
        self.buffer: list[bytes] = []
        self.ready = asyncio.Event()
        self.failure: Exception | None = None
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            async for chunk in self.chunks:
                self.buffer.append(chunk)
                self.ready.set()
        except Exception as error:  # raised to the stream's reader once it has the chunks
            self.failure = error
        finally:
            self.ready.set()

    def raise_failure(self) -> None:
        """Raise what the source raised, if it did."""
        if self.failure is not None:
            raise self.failure

    async def close(self) -> None:
        """Stop reading (the source's pending ``await`` is cancelled) and close the source."""
        if not self.task.done():
            self.task.cancel()
            # The cancellation is the point here: what it raises is expected.
            with suppress(asyncio.CancelledError):
                await self.task
        aclose = getattr(self.chunks, "aclose", None)
        if aclose is not None:
            await aclose()
