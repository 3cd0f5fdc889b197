"""A stream channel: the items one reader gets from an event-stream run, in order.

A transformer pushes items; one reader iterates them (``for`` on a sync run,
``async for`` on an async one). When the reader has taken everything pushed so
far, iterating asks the run for its next event (the run's *pump*), so reading is
what drives the run. Items pushed before anyone reads are kept only once a
reader subscribed, except that a named channel also forwards each item to its
run's main event log. ``tee(n)`` / ``atee(n)`` give several readers.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Generic, Protocol, TypeVar

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, UsageError

__all__ = ["StreamChannel"]

T = TypeVar("T")


class _Stamper(Protocol):
    """The mux of a channel: it numbers the items its channels are pushed, in push order."""

    def _next_push_seq(self) -> int: ...


class StreamChannel(Generic[T]):
    """Items pushed by a transformer, read once, in order, by one subscriber.

    ``name`` makes the mux forward each pushed item to the run's event log
    (method ``name`` for a built-in transformer's channel, ``custom:<name>``
    otherwise). ``maxlen`` (a positive int) is accepted; reading paces the run,
    so buffers stay small without it.
    """

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        if maxlen is not None and maxlen <= 0:
            raise ArgumentValueError("StreamChannel maxlen must be a positive int or None")
        self.name = name
        self._maxlen = maxlen
        self._items: deque[tuple[int, T]] = deque()
        self._closed = False
        self._error: BaseException | None = None
        self._is_async: bool | None = None
        self._subscribed = False
        self._request_more: Callable[[], bool] | None = None
        self._arequest_more: Callable[[], Awaitable[bool]] | None = None
        self._wire_fn: Callable[[T], None] | None = None
        self._mux: _Stamper | None = None

    def _bind(self, *, is_async: bool) -> None:
        """Fix whether the channel is read with ``for`` or ``async for`` (once)."""
        if self._is_async is not None:
            raise UsageError("StreamChannel is already bound")
        self._is_async = is_async

    def _bind_mux(self, mux: _Stamper) -> None:
        self._mux = mux

    def _set_pumps(
        self,
        pump: Callable[[], bool] | None = None,
        apump: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        """Have reading drive the run with ``pump`` (sync) and ``apump`` (async), when given."""
        if pump is not None:
            self._request_more = pump
        if apump is not None:
            self._arequest_more = apump

    def _claim(self, taken: bool) -> None:
        """Mark the channel as read by a subscriber (``interleave``) or free again."""
        self._subscribed = taken

    def _wire(self, fn: Callable[[T], None]) -> None:
        """Have each pushed item also go to ``fn`` (the mux's forwarding to its event log)."""
        self._wire_fn = fn

    def push(self, item: T) -> None:
        """Add ``item`` for the subscriber (if any) and forward it when the channel is named."""
        if self._subscribed:
            if self._closed:
                raise UsageError("Cannot push to a closed StreamChannel")
            stamp = self._mux._next_push_seq() if self._mux is not None else 0
            self._items.append((stamp, item))
        if self._wire_fn is not None:
            self._wire_fn(item)

    def close(self) -> None:
        """End the channel: the reader gets what is buffered, then stops."""
        self._closed = True

    def fail(self, err: BaseException) -> None:
        """End the channel with ``err``, raised to the reader after what is buffered."""
        self._error = err
        self._closed = True

    def _subscribe(self, want_async: bool) -> None:
        if self._is_async is None:
            raise ArgumentTypeError(
                "StreamChannel has not been bound yet. "
                "Register the transformer with a StreamMux first."
            )
        if self._is_async != want_async:
            raise ArgumentTypeError(
                "This StreamChannel is bound to async mode — use 'async for' instead."
                if self._is_async
                else "This StreamChannel is bound to sync mode — use 'for' instead."
            )
        if self._subscribed:
            raise UsageError("StreamChannel already has a subscriber; use .tee(n) for fan-out.")
        self._subscribed = True

    def __iter__(self) -> Iterator[T]:
        """Subscribe (once) and read the items, driving the run when none are buffered."""
        self._subscribe(False)
        return self._sync_items()

    def _sync_items(self) -> Iterator[T]:
        while True:
            if self._items:
                yield self._items.popleft()[1]
            elif self._closed:
                if self._error is not None:
                    raise self._error
                return
            elif (self._request_more is None or not self._request_more()) and not (
                self._items or self._closed
            ):
                return

    def __aiter__(self) -> AsyncIterator[T]:
        """Subscribe (once) and read the items, driving the run when none are buffered."""
        self._subscribe(True)
        return self._async_items()

    async def _async_items(self) -> AsyncIterator[T]:
        while True:
            if self._items:
                yield self._items.popleft()[1]
            elif self._closed:
                if self._error is not None:
                    raise self._error
                return
            elif (self._arequest_more is None or not await self._arequest_more()) and not (
                self._items or self._closed
            ):
                return

    def tee(self, n: int = 2) -> tuple[Iterator[T], ...]:
        """Subscribe and give ``n`` readers, each getting every item."""
        if n < 1:
            raise ArgumentValueError("tee() requires n >= 1")
        source = iter(self)
        queues: list[deque[T]] = [deque() for _ in range(n)]
        done: list[bool] = [False]

        def reader(mine: deque[T]) -> Iterator[T]:
            while True:
                if mine:
                    yield mine.popleft()
                    continue
                if done[0]:
                    return
                try:
                    item = next(source)
                except StopIteration:
                    done[0] = True
                    return
                for queue in queues:
                    queue.append(item)

        return tuple(reader(queue) for queue in queues)

    def atee(self, n: int = 2) -> tuple[AsyncIterator[T], ...]:
        """Subscribe and give ``n`` async readers, each getting every item."""
        if n < 1:
            raise ArgumentValueError("atee() requires n >= 1")
        source = aiter(self)
        queues: list[deque[T]] = [deque() for _ in range(n)]
        state: dict[str, Any] = {"done": False, "error": None}
        lock = asyncio.Lock()

        async def reader(mine: deque[T]) -> AsyncIterator[T]:
            while True:
                if mine:
                    yield mine.popleft()
                    continue
                if state["done"]:
                    if state["error"] is not None:
                        raise state["error"]
                    return
                async with lock:
                    if mine or state["done"]:
                        continue
                    try:
                        item = await anext(source)
                    except StopAsyncIteration:
                        state["done"] = True
                        continue
                    except Exception as err:  # given to every reader, in turn
                        state["done"], state["error"] = True, err
                        continue
                    for queue in queues:
                        queue.append(item)

        return tuple(reader(queue) for queue in queues)
