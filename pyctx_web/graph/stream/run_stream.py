"""The handle of an event-stream run (``stream_events(version="v3")``) and of its subgraphs.

Nothing runs in the background: reading a stream of the run (``run.values``,
``run.messages``, a transformer's stream, the run itself for its raw events)
pulls the graph's next chunk when the stream has nothing buffered, turns it into
an event and passes it through the mux. ``run.output`` (``await run.output()``
on the async handle) runs the graph to its end and gives the last state.
A subgraph's handle (from ``run.subgraphs``) is driven by its root run's pump.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from types import MappingProxyType, TracebackType
from typing import Any, NoReturn

from pyctx_web.graph.stream._mux import StreamMux
from pyctx_web.graph.stream._types import ProtocolEvent
from pyctx_web.graph.stream.stream_channel import StreamChannel

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "GraphRunStream",
    "SubgraphRunStream",
    "to_event",
]


def to_event(namespace: tuple[str, ...], mode: str, data: Any) -> ProtocolEvent:
    """The event of a graph's stream chunk: ``data`` of ``mode`` from the graph at ``namespace``."""
    return {
        "type": "event",
        "method": mode,
        "params": {
            "namespace": list(namespace),
            "timestamp": int(time.time() * 1000),
            "data": data,
        },
    }


def _missing(run: object, name: str) -> NoReturn:
    mux = run.__dict__.get("_mux")  # not self._mux: that would call __getattr__ again
    known = ", ".join(sorted(mux.native_keys)) if mux is not None else ""
    raise AttributeError(
        f"{type(run).__name__!r} object has no attribute {name!r} "
        f"(registered projections: {known or 'none'})"
    )


class _RunState:
    """What a handle keeps of its graph's own events: the last state and the questions."""

    _mux: StreamMux
    _latest: dict[str, Any] | None
    _interrupted: bool
    _interrupts: list[Any]
    _scope_list: list[str]
    _exhausted: bool

    def _start(self, mux: StreamMux) -> None:
        self._mux = mux
        self.extensions: Mapping[str, Any] = MappingProxyType(mux.extensions)
        self._exhausted = False
        self._latest = None
        self._interrupted = False
        self._interrupts = []
        self._scope_list = list(mux.scope)
        for key in mux.native_keys:
            setattr(self, key, mux.extensions[key])

    def __getattr__(self, name: str) -> StreamChannel[Any]:
        _missing(self, name)

    def _observe_event(self, event: ProtocolEvent) -> None:
        """Keep the state and the questions of ``values`` events of the handle's own graph."""
        params = event["params"]
        if event["method"] != "values" or params["namespace"] != self._scope_list:
            return
        self._latest = params["data"]
        questions = params.get("interrupts", ())
        if questions:
            self._interrupted = True
            self._interrupts.extend(questions)

    def _result(self, what: str) -> Any:
        error = self._mux._events._error
        if error is not None:
            raise error
        if what == "output":
            return self._latest
        return self._interrupted if what == "interrupted" else self._interrupts


class GraphRunStream(_RunState):
    """A sync event-stream run: its streams are attributes, iterating it gives raw events."""

    def __init__(self, graph_iter: Iterator[Any] | None, mux: StreamMux, *, wire_pump: bool = True):
        self._graph_iter = graph_iter
        self._start(mux)
        if wire_pump:
            mux.bind_pump(self._pump_next)

    def _pump_next(self) -> bool:
        """Run the graph to its next chunk and pass it on; ``False`` once the run ended."""
        if self._exhausted or self._graph_iter is None:
            return False
        try:
            event = next(self._graph_iter)
        except StopIteration:
            self._exhausted = True
            self._mux.close()
            return False
        except Exception as err:  # the run's error: its streams raise it to their readers
            self._exhausted = True
            self._mux.fail(err)
            return False
        self._observe_event(event)
        self._mux.push(event)
        return True

    def _drain(self) -> None:
        while self._pump_next():
            pass

    def abort(self) -> None:
        """Stop the run now (its graph is closed) and end its streams; again does nothing."""
        if self._exhausted:
            return
        self._exhausted = True
        graph_iter, self._graph_iter = self._graph_iter, None
        close = getattr(graph_iter, "close", None)
        if close is not None:
            close()
        self._mux.close()

    def __enter__(self) -> GraphRunStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.abort()

    @property
    def output(self) -> dict[str, Any] | None:
        """Run to the end; the graph's last state (raises the run's error)."""
        self._drain()
        return self._result("output")  # type: ignore[no-any-return]

    @property
    def interrupted(self) -> bool:
        """Run to the end; whether the run paused on questions."""
        self._drain()
        return self._result("interrupted")  # type: ignore[no-any-return]

    @property
    def interrupts(self) -> list[Any]:
        """Run to the end; the questions the run paused on."""
        self._drain()
        return self._result("interrupts")  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[ProtocolEvent]:
        """The raw events of the run (those no transformer dropped)."""
        return iter(self._mux._events)

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """``(name, item)`` from the named streams, in the order they were pushed."""
        from pyctx_web.graph.stream._interleave import interleave

        return interleave(self.extensions, names, lambda: self._mux._pump_fn)


