"""The runnable graph: invoke, stream, inspect and edit the state of its threads."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import aclosing
from contextvars import copy_context
from typing import Any, TypedDict, Unpack

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.execution import ExecutionContext
from pyctx_web.graph._engine.channels import is_state_type
from pyctx_web.graph._engine.execute import execute
from pyctx_web.graph._engine.frames import Run, current_run
from pyctx_web.graph._engine.loop import Engine
from pyctx_web.graph._engine.options import (
    DONE,
    RunRequest,
    config_of,
    parse_config,
    stream_modes,
)
from pyctx_web.graph._engine.outcome import Outcome
from pyctx_web.graph._engine.records import decode_record
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._engine.spec import GraphSpec
from pyctx_web.graph._engine.values import StateSnapshot
from pyctx_web.graph._engine.views import snapshot, update_state
from pyctx_web.graph._runctx.lifecycle import (
    ActiveRuns,
    RunControl,
    RunHandle,
    managed,
    new_context,
)
from pyctx_web.graph._runctx.services import RunRuntime
from pyctx_web.graph._sync import SyncForms
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import InvalidGraphError
from pyctx_web.graph.events import EventBus, Listener

__all__ = ["CompiledStateGraph", "RunOptions"]

ExecutionContextArg = ExecutionContext | Mapping[str, Any] | None
Breakpoints = Sequence[str] | str | None


class RunOptions(TypedDict, total=False):
    """The keywords of ``invoke``, ``ainvoke``, ``stream``, ``astream`` and ``start``."""

    context: Any
    """The run's context (``runtime.context``, ``ctx.data``); a dict becomes the context schema."""
    data: Any
    """pyctx_web's name for ``context``: give one of them."""
    thread_id: Any
    """Shorthand for ``config={"configurable": {"thread_id": ...}}``."""
    interrupt_before: Breakpoints
    """Nodes to pause before in this run, instead of compile()'s."""
    interrupt_after: Breakpoints
    """Nodes to pause after in this run, instead of compile()'s."""
    execution_context: ExecutionContextArg
    """Tenant, user and correlation id: an ExecutionContext, or a mapping merged onto it."""


