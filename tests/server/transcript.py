"""Transcripts of client flows against a LangGraph Server API, normalized to compare servers.

A :class:`Recorder` sends requests over real HTTP (httpx) to one server and keeps each
exchange: the request (method, path with its query, JSON body, the ``Last-Event-ID``
header) and the response (status, the headers a client reads, and its JSON body or its
server-sent events). The flow gets the raw data back, with the server's own ids, to use in
its next requests.

:func:`render` writes a transcript as text in which every id is replaced by a placeholder
numbered in order of first appearance (``<id:1>``, ``<id:2>``...): UUIDs (thread, run,
checkpoint, task, message and assistant ids) and the 32-hex interrupt ids, wherever they
occur (values, object keys, paths in headers, subgraph namespaces such as
``child:<id:7>``). SSE event ids become ``<event:N>`` the same way (an id repeated within
one stream counting as a new one), ISO 8601 times become
``<time>``. Two servers that behave alike give the same text, whatever ids they draw.
"""

from __future__ import annotations

import copy
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

# The response headers a LangGraph client reads (the SDK's onCreated and reconnection).
SELECTED_HEADERS = ("content-type", "content-location", "location")

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ID = re.compile(rf"(?<![0-9a-fA-F-])(?:{_UUID}|[0-9a-f]{{32}})(?![0-9a-fA-F-])")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")


@dataclass
class SseEvent:
    """One server-sent event: its name, its parsed JSON data and its id (``None`` if none)."""

    event: str
    data: Any
    id: str | None = None


@dataclass
class Exchange:
    """One request and its response, as a client sees them."""

    method: str
    path: str
    body: Any
    request_headers: dict[str, str]
    status: int
    headers: dict[str, str]
    json: Any = None
    events: list[SseEvent] | None = None


@dataclass
class Recorder:
    """Sends requests to the server at ``base_url`` and records every exchange."""

    base_url: str
    exchanges: list[Exchange] = field(default_factory=list)
    timeout: float = 60.0
    # A value unique to this recorder, for the metadata of the threads a flow makes, so
    # that its searches find only its own threads on a server that other flows used too.
    tag: str = field(default_factory=lambda: str(uuid.uuid4()))

    def __post_init__(self) -> None:
        self._client = httpx.Client(base_url=self.base_url, timeout=self.timeout)

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def json(self, method: str, path: str, body: Any = None) -> Any:
        """Send a request whose response is JSON (or empty), record it and return the data."""
        response = self._client.request(method, path, **_body_arguments(body))
        data = response.json() if response.content else None
        self.exchanges.append(_exchange(method, path, body, {}, response, json_data=data))
        return data

    def peek(self, method: str, path: str, body: Any = None) -> Any:
        """Send a request whose response is JSON and return the data, without recording it."""
        response = self._client.request(method, path, **_body_arguments(body))
        response.raise_for_status()
        return response.json() if response.content else None

    def wait_for(self, path: str, ready: Callable[[Any], bool], limit: float = 30.0) -> Any:
        """GET ``path`` unrecorded until ``ready`` holds for its JSON (how often varies)."""
        deadline = time.monotonic() + limit
        while True:
            data = self.peek("GET", path)
            if ready(data):
                return data
            if time.monotonic() > deadline:
                raise TimeoutError(f"GET {path} still answers {data!r} after {limit} s")
            time.sleep(0.05)

    def stream(
        self,
        method: str,
        path: str,
        body: Any = None,
        last_event_id: str | None = None,
        stop_after: int | None = None,
    ) -> list[SseEvent]:
        """Send a request answered with server-sent events, read them all, record and return them.

        With ``stop_after``, the client reads that many events and then closes the
        connection (a client that goes away). A response that is not an event stream (an
        error before streaming) is recorded with its JSON body, and no events are returned.
        """
        headers = {} if last_event_id is None else {"last-event-id": last_event_id}
        kwargs = _body_arguments(body)
        events: list[SseEvent] = []
        with self._client.stream(method, path, headers=headers, **kwargs) as response:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                response.read()
                data = response.json() if response.content else None
                self.exchanges.append(
                    _exchange(method, path, body, headers, response, json_data=data)
                )
                return []
            for event in parse_sse(response.iter_lines()):
                events.append(event)
                if stop_after is not None and len(events) >= stop_after:
                    break
        self.exchanges.append(_exchange(method, path, body, headers, response, events=events))
        return events


def _body_arguments(body: Any) -> dict[str, Any]:
    return {} if body is None else {"json": body}