class AsyncGraphRunStream(_RunState):
    """An async event-stream run: ``async for`` on its streams; ``await run.output()``."""

    def __init__(
        self, graph_aiter: AsyncIterator[Any] | None, mux: StreamMux, *, wire_pump: bool = True
    ):
        self._graph_aiter = graph_aiter
        self._start(mux)
        self._lock = asyncio.Lock()
        self._pulled = 0
        if wire_pump:
            mux.bind_apump(self._apump_next)

    async def _apump_next(self) -> bool:
        """Run the graph to its next chunk and pass it on; one reader pulls at a time."""
        seen = self._pulled
        async with self._lock:
            if self._pulled != seen:
                return not self._exhausted or bool(self._mux._events._items)
            return await self._pull()

    async def _pull(self) -> bool:
        if self._exhausted or self._graph_aiter is None:
            return False
        try:
            event = await anext(self._graph_aiter)
        except StopAsyncIteration:
            self._exhausted = True
            await self._mux.aclose()
            return False
        except Exception as err:  # the run's error: its streams raise it to their readers
            self._exhausted = True
            await self._mux.afail(err)
            return False
        finally:
            self._pulled += 1
        self._observe_event(event)
        await self._mux.apush(event)
        return True

    async def _drain(self) -> None:
        while await self._apump_next():
            pass

    async def abort(self) -> None:
        """Stop the run now (its graph is closed) and end its streams; again does nothing."""
        if self._exhausted:
            return
        self._exhausted = True
        graph_aiter, self._graph_aiter = self._graph_aiter, None
        close = getattr(graph_aiter, "aclose", None)
        if close is not None:
            await close()
        await self._mux.aclose()

    async def __aenter__(self) -> AsyncGraphRunStream:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.abort()

    async def output(self) -> dict[str, Any] | None:
        """Run to the end; the graph's last state (raises the run's error)."""
        await self._drain()
        return self._result("output")  # type: ignore[no-any-return]

    async def interrupted(self) -> bool:
        """Run to the end; whether the run paused on questions."""
        await self._drain()
        return self._result("interrupted")  # type: ignore[no-any-return]

    async def interrupts(self) -> list[Any]:
        """Run to the end; the questions the run paused on."""
        await self._drain()
        return self._result("interrupts")  # type: ignore[no-any-return]

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        """The raw events of the run (those no transformer dropped)."""
        return aiter(self._mux._events)


class _SubgraphParts:
    """Where a subgraph's run stands in its parent's, and how it ended."""

    def _place(
        self, path: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        self.path = path
        self.graph_name = graph_name
        self.trigger_call_id = trigger_call_id
        self.status: str = "started"
        self.error: str | None = None
        self._seen_terminal = False

    def _end(self, status: str, error: str | None) -> bool:
        """Take the status the run ended with, the first time only (then ``True``)."""
        if self._seen_terminal:
            return False
        self.status = status
        if error is not None and self.error is None:
            self.error = error
        self._seen_terminal = True
        return True


class SubgraphRunStream(GraphRunStream, _SubgraphParts):
    """The handle of a subgraph's run, driven by its root run (``run.subgraphs`` gives it)."""

    def __init__(
        self,
        mux: StreamMux,
        *,
        path: tuple[str, ...],
        graph_name: str | None = None,
        trigger_call_id: str | None = None,
    ) -> None:
        self._parent_pump_fn: Callable[[], bool] | None = mux._pump_fn
        super().__init__(None, mux, wire_pump=False)
        self._place(path, graph_name, trigger_call_id)

    def _pump_next(self) -> bool:
        if self._exhausted or self._seen_terminal or self._mux._events._closed:
            return False
        return self._parent_pump_fn is not None and self._parent_pump_fn()


class AsyncSubgraphRunStream(AsyncGraphRunStream, _SubgraphParts):
    """The async handle of a subgraph's run, driven by its root run."""

    def __init__(
        self,
        mux: StreamMux,
        *,
        path: tuple[str, ...],
        graph_name: str | None = None,
        trigger_call_id: str | None = None,
    ) -> None:
        self._parent_apump_fn: Callable[[], Awaitable[bool]] | None = mux._apump_fn
        super().__init__(None, mux, wire_pump=False)
        self._place(path, graph_name, trigger_call_id)

    async def _apump_next(self) -> bool:
        if self._exhausted or self._seen_terminal or self._mux._events._closed:
            return False
        return self._parent_apump_fn is not None and await self._parent_apump_fn()
