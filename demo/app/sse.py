"""Server-sent events, parsed as the HTML standard's event-stream interpretation says.

Feed :class:`SSEParser` the decoded text in pieces split anywhere (between a CR
and its LF too); it returns the events each piece completes. Lines end with LF,
CR or CRLF; ``:`` lines are comments; ``data:`` lines of one event are joined
with ``"\\n"``; one space after the colon is dropped; a line without a colon is
a field with an empty value; a blank line dispatches the event. Unlike the
standard, :meth:`SSEParser.close` also dispatches a last event that the stream
ended without a blank line after, since some APIs end their stream that way.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SSEEvent", "SSEParser"]


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event."""

    data: str
    """The ``data:`` lines, joined with ``"\\n"``."""
    event: str = "message"
    """The ``event:`` field, ``"message"`` when the event named none."""
    id: str = ""
    """The last event id the stream set (it carries over to later events)."""
    retry: int | None = None
    """The reconnection time in milliseconds, when this event's ``retry:`` field set one."""


class SSEParser:
    """An incremental event-stream parser: :meth:`feed` pieces of text, then :meth:`close`."""

    def __init__(self) -> None:
        self._pending = ""  # text after the last complete line
        self._started = False  # whether the byte order mark could still come
        self._data: list[str] = []
        self._event = ""
        self._last_id = ""
        self._retry: int | None = None
        self._closed = False

    def feed(self, text: str) -> list[SSEEvent]:
        """The events that ``text``, appended to what came before, completes."""
        if self._closed:
            raise ValueError("feed() after close()")
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        self._pending += text
        events: list[SSEEvent] = []
        start = 0
        pending = self._pending
        while True:
            cr, lf = pending.find("\r", start), pending.find("\n", start)
            if cr < 0 and lf < 0:
                break
            if lf >= 0 and (cr < 0 or lf < cr):
                end, after = lf, lf + 1
            elif cr == len(pending) - 1:
                break  # a CR at the end: wait for the piece that says whether LF follows
            else:
                end = cr
                after = cr + 2 if pending[cr + 1] == "\n" else cr + 1
            self._line(pending[start:end], events)
            start = after
        self._pending = pending[start:]
        return events

    def close(self) -> list[SSEEvent]:
        """The events still held at the end of the stream, the last unterminated one too."""
        if self._closed:
            return []
        self._closed = True
        events: list[SSEEvent] = []
        if self._pending:
            line = self._pending.removesuffix("\r")
            self._pending = ""
            self._line(line, events)
        self._line("", events)
        return events

    def _line(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line.startswith(":"):
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)

    def _dispatch(self, events: list[SSEEvent]) -> None:
        data, event, retry = self._data, self._event, self._retry
        self._data, self._event, self._retry = [], "", None
        if not data:
            return
        events.append(SSEEvent("\n".join(data), event or "message", self._last_id, retry))
