"""``stream_events(version="v3")`` / ``astream_events(version="v3")`` of a compiled graph.

The run streams the graph with the stream modes its transformers read (each
transformer's ``required_stream_modes``) and ``subgraphs=True``; each chunk
becomes an event of the run's mux. The transformers are the built-ins
(``values``, ``messages``, ``lifecycle``, ``subgraphs``), then those given to
``compile(transformers=...)``, then those of the call. Chat models called in
the graph's nodes stream LangChain's message events (``message-start``,
content blocks, ``message-finish``) on ``messages``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, Protocol

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._engine.options import MESSAGE_EVENTS_KEY
from pyctx_web.graph.stream._mux import StreamMux, TransformerFactory
from pyctx_web.graph.stream._types import ProtocolEvent, StreamTransformer
from pyctx_web.graph.stream.run_stream import AsyncGraphRunStream, GraphRunStream, to_event
from pyctx_web.graph.stream.transformers import (
    LifecycleTransformer,
    MessagesTransformer,
    SubgraphTransformer,
    ValuesTransformer,
)

__all__ = ["astream_events_v3", "stream_events_v3"]

_OWNED = ("stream_mode", "subgraphs")


class _Streamable(Protocol):
    stream_transformers: tuple[Any, ...]

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]: ...

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]: ...


def _refuse_owned(kwargs: Mapping[str, Any]) -> None:
    given = [key for key in _OWNED if key in kwargs]
    if given:
        raise ArgumentTypeError(
            f"stream_events(version='v3') / astream_events(version='v3') do not accept "
            f"{', '.join(given)}: the run sets them (stream_mode from its transformers, "
            "subgraphs=True for the subgraphs' handles)"
        )


def _factories(specs: Sequence[Any] | None) -> list[TransformerFactory]:
    """The transformer factories ``specs`` name; a ready-made transformer is refused."""
    made: list[TransformerFactory] = []
    for spec in specs or ():
        if isinstance(spec, StreamTransformer):
            raise ArgumentTypeError(
                "stream_events(version='v3') transformers must be scope-aware callables, "
                f"got pre-built instance {type(spec).__name__}. Pass the transformer class "
                "or a factory like `lambda scope: MyTransformer(scope, ...)`."
            )
        if not callable(spec):
            raise ArgumentTypeError(
                "stream_events(version='v3') transformers must be scope-aware callables, "
                f"got {type(spec).__name__}."
            )
        made.append(spec)
    return made


def _mux(graph: _Streamable, transformers: Sequence[Any] | None, is_async: bool) -> StreamMux:
    builtins: list[TransformerFactory] = [
        ValuesTransformer,
        MessagesTransformer,
        LifecycleTransformer,
        SubgraphTransformer,
    ]
    factories = [*builtins, *_factories(graph.stream_transformers), *_factories(transformers)]
    return StreamMux(factories=factories, is_async=is_async)


def _modes(mux: StreamMux) -> list[str]:
    modes: list[str] = []
    for transformer in mux._transformers:
        for mode in getattr(transformer, "required_stream_modes", ()):
            if mode not in modes:
                modes.append(mode)
    return modes


def _with_events(config: Mapping[str, Any] | None) -> dict[str, Any]:
    given = dict(config or {})
    given["configurable"] = {**(given.get("configurable") or {}), MESSAGE_EVENTS_KEY: True}
    return given


def _event(part: tuple[tuple[str, ...], str, Any]) -> ProtocolEvent:
    namespace, mode, data = part
    questions: Any = None
    if mode == "values" and isinstance(data, dict) and "__interrupt__" in data:
        data = dict(data)
        questions = data.pop("__interrupt__")
    event = to_event(namespace, mode, data)
    if questions:
        event["params"]["interrupts"] = tuple(questions)
    return event


def stream_events_v3(
    graph: _Streamable,
    input: Any,
    config: Mapping[str, Any] | None,
    transformers: Sequence[Any] | None,
    kwargs: dict[str, Any],
) -> GraphRunStream:
    """The sync event-stream run of ``graph`` (nothing runs until a stream is read)."""
    _refuse_owned(kwargs)
    mux = _mux(graph, transformers, is_async=False)
    parts = graph.stream(
        input, _with_events(config), stream_mode=_modes(mux), subgraphs=True, **kwargs
    )

    def events() -> Iterator[ProtocolEvent]:
        try:
            for part in parts:
                yield _event(part)
        finally:  # the run's abort() stops the graph's stream too
            close = getattr(parts, "close", None)
            if close is not None:
                close()

    return GraphRunStream(events(), mux)


async def astream_events_v3(
    graph: _Streamable,
    input: Any,
    config: Mapping[str, Any] | None,
    transformers: Sequence[Any] | None,
    kwargs: dict[str, Any],
) -> AsyncGraphRunStream:
    """The async event-stream run of ``graph`` (nothing runs until a stream is read)."""
    _refuse_owned(kwargs)
    mux = _mux(graph, transformers, is_async=True)
    parts = graph.astream(
        input, _with_events(config), stream_mode=_modes(mux), subgraphs=True, **kwargs
    )

    async def events() -> AsyncIterator[ProtocolEvent]:
        try:
            async for part in parts:
                yield _event(part)
        finally:  # the run's abort() stops the graph's stream too
            close = getattr(parts, "aclose", None)
            if close is not None:
                await close()

    return AsyncGraphRunStream(events(), mux)
