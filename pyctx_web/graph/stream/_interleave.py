"""Reading several streams of a sync event-stream run in the order their items were pushed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pyctx_web.errors import ArgumentTypeError, UsageError
from pyctx_web.graph.stream.stream_channel import StreamChannel

__all__ = ["interleave"]


def _subscribed(
    extensions: Mapping[str, Any], names: tuple[str, ...]
) -> dict[str, StreamChannel[Any]]:
    channels: dict[str, StreamChannel[Any]] = {}
    for name in names:
        channel = extensions[name]
        if not isinstance(channel, StreamChannel):
            raise ArgumentTypeError(
                f"interleave() requires StreamChannel projections, "
                f"got {type(channel).__name__} for {name!r}"
            )
        if channel._is_async is not False:
            raise ArgumentTypeError(f"StreamChannel {name!r} is not bound to a sync run")
        if channel._subscribed:
            raise UsageError(
                f"StreamChannel {name!r} already has a subscriber; use .tee(n) for fan-out."
            )
        channels[name] = channel
    for channel in channels.values():
        channel._claim(True)
    return channels


def _earliest(channels: dict[str, StreamChannel[Any]], done: set[str]) -> str | None:
    """The stream whose first buffered item was pushed first; marks the ended ones done."""
    best: tuple[int, str] | None = None
    for name, channel in channels.items():
        if name in done:
            continue
        if channel._items:
            stamp = channel._items[0][0]
            if best is None or stamp < best[0]:
                best = (stamp, name)
        elif channel._closed:
            if channel._error is not None:
                raise channel._error
            done.add(name)
    return None if best is None else best[1]


def interleave(
    extensions: Mapping[str, Any],
    names: tuple[str, ...],
    pump_of: Callable[[], Callable[[], bool] | None],
) -> Iterator[tuple[str, Any]]:
    """``(name, item)`` from the streams ``names`` in push order, driving the run (``pump_of()``
    gives what drives it)."""
    channels = _subscribed(extensions, names)
    done: set[str] = set()
    try:
        while len(done) < len(channels):
            name = _earliest(channels, done)
            if name is not None:
                yield name, channels[name]._items.popleft()[1]
                continue
            pump = pump_of()
            if len(done) < len(channels) and (pump is None or not pump()):
                _earliest(channels, done)
                if not any(channels[n]._items for n in channels if n not in done):
                    return
    finally:
        for channel in channels.values():
            channel._claim(False)
