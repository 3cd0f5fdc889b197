"""The sync forms of a compiled graph's methods: ``invoke``, ``stream``, ``get_state``...

They run the async forms to completion in a fresh event loop. In Pyodide the
browser owns the event loop, so they raise :class:`SyncUnavailableError`
naming the async form; so do they while an event loop runs in this thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pyctx_web._env import IN_PYODIDE
from pyctx_web.graph._engine.options import next_item, stream_modes
from pyctx_web.graph._engine.values import StateSnapshot
from pyctx_web.graph.errors import SyncUnavailableError

__all__ = ["SyncForms"]

T = TypeVar("T")


def _check_sync(name: str) -> None:
    if IN_PYODIDE:
        raise SyncUnavailableError(
            f"{name}() is not available in Pyodide, where the browser owns the event loop; "
            f"use `await graph.a{name}(...)`"
        )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise SyncUnavailableError(
        f"{name}() cannot run while an event loop is running in this thread; "
        f"use `await graph.a{name}(...)`"
    )


def _run_sync(name: str, coro: Coroutine[Any, Any, T]) -> T:
    try:
        _check_sync(name)
    except SyncUnavailableError:
        coro.close()
        raise
    return asyncio.run(coro)


class SyncForms:
    """Sync forms of the async methods a compiled graph defines (CPython only).

    The async forms are the subclass's: ``ainvoke``, ``astream``, ``aget_state``,
    ``aget_state_history`` and ``aupdate_state``.
    """

    @property
    def _async(self) -> Any:
        # The subclass's async forms take more keywords than any one signature here.
        return self

    def invoke(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Sync form of :meth:`ainvoke`; async nodes run in a fresh event loop."""
        return _run_sync("invoke", self._async.ainvoke(input, config, **kwargs))

    def stream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] = "updates",
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Sync form of :meth:`astream`: each chunk comes as the run reaches it.

        The run goes on only when the next chunk is asked for, so what nodes
        print interleaves with the chunks as the steps happen.
        """
        _check_sync("stream")
        stream_modes(stream_mode)
        return self._stream_sync(input, config, stream_mode, kwargs)

    def _stream_sync(
        self,
        input: Any,
        config: Mapping[str, Any] | None,
        stream_mode: str | Sequence[str],
        kwargs: dict[str, Any],
    ) -> Iterator[Any]:
        with asyncio.Runner() as runner:
            agen = self._async.astream(input, config, stream_mode=stream_mode, **kwargs)
            try:
                while True:
                    try:
                        item = runner.run(next_item(agen))
                    except StopAsyncIteration:
                        return
                    yield item
            finally:
                runner.run(agen.aclose())

    def get_state(self, config: Any, *, subgraphs: bool = False) -> StateSnapshot:
        """Sync form of :meth:`aget_state`."""
        state = self._async.aget_state(config, subgraphs=subgraphs)
        snapshot: StateSnapshot = _run_sync("get_state", state)
        return snapshot

    def get_state_history(self, config: Any, **kwargs: Any) -> Iterator[StateSnapshot]:
        """Sync form of :meth:`aget_state_history`: the snapshots, newest first."""

        async def collect() -> list[StateSnapshot]:
            return [s async for s in self._async.aget_state_history(config, **kwargs)]

        return iter(_run_sync("get_state_history", collect()))

    def update_state(
        self, config: Any, values: Mapping[str, Any] | None, as_node: str | None = None
    ) -> dict[str, Any]:
        """Sync form of :meth:`aupdate_state`."""
        return _run_sync("update_state", self._async.aupdate_state(config, values, as_node))
