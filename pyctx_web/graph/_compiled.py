"""The runnable graph: invoke, stream, inspect and edit the state of its threads."""

from __future__ import annotations

import asyncio
import types
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Iterator, Mapping, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, ClassVar, Unpack

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._bound import bind_config, bound_config
from pyctx_web.graph._engine.frames import Namespaced, Run, current_run, current_task
from pyctx_web.graph._engine.options import (
    ParsedConfig,
    RunOptions,
    check_options,
    context_of,
    durability_of,
    multitask_of,
    parse_config,
    stream_modes,
)
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._event_streams import EventStreams
from pyctx_web.graph._node_views import NodeViews
from pyctx_web.graph._runctx.services import GraphServices
from pyctx_web.graph._runs import RunFactory
from pyctx_web.graph._schemas import GraphSchemas
from pyctx_web.graph._states import ThreadStates
from pyctx_web.graph._subgraph import ChildPlace, Subgraphs
from pyctx_web.graph._sync import run_sync, stream_sync
from pyctx_web.graph._waiting import chunks_of, outcome_of
from pyctx_web.graph.checkpoint.base import Checkpointer

if TYPE_CHECKING:
    # The run machinery is imported by the first run (see _prepare), not with the graph.
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.outcome import EngineResult
    from pyctx_web.graph._engine.spec import GraphSpec
    from pyctx_web.graph._runctx.lifecycle import ActiveRuns, Admission, RunHandle
    from pyctx_web.graph._values import Interrupt, StateSnapshot
    from pyctx_web.graph.drawing import Graph

__all__ = ["CompiledStateGraph", "RunOptions"]


