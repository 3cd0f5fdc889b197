"""How a compiled graph makes a run and the engine that executes it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from pyctx_web.graph._engine.frames import Run
from pyctx_web.graph._engine.options import (
    DEFAULT_RECURSION_LIMIT,
    MESSAGE_EVENTS_KEY,
    Breakpoints,
    ParsedConfig,
    RunOptions,
    breakpoints,
)
from pyctx_web.graph._stream_sink import stream_of

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.serde import JsonSerde
    from pyctx_web.graph._engine.spec import GraphSpec
    from pyctx_web.graph._subgraph import ChildPlace
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["GraphParts", "RunFactory"]


class GraphParts(Protocol):
    """What of a compiled graph its runs are made from."""

    name: str
    spec: GraphSpec
    serde: JsonSerde
    checkpointer: Checkpointer | None
    interrupt_before: frozenset[str]
    interrupt_after: frozenset[str]
    store: Any


class RunFactory:
    """Makes a compiled graph's runs and their engines, from the graph as it is now."""

    __slots__ = ("_graph",)

    def __init__(self, graph: GraphParts) -> None:
        self._graph = graph

    def run(
        self,
        input: Any,
        request: ParsedConfig,
        place: ChildPlace | None = None,
        options: RunOptions | None = None,
        **stream: Any,
    ) -> Run:
        """A run of ``input`` on the request's thread, or as a subgraph at ``place``.

        ``stream`` describes the caller's stream, if any (``astream``'s queue and modes).
        """
        from pyctx_web.graph._engine.ids import random_uuid

        checkpointer, store = self._graph.checkpointer, self._graph.store
        configurable = request.config.get("configurable") or {}
        if stream or place is None:
            stream["message_events"] = bool(configurable.get(MESSAGE_EVENTS_KEY))
        if place is not None:
            checkpointer = place.checkpointer
            stream = stream_of(stream, _forwarded(place), options, place.namespace)
            stream.update(namespace=place.namespace, checkpoint_ns=place.checkpoint_ns)
            if store is None and place.parent is not None:
                store = place.parent.run.store  # a subgraph without its own uses its parent's
            if place.parent is not None:
                parent = place.parent
                outer = parent.run.parents or {}
                stream["parents"] = {**outer, parent.run.checkpoint_ns: parent.checkpoint_id}
        else:
            stream = stream_of(stream, {}, options)
        # As LangGraph's: a run given a config run_id (a server's run) runs under it.
        given = request.config.get("run_id") if place is None else None
        return Run(
            self._graph.name,
            str(given) if given is not None else random_uuid(),
            request.thread_id,
            checkpointer,
            input,
            config=request.config if place is None else _inherited(place, request.config),
            store=store,
            **stream,
        )

    def engine(
        self,
        run: Run,
        request: ParsedConfig | None = None,
        before: Breakpoints = None,
        after: Breakpoints = None,
    ) -> Engine:
        """The engine of ``run``, pausing at the call's breakpoints or else the graph's."""
        from pyctx_web.graph._engine.loop import Engine  # run machinery: loaded when used

        graph = self._graph
        spec, checkpointer = graph.spec, graph.checkpointer
        return Engine(
            spec,
            graph.serde,
            run,
            interrupt_before=breakpoints(
                spec, checkpointer, before, "interrupt_before", graph.interrupt_before
            ),
            interrupt_after=breakpoints(
                spec, checkpointer, after, "interrupt_after", graph.interrupt_after
            ),
            recursion_limit=(
                request.recursion_limit if request is not None else DEFAULT_RECURSION_LIMIT
            ),
        )

    def engine_for(self, place: ChildPlace) -> Engine:
        """An engine that reads and writes the checkpoints of the graph run as a subgraph."""
        request = ParsedConfig(place.thread_id, None, DEFAULT_RECURSION_LIMIT, {})
        return self.engine(self.run(None, request, place))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _inherited(place: ChildPlace, config: dict[str, Any]) -> dict[str, Any]:
    """A subgraph's config, as LangGraph gives a subgraph its task's config: the calling
    task's config (:func:`~._engine.task_config.task_config`: the subgraph's
    ``checkpoint_ns``, the checkpoint of each graph it runs in as ``checkpoint_map``, the
    task's ``langgraph_*`` entries in ``metadata``), with the outermost task's namespace
    as the metadata's ``checkpoint_ns``, under the subgraph's own entries."""
    from pyctx_web.graph._engine.task_config import task_config  # run machinery: when used

    frame = place.parent
    if frame is None:
        return config
    caller = task_config(frame)
    metadata = dict(caller["metadata"])
    # As LangChain copies it from the configurable once: a nested subgraph keeps the outer one.
    metadata.setdefault("checkpoint_ns", place.checkpoint_ns)
    return {
        **caller,
        **config,
        "configurable": {**caller["configurable"], **(config.get("configurable") or {})},
        "metadata": {**metadata, **(config.get("metadata") or {})},
    }


def _forwarded(place: ChildPlace) -> dict[str, Any]:
    """How a subgraph streams: into its parent's stream when that streams subgraphs."""
    if place.parent is None:
        return {}
    parent = place.parent.run
    if parent.queue is None or not parent.subgraphs:
        return {}
    return {
        "queue": parent.queue,
        "stream_modes": parent.stream_modes,
        "subgraphs": True,
        "loop": parent.loop,
        "message_events": parent.message_events,
        # A subgraph run on another loop (a sync call in a node, run in a thread of its own)
        # hands its chunks to the parent's loop.
        "foreign_loop": parent.loop is not None and parent.loop is not _running_loop(),
    }
