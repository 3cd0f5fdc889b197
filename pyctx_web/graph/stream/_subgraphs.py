"""``run.subgraphs``: a handle per subgraph run directly below the transformer's scope.

Each handle has a mux of its own (the run's transformers, made for the
subgraph's namespace), which gets every event from under that namespace; its
status is set when the parent's task running it ends, and its streams end then.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pyctx_web._homes import publish
from pyctx_web.graph.stream._lifecycle import (
    SubgraphStatus,
    _status_from_exception,
    _TasksLifecycleBase,
)
from pyctx_web.graph.stream._types import ProtocolEvent
from pyctx_web.graph.stream.run_stream import AsyncSubgraphRunStream, SubgraphRunStream
from pyctx_web.graph.stream.stream_channel import StreamChannel

if TYPE_CHECKING:
    from pyctx_web.graph.stream._mux import StreamMux

__all__ = ["SubgraphTransformer"]

_log = logging.getLogger(__name__)

_Handle = SubgraphRunStream | AsyncSubgraphRunStream


class SubgraphTransformer(_TasksLifecycleBase):
    """``run.subgraphs``: the handles of the subgraphs run directly by this graph's nodes."""

    _native = True
    supports_sync = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[_Handle] = StreamChannel()
        self._handles: dict[tuple[str, ...], _Handle] = {}
        self._mux: StreamMux | None = None

    def init(self) -> dict[str, Any]:
        return {"subgraphs": self._log}

    def _on_register(self, mux: Any) -> None:
        self._mux = mux

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        depth = len(self.scope)
        return len(ns) == depth + 1 and ns[:depth] == self.scope

    def _on_started(
        self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None
    ) -> None:
        if self._mux is None:
            return
        try:
            child = self._mux._make_child(ns)
        except RuntimeError:
            return
        kind = AsyncSubgraphRunStream if child.is_async else SubgraphRunStream
        handle = kind(child, path=ns, graph_name=graph_name, trigger_call_id=trigger_call_id)
        self._handles[ns] = handle
        self._log.push(handle)

    def _mark_terminal(self, handle: _Handle, status: SubgraphStatus, error: str | None) -> bool:
        """Set ``handle``'s status, the first time only (then ``True``)."""
        return handle._end(status, error)

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        handle = self._handles.get(ns)
        if handle is not None and self._mark_terminal(handle, status, error):
            self._close_or_fail_handle(handle, status, error)

    async def _aon_terminal(
        self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None
    ) -> None:
        handle = self._handles.get(ns)
        if handle is not None and self._mark_terminal(handle, status, error):
            await self._aclose_or_fail_handle(handle, status, error)

    def _close_or_fail_handle(self, handle: _Handle, status: str, error: str | None) -> None:
        if handle._mux._events._closed:
            return
        if status == "failed":
            handle._mux.fail(RuntimeError(error or "Subgraph failed"))
        else:
            handle._mux.close()

    async def _aclose_or_fail_handle(self, handle: _Handle, status: str, error: str | None) -> None:
        if handle._mux._events._closed:
            return
        if status == "failed":
            await handle._mux.afail(RuntimeError(error or "Subgraph failed"))
        else:
            await handle._mux.aclose()

    def _handle_for_event(self, event: ProtocolEvent) -> _Handle | None:
        ns = tuple(event["params"]["namespace"])
        depth = len(self.scope)
        if len(ns) <= depth:
            return None
        handle = self._handles.get(ns[: depth + 1])
        if handle is None or handle._mux._events._closed:
            return None
        return handle

    def process(self, event: ProtocolEvent) -> bool:
        keep = super().process(event)  # a new subgraph's handle exists before its first event
        handle = self._handle_for_event(event)
        if handle is not None:
            handle._observe_event(event)
            handle._mux.push(event)
        return keep

    async def aprocess(self, event: ProtocolEvent) -> bool:
        keep = True
        if event["method"] == "tasks":
            keep = False
            ns = tuple(event["params"]["namespace"])
            data = event["params"]["data"]
            if "result" in data:
                for child, status, error in self._pop_terminal_transitions(ns, data):
                    await self._aon_terminal(child, status, error)
            else:
                self._record_identity(ns, data)
                self._record_pending_tool_calls(data)
                self._handle_task_start(ns, data)
        handle = self._handle_for_event(event)
        if handle is not None:
            handle._observe_event(event)
            await handle._mux.apush(event)
        return keep

    def finalize(self) -> None:
        super().finalize()
        first: BaseException | None = None
        for handle in self._handles.values():
            if self._mark_terminal(handle, "completed", None):
                try:
                    self._close_or_fail_handle(handle, "completed", None)
                except BaseException as err:  # raised below, once every handle is closed
                    first = first or err
        if first is not None:
            raise first

    async def afinalize(self) -> None:
        for ns in list(self._open):
            await self._aon_terminal(ns, "completed", None)
        self._open.clear()
        for handle in self._handles.values():
            if self._mark_terminal(handle, "completed", None):
                await self._aclose_or_fail_handle(handle, "completed", None)

    def fail(self, err: BaseException) -> None:
        status, error = _status_from_exception(err)
        self._open.clear()
        for handle in self._handles.values():
            self._mark_terminal(handle, status, error)
            if not handle._mux._events._closed:
                handle._mux.fail(err)

    async def afail(self, err: BaseException) -> None:
        status, error = _status_from_exception(err)
        self._open.clear()
        for handle in self._handles.values():
            self._mark_terminal(handle, status, error)
            if not handle._mux._events._closed:
                await handle._mux.afail(err)


publish("pyctx_web.graph.stream.transformers", SubgraphTransformer)