class CompiledStateGraph(EventStreams, GraphSchemas):
    """A checked graph, ready to run: made by :meth:`StateGraph.compile`.

    One compiled graph serves any number of concurrent runs; each finds its
    own state through the context store, never through shared attributes.
    """

    __class_getitem__: ClassVar[Any] = classmethod(types.GenericAlias)  # CompiledStateGraph[S]
    config: dict[str, Any] | None = None
    """The config :meth:`with_config` bound: merged under each call's own."""

    def __init__(
        self,
        spec: GraphSpec,
        *,
        checkpointer: object,
        interrupt_before: frozenset[str],
        interrupt_after: frozenset[str],
        name: str,
        services: GraphServices | None = None,
        multitask: str = "reject",
        store: Any = None,
    ) -> None:
        own: Checkpointer | None
        if checkpointer is None or isinstance(checkpointer, Checkpointer):
            own = checkpointer
        else:
            # A user's LangGraph saver is wrapped (its vocabulary imported only then).
            from pyctx_web.graph._lgsaver.foreign import as_checkpointer

            own = as_checkpointer(checkpointer)
        if store is not None:
            from pyctx_web.graph.store.base import BaseStore

            if not isinstance(store, BaseStore):
                raise ArgumentTypeError(
                    "store must be a BaseStore (InMemoryStore, SqliteStore, IndexedDBStore...),"
                    f" not {type(store).__qualname__!r}"
                )
        self.spec = spec
        self.checkpointer = own
        self.store = store
        """The store every run's ``Runtime.store`` is (``compile(store=...)``), or ``None``."""
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.name = name
        self.serde = JsonSerde.for_schema(spec.schema.state_type, spec.schema.annotations.values())
        self.services = services if services is not None else GraphServices(name)
        """The tools, middleware, memory and default context of every run."""
        self._active_runs: ActiveRuns | None = None
        self.multitask = multitask_of({}, multitask)
        """What a second run of a busy thread does: ``"reject"`` or ``"enqueue"``."""
        self._runs = RunFactory(self)
        self._states = ThreadStates(self, self._runs, self._view)
        self._subgraphs = Subgraphs(self)

    @property
    def _active(self) -> ActiveRuns:
        """This graph's runs that are executing or waiting for their turn."""
        if self._active_runs is None:
            from pyctx_web.graph._runctx.lifecycle import ActiveRuns

            self._active_runs = ActiveRuns()
        return self._active_runs

    def with_config(
        self, config: Mapping[str, Any] | None = None, **values: Any
    ) -> CompiledStateGraph:
        """A copy of this graph whose calls merge ``config`` and ``values`` under their own."""
        return bind_config(self, config, values)

    def get_graph(self, config: Any = None, *, xray: int | bool = False) -> Graph:
        """The nodes and edges to draw (``draw_mermaid()``, ``draw_ascii()``), as LangGraph's."""
        from pyctx_web.graph.drawing import graph_of  # drawing is needed only when asked for

        return graph_of(self, config, xray=xray)

    @property
    def nodes(self) -> NodeViews:
        """Each node by name, in the order added; ``graph.nodes[name].invoke(state)`` runs it."""
        return NodeViews(self.spec.nodes)

    def __repr__(self) -> str:
        return f"<CompiledStateGraph {self.name!r} nodes={list(self.spec.nodes)}>"

    def engine_for(self, place: ChildPlace) -> Engine:
        """An engine that reads and writes the checkpoints of this graph run as a subgraph."""
        return self._runs.engine_for(place)

    async def run_child(
        self, input: Any, options: RunOptions, place: ChildPlace
    ) -> tuple[dict[str, Any], list[Interrupt]]:
        """Run as a subgraph at ``place``; its result's values and the questions it paused on."""
        run, _, body = self._prepare(input, None, options, place=place)
        outcome = await current_run.run(run, lambda: body)
        return self.spec.schema.result(outcome.values), list(outcome.interrupts)

    def _view(self, state: StateSnapshot) -> StateSnapshot:
        """A snapshot as the caller sees it (a graph that wraps its state changes it)."""
        return state

    def _present(self, mode: str, chunk: Any) -> Any:
        """A stream chunk as the caller sees it (a graph that wraps its state changes it)."""
        return chunk

    def _result(self, outcome: EngineResult) -> Any:
        values = self.spec.schema.result(outcome.values)
        if outcome.interrupts:
            values["__interrupt__"] = list(outcome.interrupts)
        return values

    # -- running ---------------------------------------------------------------------

    async def ainvoke(
        self, input: Any, config: Mapping[str, Any] | None = None, **options: Unpack[RunOptions]
    ) -> dict[str, Any]:
        """Run the graph and return the state values (those of the output schema, if any).

        ``input`` is a dict (or dataclass) of state values that starts a run,
        ``Command(resume=...)`` that answers a paused run, or ``None`` that
        continues the thread's saved run. While paused, the values also hold
        ``"__interrupt__": [Interrupt(value, id), ...]``. A new input on a
        paused thread starts a new run and drops the pending questions.
        ``config={"configurable": {"thread_id": ..., "checkpoint_id": ...},
        "recursion_limit": 25}`` as in LangGraph; naming an older checkpoint
        forks the thread from it. The keywords are :class:`RunOptions`. A
        cancelled run raises :class:`~pyctx_web.graph.errors.RunCancelledError`.
        """
        parent = current_task.get_store()
        if parent is not None:
            # Invoked from a node of a running graph: a subgraph of that node's task.
            return await Subgraphs(self).run_as_child(input, options, parent)  # bound config
        return await self.start(input, config, **options)

    def start(
        self, input: Any, config: Mapping[str, Any] | None = None, **options: Unpack[RunOptions]
    ) -> RunHandle:
        """Start a run in a task of its own and return its handle, without waiting.

        Takes what :meth:`ainvoke` takes; ``await handle`` gives what ``ainvoke``
        returns, and ``handle.cancel()`` stops the run. Needs a running event loop.
        """
        run, control, body = self._prepare(input, config, options)
        task = asyncio.get_running_loop().create_task(self._tracked(control, run, body))
        control.task = task
        from pyctx_web.graph._runctx.lifecycle import RunHandle

        assert run.extension is not None  # _prepare gave the run its extension
        return RunHandle(run.run_id, run.thread_id, run.extension.record, control, task)

    def _prepare(
        self,
        input: Any,
        config: Mapping[str, Any] | None,
        options: RunOptions,
        place: ChildPlace | None = None,
        **stream: Any,
    ) -> tuple[Run, Admission, Coroutine[Any, Any, EngineResult]]:
        """A run with its context and cancel control, and the coroutine that executes it."""
        from pyctx_web.graph._engine.execute import execute
        from pyctx_web.graph._runctx.lifecycle import Admission, extend, managed

        check_options(options)
        request = parse_config(bound_config(self, config), thread_id=options.get("thread_id"))
        if place is not None:
            request = ParsedConfig(place.thread_id, None, request.recursion_limit, request.config)
        run = self._runs.run(input, request, place, options, **stream)
        control = Admission(run.run_id, request.thread_id)
        if place is None:
            # At once, so that a second run of the thread is refused (or queued) before it
            # runs anything, and cancel(thread_id) finds this run before its first step.
            multitask = multitask_of(options, self.multitask)
            self._active.admit(control, multitask)
            if self.checkpointer is not None and request.thread_id is not None:
                control.hold = self.checkpointer.hold_thread(
                    request.thread_id, wait=multitask == "enqueue"
                )
        extension, execution_context = extend(
            self.services,
            run,
            context=context_of(self.spec, options),
            execution_context=options.get("execution_context"),
            control=control,
        )
        before, after = options.get("interrupt_before"), options.get("interrupt_after")
        engine = self._runs.engine(run, request, before, after)
        engine.checkpoints.durability = durability_of(options)
        body = managed(
            extension, control, execution_context, lambda: execute(engine, input, request)
        )
        return run, control, body

    async def _tracked(
        self, control: Admission, run: Run, body: Coroutine[Any, Any, EngineResult]
    ) -> Any:
        return self._result(await outcome_of(self._active, control, run, body))

    async def cancel(self, thread_id: Any, reason: str | None = None) -> int:
        """Cancel every run of ``thread_id`` that is executing now; wait until they stop.

        Each stops at its next ``await``; its caller gets ``RunCancelledError``.
        Return how many runs were cancelled.
        """
        controls = self._active.of(None if thread_id is None else str(thread_id))
        for control in controls:
            control.cancel(reason)
        tasks = [c.task for c in controls if c.task is not None]
        if tasks:
            await asyncio.wait(tasks)
        return len(controls)

    async def astream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] = "updates",
        **options: Unpack[RunOptions],
    ) -> AsyncGenerator[Any, None]:
        """Run the graph like :meth:`ainvoke`, yielding chunks as it goes.

        ``"updates"`` yields ``{node: update}`` as each task finishes and
        ``{"__interrupt__": (Interrupt, ...)}`` when the run pauses; ``"values"`` the
        state after the input and each step; ``"custom"`` what nodes send through
        ``get_stream_writer()``; ``"tools"`` the events of LangChain tool calls.
        A list of modes yields ``(mode, chunk)``. With ``subgraphs=True`` subgraphs stream too:
        ``(namespace, chunk)`` or ``(namespace, mode, chunk)``, ``()`` for this graph.
        """
        modes, single = stream_modes(stream_mode)
        subgraphs = bool(options.get("subgraphs"))
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        place, input, options = await self._subgraphs.streamed_here(input, options)  # in a node
        run, control, body = self._prepare(
            input,
            config,
            options,
            place,
            stream_modes=modes,
            queue=queue,
            subgraphs=subgraphs,
            loop=asyncio.get_running_loop(),
        )
        # Closing the chunks when the caller stops early cancels the run and waits for it.
        async with aclosing(chunks_of(self._active, run, control, body, queue)) as chunks:
            async for mode, chunk in chunks:
                namespace: tuple[str, ...] = ()
                if isinstance(chunk, Namespaced):
                    namespace, chunk = chunk.namespace, chunk.chunk
                else:
                    chunk = self._present(mode, chunk)
                item = chunk if single else (mode, chunk)
                yield (
                    (namespace, *item)
                    if subgraphs and not single
                    else ((namespace, item) if subgraphs else item)
                )
        await self._subgraphs.ask_parent(place)  # a subgraph that paused pauses its parent

    # -- the state of threads ----------------------------------------------------------

    async def aget_state(self, config: Any, *, subgraphs: bool = False) -> StateSnapshot:
        """The state of the thread at its latest checkpoint (or the one the config names).

        With ``subgraphs=True``, each pending task that runs a subgraph carries the
        subgraph's state in its ``state``.
        """
        return await self._states.get(bound_config(self, config), subgraphs)

    def aget_state_history(
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
        return self._states.history(bound_config(self, config), limit, before)

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
        return await self._states.update(bound_config(self, config), values, as_node)

    async def state_at(
        self, engine: Engine, thread_id: str, checkpoint_id: str | None
    ) -> StateSnapshot:
        """The snapshot of ``thread_id`` (a thread, or a subgraph's key) at ``checkpoint_id``."""
        return await self._states.at(engine, thread_id, checkpoint_id)

    async def with_subgraphs(self, state: StateSnapshot, engine: Engine) -> StateSnapshot:
        """``state`` with the state of each pending task's subgraph in the task's ``state``."""
        return await self._subgraphs.with_subgraphs(state, engine)

    # -- sync forms (see _sync) --------------------------------------------------------

    def invoke(
        self, input: Any, config: Mapping[str, Any] | None = None, **options: Unpack[RunOptions]
    ) -> dict[str, Any]:
        """Sync form of :meth:`ainvoke`; async nodes run in a fresh event loop (CPython)."""
        return run_sync("invoke", self.ainvoke(input, config, **options))

    def stream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] = "updates",
        **options: Unpack[RunOptions],
    ) -> Iterator[Any]:
        """Sync form of :meth:`astream`: each chunk comes as the run reaches it."""
        return stream_sync(
            stream_mode, lambda: self.astream(input, config, stream_mode=stream_mode, **options)
        )

    def get_state(self, config: Any, *, subgraphs: bool = False) -> StateSnapshot:
        """Sync form of :meth:`aget_state`."""
        return run_sync("get_state", self.aget_state(config, subgraphs=subgraphs))

    def get_state_history(
        self,
        config: Any,
        *,
        limit: int | None = None,
        before: str | Mapping[str, Any] | None = None,
    ) -> Iterator[StateSnapshot]:
        """Sync form of :meth:`aget_state_history`: the snapshots, newest first."""

        async def collect() -> list[StateSnapshot]:
            return [s async for s in self.aget_state_history(config, limit=limit, before=before)]

        return iter(run_sync("get_state_history", collect()))

    def update_state(
        self, config: Any, values: Mapping[str, Any] | None, as_node: str | None = None
    ) -> dict[str, Any]:
        """Sync form of :meth:`aupdate_state`."""
        return run_sync("update_state", self.aupdate_state(config, values, as_node))


publish("pyctx_web.graph.state", CompiledStateGraph)
