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
from functools import partial
from time import perf_counter
from types import CoroutineType
from typing import TYPE_CHECKING, Any

from pyctx_web.context import ContextCoroutine, is_awaitable
from pyctx_web.graph._engine import outcome
from pyctx_web.graph._engine.calling import NodeCalls, node_error
from pyctx_web.graph._engine.checkpoints import CheckpointAccess
from pyctx_web.graph._engine.frames import Run, TaskFrame, current_task
from pyctx_web.graph._engine.ids import new_checkpoint_stamp
from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph._engine.messages_mode import LC_MODES
from pyctx_web.graph._engine.options import DEFAULT_RECURSION_LIMIT
from pyctx_web.graph._engine.outcome import (
    EngineResult,
    TaskOutcome,
    current_values,
    failed_outcome,
    retake_input,
    runnable_tasks,
)
from pyctx_web.graph._engine.planner import Planner
from pyctx_web.graph._engine.records import (
    NO_ARG,
    Checkpoint,
    Pending,
    TaskRecord,
    TaskResult,
    TaskSpec,
)
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._engine.spec import GraphSpec
from pyctx_web.graph._engine.streams import (
    emit_asked,
    emit_checkpoint,
    emit_question,
    emit_task,
    emit_task_result,
)
from pyctx_web.graph.errors import (
    GraphError,
    GraphInterrupt,
    GraphRecursionError,
)

if TYPE_CHECKING:
    from collections.abc import Coroutine, Sequence