def _exchange(
    method: str,
    path: str,
    body: Any,
    request_headers: dict[str, str],
    response: httpx.Response,
    *,
    json_data: Any = None,
    events: list[SseEvent] | None = None,
) -> Exchange:
    headers = {
        name: response.headers[name] for name in SELECTED_HEADERS if name in response.headers
    }
    # A copy of the body: the flow may change its dict for its next request.
    return Exchange(
        method,
        path,
        copy.deepcopy(body),
        request_headers,
        response.status_code,
        headers,
        json_data,
        events,
    )


def parse_sse(lines: Iterator[str]) -> Iterator[SseEvent]:
    """The events of an SSE body given line by line; comments (heartbeats) are left out.

    ``data`` lines of one event are joined with newlines and parsed as JSON, as the SDK does.
    """
    name: str | None = None
    data: list[str] = []
    event_id: str | None = None
    for line in lines:
        if not line:
            if name is not None or data:
                yield SseEvent(name or "message", json.loads("\n".join(data)), event_id)
            name, data, event_id = None, [], None
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if key == "event":
            name = value
        elif key == "data":
            data.append(value)
        elif key == "id":
            event_id = value
    if name is not None or data:
        yield SseEvent(name or "message", json.loads("\n".join(data)), event_id)


class Normalizer:
    """Replaces ids by placeholders numbered in order of first appearance, and times by one.

    ``base_url`` (the server's own address, which it may echo, as LangGraph Server does in
    checkpoint metadata) becomes ``<server>``. Object members named in ``drop`` are left out
    wherever they are, before any id in them is numbered.
    """

    def __init__(self, base_url: str | None = None, drop: frozenset[str] = frozenset()) -> None:
        self._ids: dict[str, str] = {}
        self._events: dict[tuple[str, int], str] = {}
        self._base_url = base_url.rstrip("/") if base_url else None
        self._drop = drop

    def text(self, value: str) -> str:
        """``value`` with the server's address, its ids and its times replaced."""
        if self._base_url:
            value = value.replace(self._base_url, "<server>")
        value = _TIME.sub("<time>", value)
        return _ID.sub(self._id, value)

    def _id(self, match: re.Match[str]) -> str:
        raw = match.group(0).lower()
        if raw not in self._ids:
            self._ids[raw] = f"<id:{len(self._ids) + 1}>"
        return self._ids[raw]

    def event_id(self, value: str, occurrence: int = 0) -> str:
        """A placeholder for an SSE event id, numbered in order of first appearance.

        ``occurrence`` counts the earlier events of the same stream with the same id: the
        real server's ids are milliseconds, shared by the events it sends within one, and
        which of them share one is timing, so each gets its own placeholder (the second
        event with id ``x`` in a stream is the same event in every stream that replays it).
        """
        key = (value, occurrence)
        if key not in self._events:
            self._events[key] = f"<event:{len(self._events) + 1}>"
        return self._events[key]

    def data(self, value: Any) -> Any:
        """JSON data with every string (object keys too) normalized."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                self.text(str(key)): self.data(item)
                for key, item in value.items()
                if key not in self._drop
            }
        if isinstance(value, list):
            return [self.data(item) for item in value]
        return value


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def render(
    exchanges: list[Exchange], base_url: str | None = None, drop: frozenset[str] = frozenset()
) -> str:
    """The normalized text of a transcript: one block per exchange, one line per event.

    ``base_url`` and ``drop`` are as :class:`Normalizer` takes them.
    """
    normalizer = Normalizer(base_url, drop)
    lines: list[str] = []
    for exchange in exchanges:
        lines.append(f"> {exchange.method} {normalizer.text(exchange.path)}")
        for name, value in exchange.request_headers.items():
            # "-1" (replay from the start) is a value of the API, not an id.
            shown = normalizer.event_id(value) if value != "-1" else value
            lines.append(f">   {name}: {shown}")
        if exchange.body is not None:
            lines.append(f">   {_dump(normalizer.data(exchange.body))}")
        lines.append(f"< {exchange.status}")
        for name, value in exchange.headers.items():
            lines.append(f"<   {name}: {normalizer.text(value)}")
        if exchange.events is None:
            if exchange.json is not None:
                lines.append(f"<   {_dump(normalizer.data(exchange.json))}")
        else:
            seen: dict[str, int] = {}
            for event in exchange.events:
                shown_id = ""
                if event.id is not None:
                    shown_id = f" [{normalizer.event_id(event.id, seen.get(event.id, 0))}]"
                    seen[event.id] = seen.get(event.id, 0) + 1
                lines.append(
                    f"<   event {normalizer.text(event.event)}{shown_id}: "
                    f"{_dump(normalizer.data(event.data))}"
                )
        lines.append("")
    return "\n".join(lines)
