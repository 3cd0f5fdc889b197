"""The runnable graph: invoke, stream, inspect and edit the state of its threads."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Iterator, Mapping, Sequence
from contextvars import copy_context
from typing import TYPE_CHECKING, Any, TypeVar

from pyctx_web._env import IN_PYODIDE
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.execution import ExecutionContext
from pyctx_web.graph.config import (
    DEFAULT_RECURSION_LIMIT,
    DONE,
    config_of,
    next_item,
    parse_config,
    stream_modes,
)
from pyctx_web.graph.errors import (
    GraphConfigError,
    InvalidUpdateError,
    ResumeError,
    SyncUnavailableError,
)
from pyctx_web.graph.events import EventBus
from pyctx_web.graph.interrupt import plan_resume
from pyctx_web.graph.lifecycle import ActiveRuns, RunControl, RunHandle, managed, new_context
from pyctx_web.graph.records import (
    Checkpoint,
    Pending,
    TaskRecord,
    TaskResult,
    decode_record,
    new_checkpoint_id,
    now_iso,
    stable_id,
)
from pyctx_web.graph.run import Run, current_run
from pyctx_web.graph.run_context import RunRuntime
from pyctx_web.graph.runner import Engine, Outcome, current_values
from pyctx_web.graph.serde import JsonSerde
from pyctx_web.graph.types import (
    END,
    START,
    UNSET,
    Command,
    PregelTask,
    StateSnapshot,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyctx_web.graph.builder import GraphSpec
    from pyctx_web.graph.checkpoint.base import Checkpointer
    from pyctx_web.graph.events import Listener

__all__ = ["CompiledGraph"]

T = TypeVar("T")


class CompiledGraph:
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
        from pyctx_web.graph.checkpoint.base import Checkpointer

        if checkpointer is not None and not isinstance(checkpointer, Checkpointer):
            raise ArgumentTypeError(
                "checkpointer must be a Checkpointer (InMemoryCheckpointer, SQLiteCheckpointer...),"
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
        return f"<CompiledGraph {self.name!r} nodes={list(self.spec.nodes)}>"

    # -- helpers ---------------------------------------------------------------------

    def _new_run(
        self,
        input: Any,
        thread_id: str | None,
        modes: frozenset[str] = frozenset(),
        queue: asyncio.Queue[tuple[str, Any]] | None = None,
    ) -> Run:
        return Run(self.name, str(uuid.uuid4()), thread_id, self.checkpointer, input, modes, queue)

    def _engine(self, run: Run, recursion_limit: int = DEFAULT_RECURSION_LIMIT) -> Engine:
        return Engine(
            self.spec,
            self.serde,
            run,
            interrupt_before=self.interrupt_before,
            interrupt_after=self.interrupt_after,
            recursion_limit=recursion_limit,
        )

    def _require_thread(self, thread_id: str | None, what: str) -> tuple[Checkpointer, str]:
        if self.checkpointer is None:
            raise GraphConfigError(
                f"{what} needs a checkpointer: compile(checkpointer=InMemoryCheckpointer())"
            )
        if thread_id is None:
            raise GraphConfigError(
                f"{what} needs a thread_id because the graph has a checkpointer: "
                f"pass thread_id='...' (or config={{'configurable': {{'thread_id': '...'}}}})"
            )
        return self.checkpointer, thread_id

    async def _load(
        self, thread_id: str, checkpoint_id: str | None
    ) -> tuple[Checkpoint, Pending] | None:
        assert self.checkpointer is not None
        record = await self.checkpointer.aget(thread_id, checkpoint_id)
        if record is None:
            if checkpoint_id is not None:
                raise GraphConfigError(f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}")
            return None
        return decode_record(self.serde, record)

    def _result(self, outcome: Outcome) -> dict[str, Any]:
        values = self.spec.schema.output(outcome.values)
        if outcome.interrupts:
            values["__interrupt__"] = list(outcome.interrupts)
        return values

    # -- running ---------------------------------------------------------------------

    async def _execute(
        self, input: Any, thread_id: str | None, checkpoint_id: str | None, limit: int, run: Run
    ) -> Outcome:
        engine = self._engine(run, limit)
        if self.checkpointer is None:
            if isinstance(input, Command):
                raise GraphConfigError(
                    "Command(resume=...) needs a checkpointer that saved the paused run: "
                    "compile(checkpointer=InMemoryCheckpointer()) and pass a thread_id"
                )
            if input is None:
                raise GraphConfigError(
                    "ainvoke(None) continues a saved run and needs a checkpointer: "
                    "compile(checkpointer=InMemoryCheckpointer()) and pass a thread_id"
                )
            cp = await engine.start(input, None)
            return await engine.loop(cp, Pending(), skip_breakpoint=False)
        what = "Command(resume=...)" if isinstance(input, Command) else "a graph run"
        _, thread_id = self._require_thread(thread_id, what)
        latest = await self._load(thread_id, None)
        target = latest if checkpoint_id is None else await self._load(thread_id, checkpoint_id)
        is_fork = target is not None and latest is not None and target[0].id != latest[0].id

        if isinstance(input, Command):
            if input.update is not None or input.goto is not None:
                raise InvalidUpdateError(
                    "ainvoke() accepts Command(resume=...) only; to change the state use "
                    "aupdate_state(), and return Command(update=..., goto=...) from a node"
                )
            if input.resume is UNSET:
                raise ResumeError(
                    "Command() passed to ainvoke() needs resume=<answer>",
                    thread_id=thread_id,
                    checkpoint_id=None,
                )
            if target is None:
                raise ResumeError(
                    f"nothing to resume: thread {thread_id!r} has no checkpoint",
                    thread_id=thread_id,
                    checkpoint_id=None,
                )
            cp, pending = target
            if is_fork:
                raise ResumeError(
                    f"checkpoint {cp.id!r} is not the latest of thread {thread_id!r}; run "
                    f"ainvoke(None, config=...) with it first to fork, then answer the fork",
                    thread_id=thread_id,
                    checkpoint_id=cp.id,
                    pending_ids=[i.id for i in pending.waiting(cp.tasks)],
                )
            answers = plan_resume(input.resume, cp, pending)
            task_by_id = {t.id: t for t in cp.tasks}
            items = []
            before: dict[str, TaskRecord] = {}
            for task_id, answer in answers.items():
                rec = pending.tasks[task_id]
                before[task_id] = TaskRecord(
                    interrupt=rec.interrupt,
                    interrupt_index=rec.interrupt_index,
                    answers=list(rec.answers),
                    error=rec.error,
                )
                rec.answers.append(answer)
                items.append((task_by_id[task_id], "resume", rec))
            await engine.save_writes(cp, items)
            try:
                return await engine.loop(cp, pending, skip_breakpoint=True)
            except asyncio.CancelledError:
                await self._withdraw_answers(engine, cp, before)
                raise

        if input is None:
            if target is None:
                raise GraphConfigError(
                    f"thread {thread_id!r} has no checkpoint to continue from: "
                    f"start it with an input"
                )
            cp, pending = target
            if is_fork:
                cp = await self._fork(engine, cp)
                return await engine.loop(cp, Pending(), skip_breakpoint=False)
            if pending.waiting(cp.tasks):
                return engine.paused(cp, pending)
            skip = pending.breakpoint_hit or cp.skip_breakpoint
            return await engine.loop(cp, pending, skip_breakpoint=skip)

        base = target[0] if target is not None else None
        cp = await engine.start(input, base)
        return await engine.loop(cp, Pending(), skip_breakpoint=False)

    async def _withdraw_answers(
        self, engine: Engine, cp: Checkpoint, before: dict[str, TaskRecord]
    ) -> None:
        """Take back the saved answers of a cancelled resume, so its questions wait again.

        Only while ``cp`` is still the thread's latest checkpoint, and only for
        tasks whose saved record shows no result, error or new question since.
        """
        loaded = await self._load(cp.thread_id, None)
        if loaded is None or loaded[0].id != cp.id:
            return
        saved = loaded[1].tasks
        task_by_id = {t.id: t for t in cp.tasks}
        items = []
        for task_id, old in before.items():
            rec = saved.get(task_id)
            if rec is None or rec.result is not None:
                continue
            if (rec.interrupt_index, rec.error) == (old.interrupt_index, old.error):
                items.append((task_by_id[task_id], "resume", old))
        await engine.save_writes(cp, items)

    async def _fork(self, engine: Engine, source: Checkpoint) -> Checkpoint:
        cid = new_checkpoint_id()
        tasks = tuple(
            type(t)(stable_id(cid, "fork", i, t.name), t.name, t.arg)
            for i, t in enumerate(source.tasks)
        )
        fork = Checkpoint(
            id=cid,
            thread_id=source.thread_id,
            parent_id=source.id,
            created_at=now_iso(),
            step=source.step,
            source="fork",
            values=source.values,
            tasks=tasks,
            last_nodes=source.last_nodes,
            writes=None,
        )
        await engine.save_checkpoint(fork)
        return fork

    async def ainvoke(
        self,
        input: Any,
        *,
        thread_id: str | None = None,
        config: Mapping[str, Any] | None = None,
        data: Any = None,
        execution_context: ExecutionContext | Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run the graph and return the state values.

        ``input`` is a dict (or dataclass) of state values that starts a run,
        ``Command(resume=...)`` that answers a paused run, or ``None`` that
        continues the thread's saved run. While paused, the values also hold
        ``"__interrupt__": [Interrupt(value, id), ...]``. A new input on a
        paused thread starts a new run and drops the pending questions.
        ``config={"configurable": {"thread_id": ..., "checkpoint_id": ...},
        "recursion_limit": 25}`` is accepted as in LangGraph; naming an older
        checkpoint forks the thread from it.

        ``data`` is merged onto the graph's default data for this run
        (``ctx.data``); ``execution_context`` (an :class:`ExecutionContext`, or a
        mapping merged onto the current one) is what the run's nodes and tools
        see through ``current_execution_context()``. A cancelled run raises
        :class:`RunCancelledError`.
        """
        handle = self.start(
            input,
            thread_id=thread_id,
            config=config,
            data=data,
            execution_context=execution_context,
        )
        return await handle

    def start(
        self,
        input: Any,
        *,
        thread_id: str | None = None,
        config: Mapping[str, Any] | None = None,
        data: Any = None,
        execution_context: ExecutionContext | Mapping[str, Any] | None = None,
    ) -> RunHandle:
        """Start a run in a task of its own and return its handle, without waiting.

        Takes what :meth:`ainvoke` takes; ``await handle`` gives what ``ainvoke``
        returns, and ``handle.cancel()`` stops the run. Needs a running event loop.
        """
        run, control, body = self._prepare(input, thread_id, config, data, execution_context)
        task = asyncio.get_running_loop().create_task(self._tracked(control, run, body))
        control.task = task
        assert run.context is not None
        return RunHandle(run.context, control, task)

    def _prepare(
        self,
        input: Any,
        thread_id: str | None,
        config: Mapping[str, Any] | None,
        data: Any,
        execution_context: ExecutionContext | Mapping[str, Any] | None,
        modes: frozenset[str] = frozenset(),
        queue: asyncio.Queue[tuple[str, Any]] | None = None,
    ) -> tuple[Run, RunControl, Coroutine[Any, Any, Outcome]]:
        """A run with its context and cancel control, and the coroutine that executes it."""
        tid, cid, limit = parse_config(thread_id, config)
        run = self._new_run(input, tid, modes, queue)
        control = RunControl(run.run_id, tid)
        ctx = new_context(
            self.runtime,
            run,
            input,
            data=data,
            execution_context=execution_context,
            control=control,
        )
        body = managed(
            self.runtime, ctx, control, lambda: self._execute(input, tid, cid, limit, run)
        )
        return run, control, body

    async def _tracked(
        self, control: RunControl, run: Run, body: Coroutine[Any, Any, Outcome]
    ) -> dict[str, Any]:
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

    async def cancel(self, thread_id: str | None, reason: str | None = None) -> int:
        """Cancel every run of ``thread_id`` that is executing now; wait until they stop.

        Each stops at its next ``await``; its caller gets ``RunCancelledError``.
        Return how many runs were cancelled.
        """
        controls = self._active.of(thread_id)
        for control in controls:
            control.cancel(reason)
        tasks = [c.task for c in controls if c.task is not None]
        if tasks:
            await asyncio.wait(tasks)
        return len(controls)

    async def astream(
        self,
        input: Any,
        *,
        thread_id: str | None = None,
        config: Mapping[str, Any] | None = None,
        stream_mode: str | Sequence[str] = "updates",
        data: Any = None,
        execution_context: ExecutionContext | Mapping[str, Any] | None = None,
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
        run, control, body = self._prepare(
            input, thread_id, config, data, execution_context, modes, queue
        )

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
            while True:
                mode, chunk = await queue.get()
                if mode == DONE:
                    break
                yield chunk if single else (mode, chunk)
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

    def _snapshot(self, cp: Checkpoint, pending: Pending) -> StateSnapshot:
        tasks = []
        for t in cp.tasks:
            rec = pending.tasks.get(t.id)
            if rec is None:
                tasks.append(PregelTask(t.id, t.name))
                continue
            tasks.append(
                PregelTask(
                    t.id,
                    t.name,
                    interrupts=(rec.interrupt,) if rec.waiting and rec.interrupt else (),
                    error=rec.error if rec.result is None else None,
                    result=dict(rec.result.updates) if rec.result is not None else None,
                )
            )
        values = current_values(self.spec.schema, cp, pending)
        return StateSnapshot(
            values=self.spec.schema.output(values),
            next=tuple(t.name for t in tasks if t.result is None),
            config=config_of(cp.thread_id, cp.id),
            metadata=cp.metadata(),
            created_at=cp.created_at,
            parent_config=config_of(cp.thread_id, cp.parent_id) if cp.parent_id else None,
            tasks=tuple(tasks),
            interrupts=tuple(pending.waiting(cp.tasks)),
        )

    async def aget_state(
        self,
        thread_id: str | Mapping[str, Any] | None = None,
        *,
        config: Mapping[str, Any] | None = None,
    ) -> StateSnapshot:
        """The state of the thread at its latest checkpoint (or the one the config names)."""
        if isinstance(thread_id, Mapping):
            tid, cid, _ = parse_config(None, thread_id)
        else:
            tid, cid, _ = parse_config(thread_id, config)
        _, tid = self._require_thread(tid, "aget_state()")
        loaded = await self._load(tid, cid)
        if loaded is None:
            return StateSnapshot({}, (), config_of(tid), None, None, None)
        return self._snapshot(*loaded)

    async def aget_state_history(
        self,
        thread_id: str | Mapping[str, Any],
        *,
        limit: int | None = None,
        before: str | Mapping[str, Any] | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        """Yield the thread's checkpoints as snapshots, newest first.

        ``before`` (a checkpoint id or a config naming one) starts below that
        checkpoint; ``limit`` caps how many are yielded.
        """
        if isinstance(thread_id, Mapping):
            tid, _, _ = parse_config(None, thread_id)
        else:
            tid, _, _ = parse_config(thread_id, None)
        checkpointer, tid = self._require_thread(tid, "aget_state_history()")
        if isinstance(before, Mapping):
            before = parse_config(None, before)[1]
        async for record in checkpointer.alist(tid, limit=limit, before=before):
            yield self._snapshot(*decode_record(self.serde, record))

    async def aupdate_state(
        self,
        thread_id: str | Mapping[str, Any],
        values: Mapping[str, Any] | None,
        *,
        as_node: str | None = None,
    ) -> dict[str, Any]:
        """Write ``values`` as if ``as_node`` returned them; return the new checkpoint's config.

        The reducers apply. ``as_node`` defaults to the node that ran last;
        the next step is planned from its edges, so ``ainvoke(None)`` continues
        from there. ``as_node=END`` ends the run: a pending question is dropped.
        A question still waiting on the same node stays pending with its id.
        """
        if isinstance(thread_id, Mapping):
            tid, cid, _ = parse_config(None, thread_id)
        else:
            tid, cid, _ = parse_config(thread_id, None)
        _, tid = self._require_thread(tid, "aupdate_state()")
        run = self._new_run(values, tid)
        return await current_run.run(run, self._update, tid, cid, values, as_node, run)

    async def _update(
        self,
        thread_id: str,
        checkpoint_id: str | None,
        values: Mapping[str, Any] | None,
        as_node: str | None,
        run: Run,
    ) -> dict[str, Any]:
        engine = self._engine(run)
        loaded = await self._load(thread_id, checkpoint_id)
        cp, pending = loaded if loaded is not None else (None, Pending())
        if as_node is None:
            last = cp.last_nodes if cp is not None else (START,)
            if len(last) != 1:
                raise InvalidUpdateError(
                    f"cannot tell which node the update comes from: nodes "
                    f"{', '.join(map(repr, last))} ran last; pass as_node=..."
                )
            as_node = last[0]
        if as_node not in self.spec.nodes and as_node not in (START, END):
            known = ", ".join(repr(n) for n in self.spec.nodes)
            raise InvalidUpdateError(
                f"aupdate_state(): as_node {as_node!r} is not a node (known nodes: {known})"
            )
        updates = self.spec.schema.check_update(as_node, values)
        base = self.spec.schema.with_defaults(cp.values if cp is not None else {})
        new_values = self.spec.schema.apply(base, [(as_node, k, v) for k, v in updates])
        new_id = new_checkpoint_id()
        tasks: tuple[Any, ...] = ()
        if as_node != END:
            tasks = await engine.plan(new_id, [(as_node, TaskResult(updates))], new_values)
        # A question still waiting on the same node keeps its task, hence its id.
        carried = Pending()
        if cp is not None:
            waiting = [t for t in cp.tasks if (r := pending.tasks.get(t.id)) and r.waiting]
            replaced = list(tasks)
            for i, task in enumerate(replaced):
                match = next(
                    (w for w in waiting if w.name == task.name and w.arg == task.arg), None
                )
                if match is not None:
                    waiting.remove(match)
                    replaced[i] = match
                    old = pending.tasks[match.id]
                    rec = carried.record(match.id)
                    rec.interrupt, rec.interrupt_index = old.interrupt, old.interrupt_index
                    rec.answers = list(old.answers)
            tasks = tuple(replaced)
        new = Checkpoint(
            id=new_id,
            thread_id=thread_id,
            parent_id=cp.id if cp is not None else None,
            created_at=now_iso(),
            step=cp.step + 1 if cp is not None else -1,
            source="update",
            values=new_values,
            tasks=tasks,
            last_nodes=(as_node,),
            writes={as_node: dict(updates)},
            skip_breakpoint=cp is not None and (cp.skip_breakpoint or pending.breakpoint_hit),
        )
        await engine.save_checkpoint(new)
        task_of = {t.id: t for t in tasks}
        items = []
        for task_id, rec in carried.tasks.items():
            items.append((task_of[task_id], "interrupt", rec))
            if rec.answers:
                items.append((task_of[task_id], "resume", rec))
        await engine.save_writes(new, items)
        return config_of(thread_id, new_id)

    # -- sync forms ------------------------------------------------------------------------

    @staticmethod
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

    @classmethod
    def _run_sync(cls, name: str, coro: Coroutine[Any, Any, T]) -> T:
        try:
            cls._check_sync(name)
        except SyncUnavailableError:
            coro.close()
            raise
        return asyncio.run(coro)

    def invoke(
        self, input: Any, *, thread_id: str | None = None, config: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Sync form of :meth:`ainvoke` (CPython only; runs async nodes in a fresh event loop)."""
        return self._run_sync("invoke", self.ainvoke(input, thread_id=thread_id, config=config))

    def stream(
        self,
        input: Any,
        *,
        thread_id: str | None = None,
        config: Mapping[str, Any] | None = None,
        stream_mode: str | Sequence[str] = "updates",
    ) -> Iterator[Any]:
        """Sync form of :meth:`astream` (CPython only); chunks come as the run makes them."""
        self._check_sync("stream")
        stream_modes(stream_mode)
        return self._stream_sync(input, thread_id, config, stream_mode)

    def _stream_sync(
        self,
        input: Any,
        thread_id: str | None,
        config: Mapping[str, Any] | None,
        stream_mode: str | Sequence[str],
    ) -> Iterator[Any]:
        with asyncio.Runner() as runner:
            agen = self.astream(input, thread_id=thread_id, config=config, stream_mode=stream_mode)
            try:
                while True:
                    try:
                        item = runner.run(next_item(agen))
                    except StopAsyncIteration:
                        return
                    yield item
            finally:
                runner.run(agen.aclose())

    def get_state(
        self,
        thread_id: str | Mapping[str, Any] | None = None,
        *,
        config: Mapping[str, Any] | None = None,
    ) -> StateSnapshot:
        """Sync form of :meth:`aget_state` (CPython only)."""
        return self._run_sync("get_state", self.aget_state(thread_id, config=config))

    def get_state_history(
        self,
        thread_id: str | Mapping[str, Any],
        *,
        limit: int | None = None,
        before: str | Mapping[str, Any] | None = None,
    ) -> list[StateSnapshot]:
        """Sync form of :meth:`aget_state_history`, as a list (CPython only)."""

        async def collect() -> list[StateSnapshot]:
            return [s async for s in self.aget_state_history(thread_id, limit=limit, before=before)]

        return self._run_sync("get_state_history", collect())

    def update_state(
        self,
        thread_id: str | Mapping[str, Any],
        values: Mapping[str, Any] | None,
        *,
        as_node: str | None = None,
    ) -> dict[str, Any]:
        """Sync form of :meth:`aupdate_state` (CPython only)."""
        return self._run_sync(
            "update_state", self.aupdate_state(thread_id, values, as_node=as_node)
        )