__all__ = ["Engine"]


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

    def emit_values(self, cp: Checkpoint, pending: Pending) -> None:
        """Stream the state a resumed or continued run starts from."""
        if self.run.listens("values"):
            self.run.emit("values", self.schema.output(current_values(self.schema, cp, pending)))

    def paused(self, cp: Checkpoint, pending: Pending, *, told: bool = False) -> EngineResult:
        """The outcome of a run that stops at ``cp`` with questions waiting (``told``: they
        were streamed as their tasks asked them)."""
        waiting = pending.waiting(cp.tasks)
        values = current_values(self.schema, cp, pending)
        if not told:
            emit_asked(self.run, self.schema, cp, pending)
        # As LangGraph: then the values with the finished tasks' writes, when they wrote any.
        if self.run.listens("values") and values is not cp.values and values != cp.values:
            self.run.emit("values", self.schema.output(values))
        return EngineResult(cp, values, waiting)

    # -- the loop ------------------------------------------------------------------

    async def loop(
        self, cp: Checkpoint, pending: Pending, *, skip_breakpoint: bool
    ) -> EngineResult:
        """Run steps from ``cp`` until the graph ends, pauses, or a task fails."""
        steps = 0
        while True:
            # As LangGraph: a checkpoint streams as the step it lists starts (a resumed
            # one again), after the values of the step that wrote it.
            emit_checkpoint(self.run, self.schema, cp, self.spec.nodes)
            if self.run.queue is not None and not self.run.foreign_loop:
                # A stream goes on only when its consumer has taken the last step's chunks,
                # so that what nodes print interleaves with the chunks as in LangGraph.
                await self.run.queue.join()
            self.run.step = cp.step + 1
            if not cp.tasks:
                return EngineResult(cp, cp.values)
            if cp.source != "loop":  # only an input checkpoint (or a fork of one) has it
                retake_input(cp, pending)
            runnable = runnable_tasks(cp, pending)
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
            if runnable and len(runnable) < len(cp.tasks):
                # As LangGraph, which reruns a waiting task: its question streams first.
                emit_asked(self.run, self.schema, cp, pending)
            if len(runnable) == 1:
                error = await ContextCoroutine(
                    self._one(cp, pending, runnable[0], lone=True), copy_context()
                )
                if error is not None:
                    raise error
            elif errors := await self._run_step(cp, pending, runnable):
                raise errors[0]
            if pending.waiting(cp.tasks):
                return self.paused(cp, pending, told=True)
            # The input's __start__ step is not counted, as in LangGraph.
            steps += cp.source != "input"
            new = await self._advance(cp, pending)
            if self.interrupt_after and any(t.name in self.interrupt_after for t in cp.tasks):
                return await self._after_breakpoint(new)
            if new.tasks and steps >= self.recursion_limit:
                emit_checkpoint(self.run, self.schema, new, self.spec.nodes)
                raise GraphRecursionError(
                    f"recursion limit of {self.recursion_limit} steps reached without the graph "
                    f"ending; raise it with config={{'recursion_limit': n}}",
                    limit=self.recursion_limit,
                )
            cp, pending, skip_breakpoint = new, Pending(), False

    async def _after_breakpoint(self, new: Checkpoint) -> EngineResult:
        """Pause after an ``interrupt_after`` node, once even if the next node is in
        ``interrupt_before``: continuing runs that node without pausing again."""
        emit_checkpoint(self.run, self.schema, new, self.spec.nodes)
        if any(t.name in self.interrupt_before for t in new.tasks):
            await self.checkpoints.save_writes(new, [(None, "breakpoint", TaskRecord())])
        self.run.emit("updates", {"__interrupt__": ()})
        return EngineResult(new, new.values)

    async def _advance(self, cp: Checkpoint, pending: Pending) -> Checkpoint:
        """Apply the finished step of ``cp`` and write the next checkpoint."""
        finished: list[tuple[str, TaskResult]] = []
        meta: dict[str, Any] = {}
        answered: list[str] = []
        records = pending.tasks
        for task in cp.tasks:
            rec = records[task.id]
            result, name = rec.result, task.name
            assert result is not None
            finished.append((name, result))
            updates = result.updates
            if name not in meta:
                meta[name] = dict(updates)
            else:
                previous, update = meta[name], dict(updates)
                meta[name] = [*previous, update] if type(previous) is list else [previous, update]
            if rec.answers:
                answered.extend(interrupt_id(task.id, i) for i in range(len(rec.answers)))
        values = self.schema.apply(cp.values, outcome.step_writes(cp, pending))
        cid, created_at = new_checkpoint_stamp()
        routed = self.planner.route(finished, values)
        if not isinstance(routed, list):
            routed = await routed
        tasks, barriers = self.planner.tasks(cid, finished, routed, cp.barriers)
        # Positional, in the fields' order: half the cost of keywords, once per step.
        new = Checkpoint(
            cid,
            cp.thread_id,
            cp.id,  # parent_id
            created_at,
            cp.step + 1,
            "loop",  # source
            values,
            tasks,
            tuple(meta),  # last_nodes: the nodes of the step, each once, in task order
            meta,  # writes
            False,  # skip_breakpoint
            tuple(answered),
            barriers,
            self.run.checkpoint_meta(),
        )
        if pending.unsaved_updates:
            await self.checkpoints.save_input_updates(cp, pending)
        if not self.checkpoints.saved_now(new):
            await self.checkpoints.save_checkpoint(new)
        run = self.run
        if run.queue is not None and "values" in run.stream_modes and any(meta.values()):
            run.emit("values", self.schema.output(values))
        return new

    async def _run_step(
        self, cp: Checkpoint, pending: Pending, runnable: Sequence[TaskSpec]
    ) -> list[Exception]:
        """Run ``runnable`` concurrently and record their outcomes; return their errors."""
        ended = await asyncio.gather(*(_settled(self._one(cp, pending, t)) for t in runnable))
        # Every task has ended before the step does, whatever one of them raised: a
        # sibling must not go on writing the thread after the run has stopped.
        for _, raised in ended:
            if raised is not None:
                raise raised
        return [error for error, _ in ended if error is not None]

    async def _one(
        self, cp: Checkpoint, pending: Pending, task: TaskSpec, *, lone: bool = False
    ) -> Exception | None:
        """Run ``task`` of the step of ``cp`` and record its outcome; return its error.

        A ``lone`` task, the only one the step runs, needs no concurrency: it is awaited
        in a context copy of its own, as gather() would give it, without a new asyncio task.
        """
        run = self.run
        save_each = len(cp.tasks) > 1
        rec = pending.tasks.get(task.id)
        if rec is None:  # the task's first run: nothing to carry over
            rec = pending.tasks[task.id] = TaskRecord()
            frame = TaskFrame(run, task, [], 0, None, cp.id)  # answers, calls, raised_index
        else:
            frame = TaskFrame(run, task, list(rec.answers), 0, None, cp.id)
            frame.asked = rec.interrupt
            frame.task_results.update(rec.task_results)
        frame.edge_state = partial(self.calls.state_of, self.spec.nodes[task.name], cp.values)
        # Seen in this task's own context only: gather()'s task, or the lone task's copy.
        current_task.enter_with(frame)
        if run.queue is not None:
            emit_task(run, self.schema, cp, task)
        extension = run.extension
        if extension is None:
            out = await self._attempts(task, frame, cp)
        elif extension.wraps_nodes:
            out = await extension.around_node(
                task, partial(self._attempts, task, frame, cp), failed_outcome
            )
        else:  # what around_node does when nothing wraps the node, without its coroutine
            start, done = perf_counter(), None
            try:
                out = done = await self._attempts(task, frame, cp)
            finally:
                extension.node_ran(task, done, start)
        unsaved = None
        if out.result is not None and not save_each:
            rec.result = out.result  # the next checkpoint holds it: nothing to write now
        else:
            unsaved = await self._record(cp, pending, task, rec, out, frame, save_each)
        if unsaved is None and out.result is not None and run.listens("updates"):
            run.emit("updates", {task.name: out.raw})
        elif unsaved is None and out.interrupt is not None and rec.waiting:
            emit_question(run, self.schema, cp, out.interrupt)
        elif out.error is not None and frame.calls and unsaved is None and run.listens("updates"):
            # As LangGraph's: a node that failed after interrupt() gave it an answer wrote that.
            run.emit("updates", {task.name: None})
        if run.queue is not None:  # as LangGraph's: after the update the task made
            emit_task_result(run, cp.step + 1, task, out.raw, out.error, out.interrupt)
        if lone:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                # A cancel asked for while the task ran (ctx.cancel() in a tool) waits for
                # the next suspension; deliver it now, as gather() would, so that the
                # step's result is not checkpointed and no later node runs.
                await asyncio.sleep(0)
        return out.error if unsaved is None else unsaved

    async def _record(
        self,
        cp: Checkpoint,
        pending: Pending,
        task: TaskSpec,
        rec: TaskRecord,
        out: TaskOutcome,
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
            rec.error = repr(out.error)  # as LangGraph: the repr of the exception
        items = [(task, kind, rec)]
        if task.id in pending.unsaved_answers and kind != "result":
            # The answers that let the task run this time go with what it did.
            items.append((task, "resume", rec))
        if task.id in pending.unsaved_answers:
            pending.unsaved_answers -= {task.id}
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
                rec.error = repr(exc)
                return exc
        return None

    async def _attempts(self, task: TaskSpec, frame: TaskFrame, cp: Checkpoint) -> TaskOutcome:
        node = self.spec.nodes[task.name]
        calls = self.calls
        policy = node.retry
        attempt = 0
        while True:
            attempt += 1
            if attempt == 1:
                frame.attempt = 1  # a new frame: nothing else to reset
            else:
                frame.reset()
            try:
                if task.arg is not NO_ARG:
                    arg = task.arg
                elif node.reads is None:
                    arg = self.schema.to_state(cp.values, task.name)
                else:
                    arg = calls.state_of(node, cp.values)
                if self.run.queue is not None and not self.run.stream_modes.isdisjoint(LC_MODES):
                    ret = await calls.streaming(node, arg, frame)
                else:
                    direct = calls.direct and not node.inject
                    ret = node.fn(arg) if direct else calls.call(node, arg, frame)
                if type(ret) is CoroutineType or is_awaitable(ret):
                    ret = await ret
                result, raw = calls.to_result(task.name, ret)
                return TaskOutcome(result, raw)
            except GraphInterrupt as gi:
                # Never retried: the question waits for an answer.
                if frame.raised_index is None or not gi.interrupts:
                    err = GraphError(
                        f"node {task.name!r} raised GraphInterrupt itself; "
                        f"call interrupt(value) to pause a node"
                    )
                    return TaskOutcome(error=err)
                return TaskOutcome(interrupt=gi.interrupts[0], index=frame.raised_index)
            except (Exception, asyncio.CancelledError) as caught:
                exc = node_error(task.name, caught)
                if policy is None or attempt >= policy.max_attempts or not policy.should_retry(exc):
                    return TaskOutcome(error=exc)
                await asyncio.sleep(policy.delay(attempt))


async def _settled(
    step: Coroutine[Any, Any, Exception | None],
) -> tuple[Exception | None, BaseException | None]:
    """Run a task of a step to its end: what it returned, or what it raised."""
    try:
        return await step, None
    except BaseException as raised:  # re-raised by the step once all its tasks ended
        return None, raised
