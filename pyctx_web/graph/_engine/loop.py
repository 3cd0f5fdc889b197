"""The superstep loop: run a step's tasks concurrently, save their writes, plan the next step.

Each step runs the tasks a checkpoint lists, all at once, each in its own copy
of the run's context. A task that finishes, asks a question or fails leaves a
pending write on the checkpoint (saved as it happens when the step has several
tasks). When every task has finished, their writes are applied in task order,
the next step's tasks are planned from the edges, routers and ``Command(goto)``,
and a new checkpoint is written. A step with a question waiting or a failed
task stops there; continuing it runs only the tasks that have not finished.
"""

from __future__ import annotations

import asyncio
from contextvars import copy_context
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyctx_web.context import ContextCoroutine, is_awaitable
from pyctx_web.graph._engine.calling import NodeCalls, node_error
from pyctx_web.graph._engine.checkpoints import CheckpointAccess
from pyctx_web.graph._engine.frames import Run, TaskFrame, current_task
from pyctx_web.graph._engine.ids import new_checkpoint_stamp
from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph._engine.options import DEFAULT_RECURSION_LIMIT
from pyctx_web.graph._engine.outcome import EngineResult, current_values, retake_input, step_writes
from pyctx_web.graph._engine.planner import Planner
from pyctx_web.graph._engine.records import (
    NO_ARG,
    Checkpoint,
    Pending,
    TaskRecord,
    TaskResult,
    TaskSpec,
    encode_write,
    task_id,
)
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._engine.spec import GraphSpec
from pyctx_web.graph._engine.streams import emit_task, emit_task_result
from pyctx_web.graph._values import Interrupt
from pyctx_web.graph.constants import START
from pyctx_web.graph.errors import (
    GraphError,
    GraphInterrupt,
    GraphRecursionError,
)

if TYPE_CHECKING:
    from collections.abc import Coroutine

__all__ = ["Engine"]


@dataclass(slots=True)
class _TaskOutcome:
    """What one attempt sequence of a task produced."""

    result: TaskResult | None = None
    raw: Any = None
    interrupt: Interrupt | None = None
    index: int = -1
    error: Exception | None = None


