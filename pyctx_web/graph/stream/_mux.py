"""The mux of an event-stream run: passes each event through the transformers, into the log.

Transformers are made from factories (``factory(scope)``), those marked
``before_builtins`` first, and each adds its streams to ``extensions`` (those of
a ``_native`` transformer are also attributes of the run). An event goes
through every transformer in that order, then into the main log unless one of
them dropped it. A named channel's pushes go to the log too (bypassing the
transformers). A subgraph's handle gets a mux of its own, made from the same
factories for the subgraph's scope (:meth:`StreamMux._make_child`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError, UsageError
from pyctx_web.graph.stream._types import (
    ProtocolEvent,
    StreamTransformer,
    transformer_requires_async,
)
from pyctx_web.graph.stream.stream_channel import StreamChannel

__all__ = ["StreamMux", "TransformerFactory"]

TransformerFactory: TypeAlias = Callable[[tuple[str, ...]], StreamTransformer]
"""Makes a transformer for a scope (``()`` for the root graph); a transformer class is one."""


class StreamMux:
    """The transformers of one run (or one subgraph's handle), its streams and its event log."""

    def __init__(
        self,
        transformers: list[StreamTransformer] | None = None,
        *,
        is_async: bool = False,
        factories: list[TransformerFactory] | None = None,
        scope: tuple[str, ...] = (),
        _assign_seq: bool = True,
    ) -> None:
        self.is_async = is_async
        self.scope: tuple[str, ...] = scope
        self._assign_seq = _assign_seq
        self._events: StreamChannel[ProtocolEvent] = StreamChannel()
        self._events._bind(is_async=is_async)
        self._events._bind_mux(self)
        self._transformers: list[StreamTransformer] = []
        self._channels: list[StreamChannel[Any]] = []
        self._seq = 0
        self._push_seq = 0
        self.extensions: dict[str, Any] = {}
        self.native_keys: set[str] = set()
        self._projection_owners: dict[str, str] = {}
        self._transformer_by_key: dict[str, StreamTransformer] = {}
        self._factories = list(factories) if factories is not None else None
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None
        # Factories' transformers reach subgraph scopes too; ready-made ones stay here.
        made = [factory(scope) for factory in factories or ()]
        for group in (made, list(transformers or ())):
            early = [t for t in group if getattr(t, "before_builtins", False)]
            for transformer in [*early, *(t for t in group if t not in early)]:
                self._register(transformer)

    def transformer_by_key(self, key: str) -> StreamTransformer | None:
        """The transformer that added the stream ``key``."""
        return self._transformer_by_key.get(key)

    def _next_push_seq(self) -> int:
        self._push_seq += 1
        return self._push_seq

    def bind_pump(self, fn: Callable[[], bool]) -> None:
        """Have this mux's streams (and transformers that ask) drive the run with ``fn``."""
        self._pump_fn = fn
        for channel in [self._events, *self._channels]:
            channel._set_pumps(pump=fn)
        for transformer in self._transformers:
            bind = getattr(transformer, "_bind_pump", None)
            if bind is not None:
                bind(fn)

    def bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        """The async form of :meth:`bind_pump`."""
        self._apump_fn = fn
        for channel in [self._events, *self._channels]:
            channel._set_pumps(apump=fn)
        for transformer in self._transformers:
            bind = getattr(transformer, "_bind_apump", None)
            if bind is not None:
                bind(fn)

    def _make_child(self, scope: tuple[str, ...]) -> StreamMux:
        """A mux for the subgraph at ``scope``: fresh transformers, driven by this run's pump."""
        if self._factories is None:
            raise UsageError(
                "StreamMux._make_child needs a mux made with factories=: "
                "ready-made transformers cannot be made again for another scope"
            )
        child = StreamMux(
            factories=self._factories, is_async=self.is_async, scope=scope, _assign_seq=False
        )
        if self._pump_fn is not None:
            child.bind_pump(self._pump_fn)
        if self._apump_fn is not None:
            child.bind_apump(self._apump_fn)
        return child

    def _register(self, transformer: StreamTransformer) -> None:
        if transformer_requires_async(transformer) and not self.is_async:
            raise UsageError(
                f"{type(transformer).__name__} requires an async run — it overrides "
                "aprocess/afinalize/afail or sets requires_async=True. "
                "Use astream_events(), not stream_events()."
            )
        projection = transformer.init()
        if not isinstance(projection, dict):
            raise ArgumentTypeError(
                f"StreamTransformer.init() must return a dict, got {type(projection).__name__}"
            )
        taken = sorted(set(projection) & set(self.extensions))
        if taken:
            owners = ", ".join(
                f"{key!r} (owned by {self._projection_owners[key]})" for key in taken
            )
            raise ArgumentValueError(
                f"Transformer {type(transformer).__name__} returned projection keys that "
                f"conflict with already-registered keys: {owners}"
            )
        native = bool(getattr(transformer, "_native", False))
        self._transformers.append(transformer)
        for value in projection.values():
            if isinstance(value, StreamChannel):
                self._adopt(value, native)
        self.extensions.update(projection)
        for key in projection:
            self._projection_owners[key] = type(transformer).__name__
            self._transformer_by_key[key] = transformer
        if native:
            self.native_keys.update(projection)
        transformer._on_register(self)

    def _adopt(self, channel: StreamChannel[Any], native: bool) -> None:
        channel._bind(is_async=self.is_async)
        channel._bind_mux(self)
        self._channels.append(channel)
        if channel.name is not None:
            method = channel.name if native else f"custom:{channel.name}"
            channel._wire(lambda item: self._forward(method, item))

    def _append(self, event: ProtocolEvent) -> None:
        if self._assign_seq:
            self._seq += 1
            event["seq"] = self._seq
        self._events.push(event)

    def push(self, event: ProtocolEvent) -> None:
        """Pass ``event`` through every transformer; log it unless one dropped it."""
        keep = True
        for transformer in self._transformers:
            if not transformer.process(event):
                keep = False
        if keep:
            self._append(event)

    async def apush(self, event: ProtocolEvent) -> None:
        """The async form of :meth:`push` (each transformer's ``aprocess``, in turn)."""
        keep = True
        for transformer in self._transformers:
            if not await transformer.aprocess(event):
                keep = False
        if keep:
            self._append(event)

    def _end_channels(self, err: BaseException | None) -> None:
        for channel in self._channels:
            if not channel._closed:
                channel.close() if err is None else channel.fail(err)
        if err is None:
            self._events.close()
        elif not self._events._closed:
            self._events.fail(err)

    def close(self) -> None:
        """End the run well: finalize every transformer, close every stream and the log.

        The first error a ``finalize`` raises is raised after all are closed.
        """
        first: BaseException | None = None
        for transformer in self._transformers:
            try:
                transformer.finalize()
            except BaseException as err:  # raised below, once everything is closed
                first = first or err
        self._end_channels(None)
        if first is not None:
            raise first

    def fail(self, err: BaseException) -> None:
        """End the run with ``err``: every transformer's ``fail``, every stream failed."""
        for transformer in self._transformers:
            try:
                transformer.fail(err)
            except Exception:  # the run's own error is what readers get
                continue
        self._end_channels(err)

    async def aclose(self) -> None:
        """The async form of :meth:`close`, once the transformers' scheduled tasks are done."""
        pending = self._scheduled()
        if pending:
            results = await asyncio.gather(*pending, return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and not isinstance(
                    result, asyncio.CancelledError
                ):
                    raise result
        first: BaseException | None = None
        for transformer in self._transformers:
            try:
                await transformer.afinalize()
            except BaseException as err:  # raised below, once everything is closed
                first = first or err
        self._end_channels(None)
        if first is not None:
            raise first

    async def afail(self, err: BaseException) -> None:
        """The async form of :meth:`fail`; the transformers' scheduled tasks are cancelled."""
        pending = self._scheduled()
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        for transformer in self._transformers:
            try:
                await transformer.afail(err)
            except Exception:  # the run's own error is what readers get
                continue
        self._end_channels(err)

    def _scheduled(self) -> list[asyncio.Task[Any]]:
        return [
            task
            for transformer in self._transformers
            for task in getattr(transformer, "_stream_scheduled_tasks", ())
            if not task.done()
        ]

    def _forward(self, method: str, item: Any) -> None:
        """Log ``item``, pushed to the channel ``method`` names, as an event of its own."""
        event: ProtocolEvent = {
            "type": "event",
            "method": method,
            "params": {"namespace": [], "timestamp": int(time.time() * 1000), "data": item},
        }
        self._append(event)


publish("pyctx_web.graph.stream", StreamMux)
