"""Reading and writing a thread's state: ``get_state``, its history and ``update_state``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.frames import current_run
from pyctx_web.graph._engine.options import RunRequest, config_of, parse_config
from pyctx_web.graph._engine.values import StateSnapshot

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.serde import JsonSerde
    from pyctx_web.graph._engine.spec import GraphSpec
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["StateAccess"]


class StateAccess:
    """The state methods of a compiled graph (mixed into ``CompiledStateGraph``)."""

    spec: GraphSpec
    serde: JsonSerde
    checkpointer: Checkpointer | None

    @property
    def _front(self) -> Any:
        # The compiled graph's own helpers (runs, engines, views), which it defines.
        return self

    def _thread(self, config: Any, what: str) -> RunRequest:
        """A request from a config, or from a bare thread id (pyctx_web's shorthand)."""
        if isinstance(config, Mapping) or config is None:
            request = parse_config(config, what=what)
        else:
            request = parse_config(None, thread_id=config, what=what)
        run = self._front._run(None, request)
        self._front._engine(run).checkpoints.require_thread(request.thread_id, f"{what}()")
        return request

    async def aget_state(self, config: Any, *, subgraphs: bool = False) -> StateSnapshot:
        """The state of the thread at its latest checkpoint (or the one the config names).

        With ``subgraphs=True``, each pending task that runs a subgraph carries the
        subgraph's state in its ``state``.
        """
        request = self._thread(config, "get_state")
        assert request.thread_id is not None
        engine = self._front._engine(self._front._run(None, request))
        state = await self.state_at(engine, request.thread_id, request.checkpoint_id)
        if subgraphs:
            state = await self._front.with_subgraphs(state, engine)
        return state

    async def state_at(
        self, engine: Engine, thread_id: str, checkpoint_id: str | None
    ) -> StateSnapshot:
        """The snapshot of ``thread_id`` (a thread, or a subgraph's key) at ``checkpoint_id``."""
        from pyctx_web.graph._engine.views import snapshot  # run machinery: loaded when used

        loaded = await engine.checkpoints.load(thread_id, checkpoint_id)
        if loaded is None:
            state = StateSnapshot({}, (), config_of(thread_id), None, None, None)
        else:
            state = snapshot(self.spec.schema, *loaded)
        shown: StateSnapshot = self._front._view(state)
        return shown

    async def aget_state_history(
        self,
        config: Any,
        *,
        limit: int | None = None,
        before: str | Mapping[str, Any] | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        """Yield the thread's checkpoints as snapshots, newest first.

        ``before`` (a checkpoint id or a config naming one) starts below that
        checkpoint; ``limit`` caps how many are yielded.
        """
        from pyctx_web.graph._engine.records import decode_record
        from pyctx_web.graph._engine.views import snapshot

        request = self._thread(config, "get_state_history")
        assert self.checkpointer is not None
        assert request.thread_id is not None
        if isinstance(before, Mapping):
            before = parse_config(before, what="before").checkpoint_id
        async for record in self.checkpointer.alist(request.thread_id, limit=limit, before=before):
            cp, pending = decode_record(self.serde, record)
            yield self._front._view(snapshot(self.spec.schema, cp, pending))

    async def aupdate_state(
        self, config: Any, values: Mapping[str, Any] | None, as_node: str | None = None
    ) -> dict[str, Any]:
        """Write ``values`` as if ``as_node`` returned them; return the new checkpoint's config.

        The reducers apply. ``as_node`` defaults to the node that ran last;
        the next step is planned from its edges, so ``invoke(None, config)``
        continues from there. ``as_node=END`` ends the run: a pending question
        is dropped. A question still waiting on the same node stays pending with
        its id.
        """
        from pyctx_web.graph._engine.views import update_state

        request = self._thread(config, "update_state")
        assert request.thread_id is not None
        run = self._front._run(values, request)
        engine = self._front._engine(run)
        return await current_run.run(
            run, update_state, engine, request.thread_id, request.checkpoint_id, values, as_node
        )