class Engine:
    """Runs the steps of one invocation of a compiled graph.

    ``checkpoints`` reads and writes the run's thread; ``calls`` calls its nodes.
    """

    def __init__(
        self,
        spec: GraphSpec,
        serde: JsonSerde,
        run: Run,
        *,
        interrupt_before: frozenset[str] = frozenset(),
        interrupt_after: frozenset[str] = frozenset(),
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
        durability: str = "sync",
    ) -> None:
        self.spec = spec
        self.schema = spec.schema
        self.planner = Planner(spec)
        self.run = run
        self.checkpoints = CheckpointAccess(run.checkpointer, serde, spec.schema, run, durability)
        self.calls = NodeCalls(run, spec.schema, self.planner)
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.recursion_limit = recursion_limit

    # -- values --------------------------------------------------------------------

    def emit_values(self, cp: Checkpoint, pending: Pending) -> None:
        """Stream the state a resumed or continued run starts from."""
        if self.run.listens("values"):
            self.run.emit("values", self.schema.output(current_values(self.schema, cp, pending)))

    def paused(self, cp: Checkpoint, pending: Pending) -> EngineResult:
        """The outcome of a run that stops at ``cp`` with questions waiting."""
        waiting = pending.waiting(cp.tasks)
        values = current_values(self.schema, cp, pending)
        self.run.emit("updates", {"__interrupt__": tuple(waiting)})
        if self.run.listens("values"):
            self.run.emit("values", {**self.schema.output(values), "__interrupt__": tuple(waiting)})
        return EngineResult(cp, values, waiting)

    # -- starting ------------------------------------------------------------------

    async def start(self, input: Any, base: Checkpoint | None) -> tuple[Checkpoint, Pending]:
        """Write the ``input`` checkpoint of a new run on top of ``base``.

        As in LangGraph, the input is the write of a ``__start__`` task: the
        checkpoint holds the values before it (the keys' defaults for a new
        thread), and the first step applies it.
        """
        values = self.schema.with_defaults(base.values if base is not None else {})
        updates = self.schema.check_update(START, input)
        cid, created_at = new_checkpoint_stamp()
        self.run.step = base.step + 1 if base is not None else -1
        task = TaskSpec(task_id(cid, "start"), START)
        cp = Checkpoint(
            id=cid,
            thread_id=self.run.thread_id or "",
            parent_id=base.id if base is not None else None,
            created_at=created_at,
            step=self.run.step,
            source="input",
            values=values,
            tasks=(task,),
            last_nodes=base.last_nodes if base is not None else (),
            writes={START: dict(updates)},
        )
        pending = Pending()
        record = pending.record(task.id)
        record.result = TaskResult(updates)
        if self.checkpoints.checkpointer is not None:
            # Encoded first: a value that cannot be stored is refused naming its state key,
            # before anything is written.
            write = encode_write(self.checkpoints.serde, task, "result", record)
            await self.checkpoints.save_checkpoint(cp, [write])
        return cp, pending

    # -- the loop ------------------------------------------------------------------

    async def loop(
        self, cp: Checkpoint, pending: Pending, *, skip_breakpoint: bool
    ) -> EngineResult:
        """Run steps from ``cp`` until the graph ends, pauses, or a task fails."""
        steps = 0
        while True:
            if self.run.queue is not None:
                # A stream goes on only when its consumer has taken the last step's chunks,
                # so that what nodes print interleaves with the chunks as in LangGraph.
                await self.run.queue.join()
            self.run.step = cp.step + 1
            if not cp.tasks:
                return EngineResult(cp, cp.values)
            if cp.source != "loop":  # only an input checkpoint (or a fork of one) has it
                retake_input(cp, pending)
            runnable = [
                t
                for t in cp.tasks
                if (rec := pending.tasks.get(t.id)) is None
                or (rec.result is None and not rec.waiting)
            ]
            if not runnable:
                if pending.waiting(cp.tasks):
                    return self.paused(cp, pending)
            elif (
                self.interrupt_before
                and not (skip_breakpoint or cp.skip_breakpoint or pending.breakpoint_hit)
                and any(t.name in self.interrupt_before for t in runnable)
            ):
                pending.breakpoint_hit = True
                await self.checkpoints.save_writes(cp, [(None, "breakpoint", TaskRecord())])
                self.run.emit("updates", {"__interrupt__": ()})
                return EngineResult(cp, current_values(self.schema, cp, pending))
            errors = await self._run_step(cp, pending, runnable)
            if errors:
                raise errors[0]
            if pending.waiting(cp.tasks):
                return self.paused(cp, pending)
            # The input's __start__ step is not counted, as in LangGraph.
            steps += cp.source != "input"
            new = await self._advance(cp, pending)
            if self.interrupt_after and any(t.name in self.interrupt_after for t in cp.tasks):
                return await self._after_breakpoint(new)
            if new.tasks and steps >= self.recursion_limit:
                raise GraphRecursionError(
                    f"recursion limit of {self.recursion_limit} steps reached without the graph "
                    f"ending; raise it with config={{'recursion_limit': n}}",
                    limit=self.recursion_limit,
                )
            cp, pending, skip_breakpoint = new, Pending(), False

    async def _after_breakpoint(self, new: Checkpoint) -> EngineResult:
        """Pause after an ``interrupt_after`` node, once even if the next node is in
        ``interrupt_before``: continuing runs that node without pausing again."""
        if any(t.name in self.interrupt_before for t in new.tasks):
            await self.checkpoints.save_writes(new, [(None, "breakpoint", TaskRecord())])
        self.run.emit("updates", {"__interrupt__": ()})
        return EngineResult(new, new.values)

    async def _advance(self, cp: Checkpoint, pending: Pending) -> Checkpoint:
        """Apply the finished step of ``cp`` and write the next checkpoint."""
        values = self.schema.apply(cp.values, step_writes(cp, pending))
        cid, created_at = new_checkpoint_stamp()
        finished: list[tuple[str, TaskResult]] = []
        meta: dict[str, Any] = {}
        answered: list[str] = []
        for task in cp.tasks:
            rec = pending.tasks[task.id]
            result, name = rec.result, task.name
            assert result is not None
            finished.append((name, result))
            update = dict(result.updates)
            if name not in meta:
                meta[name] = update
            else:
                previous = meta[name]
                meta[name] = [*previous, update] if type(previous) is list else [previous, update]
            if rec.answers:
                answered.extend(interrupt_id(task.id, i) for i in range(len(rec.answers)))
        tasks, barriers = await self.planner.plan(cid, finished, values, cp.barriers)
        new = Checkpoint(
            id=cid,
            thread_id=cp.thread_id,
            parent_id=cp.id,
            created_at=created_at,
            step=cp.step + 1,
            source="loop",
            values=values,
            tasks=tasks,
            last_nodes=tuple(meta),  # the nodes of the step, each once, in task order
            writes=meta,
            answered=tuple(answered),
            barriers=barriers,
        )
        if not self.checkpoints.saved_now(new):
            await self.checkpoints.save_checkpoint(new)
        if self.run.listens("values") and any(meta.values()):
            self.run.emit("values", self.schema.output(values))
        return new

    async def _run_step(
        self, cp: Checkpoint, pending: Pending, runnable: list[TaskSpec]
    ) -> list[Exception]:
        """Run ``runnable`` concurrently and record their outcomes; return their errors."""
        save_each = len(cp.tasks) > 1

        async def one(task: TaskSpec) -> Exception | None:
            rec = pending.record(task.id)
            frame = TaskFrame(self.run, task, list(rec.answers), checkpoint_id=cp.id)
            frame.asked = rec.interrupt
            if rec.task_results:
                frame.task_results.update(rec.task_results)
            # gather() gives this coroutine a task, hence a context, of its own.
            current_task.enter_with(frame)
            if self.run.queue is not None:
                emit_task(self.run, self.schema, cp, task)
            extension = self.run.extension
            if extension is None:
                out = await self._attempts(task, frame, cp)
            else:
                out = await extension.around_node(
                    task,
                    lambda: self._attempts(task, frame, cp),
                    lambda error: _TaskOutcome(error=error),
                )
            if self.run.queue is not None:
                emit_task_result(self.run, cp.step + 1, task, out.raw, out.error, out.interrupt)
            if out.result is not None and not save_each:
                rec.result = out.result  # the next checkpoint holds it: nothing to write now
            else:
                error = await self._record(cp, pending, task, rec, out, frame, save_each)
                if error is not None:
                    return error
            if out.result is not None and self.run.listens("updates"):
                self.run.emit("updates", {task.name: out.raw})
            return out.error

        if len(runnable) == 1:
            # A lone task needs no concurrency: it runs in a context copy of its own, as
            # gather() would give it, without the cost of a new asyncio task.
            results = [await ContextCoroutine(one(runnable[0]), copy_context())]
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                # A cancel asked for while the task ran (ctx.cancel() in a tool) waits for
                # the next suspension; deliver it now, as gather() would, so that the
                # step's result is not checkpointed and no later node runs.
                await asyncio.sleep(0)
        else:
            ended = await asyncio.gather(*(_settled(one(t)) for t in runnable))
            # Every task has ended before the step does, whatever one of them raised: a
            # sibling must not go on writing the thread after the run has stopped.
            for _, raised in ended:
                if raised is not None:
                    raise raised
            results = [error for error, _ in ended]
        return [e for e in results if e is not None]

    async def _record(
        self,
        cp: Checkpoint,
        pending: Pending,
        task: TaskSpec,
        rec: TaskRecord,
        out: _TaskOutcome,
        frame: TaskFrame,
        save_each: bool,
    ) -> Exception | None:
        """Record how ``task`` ended and save it; return the error of an unsaveable result."""
        if pending.refuses(task.id, out.error):
            return out.error  # a refused resume writes nothing: the question still waits
        kind = "result" if out.result is not None else "interrupt" if out.interrupt else "error"
        if out.result is not None:
            rec.result = out.result
        elif out.interrupt is not None:
            rec.interrupt, rec.interrupt_index = out.interrupt, out.index
        else:
            rec.error = f"{type(out.error).__name__}: {out.error}"
        items = [(task, kind, rec)]
        if task.id in pending.unsaved_answers and kind != "result":
            # The answers that let the task run this time go with what it did.
            items.append((task, "resume", rec))
        pending.unsaved_answers.discard(task.id)
        if frame.task_results and kind != "result":
            # Finished @task calls are not run again when the node runs again.
            rec.task_results = frame.task_results
            items.append((task, "tasks", rec))
        if save_each or kind != "result":
            updates = None
            if pending.unsaved_updates and kind != "result":
                updates, pending.unsaved_updates = pending.input_updates, False
            try:
                await self.checkpoints.save_writes(cp, items, input_updates=updates)
            except Exception as exc:
                # An unsaveable result must not count as finished.
                rec.result = None
                rec.error = f"{type(exc).__name__}: {exc}"
                return exc
        return None

    async def _attempts(self, task: TaskSpec, frame: TaskFrame, cp: Checkpoint) -> _TaskOutcome:
        node = self.spec.nodes[task.name]
        calls = self.calls
        policy = node.retry
        attempt = 0
        while True:
            attempt += 1
            frame.reset()
            try:
                if task.arg is not NO_ARG:
                    arg = task.arg
                elif node.reads is None:
                    arg = self.schema.to_state(cp.values, task.name)
                else:
                    arg = calls.state_of(node, cp.values)
                if self.run.queue is not None and "messages" in self.run.stream_modes:
                    ret = await calls.streaming(node, arg, frame)
                else:
                    ret = calls.call(node, arg, frame) if node.inject else node.fn(arg)
                if is_awaitable(ret):
                    ret = await ret
                result, raw = calls.to_result(task.name, ret)
                return _TaskOutcome(result=result, raw=raw)
            except GraphInterrupt as gi:
                # Never retried: the question waits for an answer.
                if frame.raised_index is None or not gi.interrupts:
                    err = GraphError(
                        f"node {task.name!r} raised GraphInterrupt itself; "
                        f"call interrupt(value) to pause a node"
                    )
                    return _TaskOutcome(error=err)
                return _TaskOutcome(interrupt=gi.interrupts[0], index=frame.raised_index)
            except (Exception, asyncio.CancelledError) as caught:
                exc = node_error(task.name, caught)
                if policy is None or attempt >= policy.max_attempts or not policy.should_retry(exc):
                    return _TaskOutcome(error=exc)
                await asyncio.sleep(policy.delay(attempt))


async def _settled(
    step: Coroutine[Any, Any, Exception | None],
) -> tuple[Exception | None, BaseException | None]:
    """Run a task of a step to its end: what it returned, or what it raised."""
    try:
        return await step, None
    except BaseException as raised:  # re-raised by the step once all its tasks ended
        return None, raised