class CompiledStateGraph(SyncForms):
    """A checked graph, ready to run: made by :meth:`StateGraph.compile`.

    One compiled graph serves any number of concurrent runs; each finds its
    own state through the context store, never through shared attributes.
    """

    def __init__(
        self,
        spec: GraphSpec,
        *,
        checkpointer: Checkpointer | None,
        interrupt_before: frozenset[str],
        interrupt_after: frozenset[str],
        name: str,
        runtime: RunRuntime | None = None,
    ) -> None:
        if checkpointer is not None and not isinstance(checkpointer, Checkpointer):
            raise ArgumentTypeError(
                "checkpointer must be a checkpoint saver (InMemorySaver, SqliteSaver...),"
                f" not {type(checkpointer).__qualname__!r}"
            )
        self.spec = spec
        self.checkpointer = checkpointer
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.name = name
        self.serde = JsonSerde.for_schema(spec.schema.state_type)
        self.runtime = runtime if runtime is not None else RunRuntime(name, EventBus())
        """Tools, middleware, hooks, memory, default data and listeners of every run."""
        self._active = ActiveRuns()

    @property
    def nodes(self) -> tuple[str, ...]:
        """Node names in the order they were added."""
        return tuple(self.spec.nodes)

    def __repr__(self) -> str:
        return f"<CompiledStateGraph {self.name!r} nodes={list(self.spec.nodes)}>"

    def _engine(
        self,
        run: Run,
        request: RunRequest | None = None,
        before: Breakpoints = None,
        after: Breakpoints = None,
    ) -> Engine:
        return Engine(
            self.spec,
            self.serde,
            run,
            interrupt_before=self._breakpoints(before, "interrupt_before", self.interrupt_before),
            interrupt_after=self._breakpoints(after, "interrupt_after", self.interrupt_after),
            recursion_limit=request.recursion_limit if request is not None else 25,
        )

    def _breakpoints(
        self, names: Breakpoints, what: str, default: frozenset[str]
    ) -> frozenset[str]:
        """The nodes a call pauses at: its own ``interrupt_before``/``_after``, or compile()'s."""
        if names is None:
            return default
        if names == "*":
            return frozenset(self.spec.nodes)
        chosen = frozenset([names] if isinstance(names, str) else names)
        unknown = sorted(chosen - set(self.spec.nodes))
        if unknown:
            known = ", ".join(map(repr, self.spec.nodes))
            raise InvalidGraphError(f"{what}: unknown node(s) {unknown} (known nodes: {known})")
        if chosen and self.checkpointer is None:
            raise InvalidGraphError(f"{what} needs a checkpointer to pause and resume")
        return chosen

    def _run(self, input: Any, request: RunRequest, **stream: Any) -> Run:
        return Run(
            self.name,
            str(uuid.uuid4()),
            request.thread_id,
            self.checkpointer,
            input,
            config=request.config,
            **stream,
        )

    def _view(self, state: StateSnapshot) -> StateSnapshot:
        """A snapshot as the caller sees it (a graph that wraps its state changes it)."""
        return state

    def _present(self, mode: str, chunk: Any) -> Any:
        """A stream chunk as the caller sees it (a graph that wraps its state changes it)."""
        return chunk

    def _result(self, outcome: Outcome) -> Any:
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
        assert run.plug is not None
        return RunHandle(run.plug.context, control, task)

    def _prepare(
        self, input: Any, config: Mapping[str, Any] | None, options: RunOptions, **stream: Any
    ) -> tuple[Run, RunControl, Coroutine[Any, Any, Outcome]]:
        """A run with its context and cancel control, and the coroutine that executes it."""
        unknown = set(options) - set(RunOptions.__annotations__)
        if unknown:
            raise ArgumentTypeError(
                f"got an unexpected keyword argument {sorted(unknown)[0]!r}; "
                f"expected {', '.join(sorted(RunOptions.__annotations__))}"
            )
        request = parse_config(config, thread_id=options.get("thread_id"))
        run = self._run(input, request, **stream)
        control = RunControl(run.run_id, request.thread_id)
        plug = new_context(
            self.runtime,
            run,
            input,
            data=self._context_of(options),
            execution_context=options.get("execution_context"),
            control=control,
        )
        before, after = options.get("interrupt_before"), options.get("interrupt_after")
        engine = self._engine(run, request, before, after)
        return run, control, managed(plug, control, lambda: execute(engine, input, request))

    def _context_of(self, options: RunOptions) -> Any:
        """The run's ``context=`` (or ``data=``, its other name), as ``context_schema`` types it."""
        context, data = options.get("context"), options.get("data")
        if context is not None and data is not None:
            raise ArgumentTypeError("pass context= or data= (the same thing), not both")
        given = data if context is None else context
        schema = self.spec.context_schema
        if isinstance(given, Mapping) and schema is not None and is_state_type(schema):
            return schema(**given)  # LangGraph builds the context schema from a dict
        return given

    async def _tracked(
        self, control: RunControl, run: Run, body: Coroutine[Any, Any, Outcome]
    ) -> Any:
        self._active.add(control)
        try:
            outcome = await current_run.run(run, lambda: body)
            return self._result(outcome)
        finally:
            self._active.remove(control)

    def on(self, event: str, listener: Listener) -> Callable[[], None]:
        """Call ``listener(RunEvent)`` for every ``event`` of every run; return an unsubscribe.

        Events: ``run:start``, ``run:end``, ``node:start``, ``node:end``,
        ``tool:start``, ``tool:end``, ``interrupt``, ``token``, any custom name
        sent with ``ctx.emit``, or ``"*"`` for all of them.
        """
        return self.runtime.bus.on(event, listener)

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
        ``{"__interrupt__": (Interrupt, ...)}`` when the run pauses;
        ``"values"`` yields the state after the input and after each step;
        ``"custom"`` yields what nodes send through ``get_stream_writer()``.
        A list of modes yields ``(mode, chunk)`` pairs.
        """
        modes, single = stream_modes(stream_mode)
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        run, control, body = self._prepare(input, config, options, stream_modes=modes, queue=queue)
        # Closing the chunks when the caller stops early cancels the run and waits for it.
        async with aclosing(self._consume(run, control, body, queue)) as chunks:
            async for mode, chunk in chunks:
                chunk = self._present(mode, chunk)
                yield chunk if single else (mode, chunk)

    async def _consume(
        self,
        run: Run,
        control: RunControl,
        body: Coroutine[Any, Any, Outcome],
        queue: asyncio.Queue[tuple[str, Any]],
    ) -> AsyncGenerator[tuple[str, Any], None]:
        """Run ``body`` in a task of its own and yield its chunks as they come."""

        async def produce() -> None:
            self._active.add(control)
            try:
                await body
            finally:
                self._active.remove(control)
                queue.put_nowait((DONE, None))

        context = copy_context()
        context.run(current_run.enter_with, run)
        producer = asyncio.create_task(produce(), context=context)
        control.task = producer
        try:
            while (item := await queue.get())[0] != DONE:
                yield item
                queue.task_done()  # the run's next step waits for this
            await producer
        finally:
            if not producer.done():
                producer.cancel()
                # Waiting lets the run's finally blocks finish before we return.
                await asyncio.wait([producer])
            if not producer.cancelled():
                # Mark the run's own error as retrieved; it was raised above, or
                # the consumer stopped early and chose not to see it.
                producer.exception()

    # -- state -------------------------------------------------------------------------

    def _thread(self, config: Any, what: str) -> RunRequest:
        """A request from a config, or from a bare thread id (pyctx_web's shorthand)."""
        if isinstance(config, Mapping) or config is None:
            request = parse_config(config, what=what)
        else:
            request = parse_config(None, thread_id=config, what=what)
        run = self._run(None, request)
        self._engine(run).require_thread(request.thread_id, f"{what}()")
        return request

    async def aget_state(self, config: Any) -> StateSnapshot:
        """The state of the thread at its latest checkpoint (or the one the config names)."""
        request = self._thread(config, "get_state")
        assert request.thread_id is not None
        loaded = await self._engine(self._run(None, request)).load(
            request.thread_id, request.checkpoint_id
        )
        if loaded is None:
            return self._view(StateSnapshot({}, (), config_of(request.thread_id), None, None, None))
        return self._view(snapshot(self.spec.schema, *loaded))

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
        request = self._thread(config, "get_state_history")
        assert self.checkpointer is not None
        assert request.thread_id is not None
        if isinstance(before, Mapping):
            before = parse_config(before, what="before").checkpoint_id
        async for record in self.checkpointer.alist(request.thread_id, limit=limit, before=before):
            cp, pending = decode_record(self.serde, record)
            yield self._view(snapshot(self.spec.schema, cp, pending))

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
        request = self._thread(config, "update_state")
        assert request.thread_id is not None
        run = self._run(values, request)
        engine = self._engine(run)
        return await current_run.run(
            run, update_state, engine, request.thread_id, request.checkpoint_id, values, as_node
        )
