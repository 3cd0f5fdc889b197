"""Reading and writing a thread's state: ``get_state``, its history and ``update_state``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pyctx_web.graph._engine.frames import current_run
from pyctx_web.graph._engine.options import ParsedConfig, config_of, parse_config
from pyctx_web.graph._subgraph import with_child_configs
from pyctx_web.graph._values import StateSnapshot
from pyctx_web.graph.errors import CorruptCheckpointError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.records import Checkpoint
    from pyctx_web.graph._engine.serde import JsonSerde
    from pyctx_web.graph._engine.spec import GraphSpec
    from pyctx_web.graph._runs import RunFactory
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["StateHost", "ThreadStates"]


class StateHost(Protocol):
    """What of a compiled graph reading and writing its threads needs."""

    spec: GraphSpec
    serde: JsonSerde
    checkpointer: Checkpointer | None

    async def with_subgraphs(self, state: StateSnapshot, engine: Engine) -> StateSnapshot:
        """``state`` with its pending subgraphs' states."""


class ThreadStates:
    """A compiled graph's reads and writes of its threads' state."""

    __slots__ = ("_graph", "_runs", "_view")

    def __init__(
        self,
        graph: StateHost,
        runs: RunFactory,
        view: Callable[[StateSnapshot], StateSnapshot],
    ) -> None:
        self._graph = graph
        self._runs = runs
        self._view = view
        """A snapshot as the caller sees it (a graph that wraps its state changes it)."""

    def _thread(self, config: Any, what: str) -> ParsedConfig:
        """A request from a config, or from a bare thread id (pyctx_web's shorthand)."""
        if isinstance(config, Mapping) or config is None:
            request = parse_config(config, what=what)
        else:
            request = parse_config(None, thread_id=config, what=what)
        run = self._runs.run(None, request)
        self._runs.engine(run).checkpoints.require_thread(request.thread_id, f"{what}()")
        return request

    async def get(self, config: Any, subgraphs: bool) -> StateSnapshot:
        """The state of the thread at its latest checkpoint (or the one the config names)."""
        graph = self._graph
        request = self._thread(config, "get_state")
        assert request.thread_id is not None
        engine = self._runs.engine(self._runs.run(None, request))
        state = await self.at(engine, request.thread_id, request.checkpoint_id)
        if subgraphs:
            state = await graph.with_subgraphs(state, engine)
        return state

    async def at(self, engine: Engine, thread_id: str, checkpoint_id: str | None) -> StateSnapshot:
        """The snapshot of ``thread_id`` (a thread, or a subgraph's key) at ``checkpoint_id``."""
        from pyctx_web.graph._engine.views import snapshot  # run machinery: loaded when used

        loaded = await engine.checkpoints.load(thread_id, checkpoint_id)
        if loaded is None:
            state = StateSnapshot({}, (), config_of(thread_id), None, None, None)
        else:
            child = None if checkpoint_id is None else await self._child(thread_id, checkpoint_id)
            # The latest checkpoint shows its step as it stands; a named one, as it started.
            state = snapshot(self._graph.spec, *loaded, child, live=checkpoint_id is None)
            state = with_child_configs(self._graph.spec.nodes, state)
        return self._view(state)

    async def _child(self, thread_id: str, checkpoint_id: str) -> Checkpoint | None:
        """The first checkpoint a step of ``checkpoint_id`` wrote (its tasks' results)."""
        from pyctx_web.graph._engine.records import decode_record

        graph = self._graph
        if graph.checkpointer is None:
            return None
        found = None
        # Newest first: the last match is the first run's step.
        async for record in graph.checkpointer.alist(thread_id):
            if record.checkpoint.parent_id == checkpoint_id:
                try:
                    cp = decode_record(graph.serde, record)[0]
                except CorruptCheckpointError:
                    # The older checkpoint still reads; only its tasks' results are lost.
                    continue
                found = cp if cp.source == "loop" else found
        return found

    async def history(
        self, config: Any, limit: int | None, before: str | Mapping[str, Any] | None
    ) -> AsyncIterator[StateSnapshot]:
        """The thread's checkpoints as snapshots, newest first."""
        from pyctx_web.graph._engine.records import decode_record
        from pyctx_web.graph._engine.views import snapshot, with_input_updates

        graph = self._graph
        request = self._thread(config, "get_state_history")
        assert graph.checkpointer is not None
        assert request.thread_id is not None
        if isinstance(before, Mapping):
            before = parse_config(before, what="before").checkpoint_id
        # Newest first: a checkpoint's children were listed before it, unless they are
        # above ``before``; the last one listed is the first run's step.
        children: dict[str, Checkpoint] = {}
        async for record in graph.checkpointer.alist(request.thread_id, limit=limit, before=before):
            cp, pending = decode_record(graph.serde, record)
            child = children.get(cp.id)
            if child is None and before is not None:
                child = await self._child(request.thread_id, cp.id)
            cp = with_input_updates(graph.spec.schema, cp, pending)
            state = snapshot(graph.spec, cp, pending, child, live=False)
            yield self._view(with_child_configs(graph.spec.nodes, state))
            if cp.parent_id is not None and cp.source == "loop":
                children[cp.parent_id] = cp

    async def update(
        self, config: Any, values: Mapping[str, Any] | None, as_node: str | None
    ) -> dict[str, Any]:
        """Write ``values`` as if ``as_node`` returned them; return the new checkpoint's config."""
        from pyctx_web.graph._engine.views import update_state

        request = self._thread(config, "update_state")
        assert request.thread_id is not None
        run = self._runs.run(values, request)
        engine = self._runs.engine(run)
        return await current_run.run(
            run, update_state, engine, request.thread_id, request.checkpoint_id, values, as_node
        )
