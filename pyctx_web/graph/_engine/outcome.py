"""How a run ends, the state values of a checkpoint whose step is under way, and its input."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from pyctx_web._records import record
from pyctx_web.graph._engine.records import NO_ARG, Checkpoint, Pending, TaskResult, TaskSpec
from pyctx_web.graph.constants import START
from pyctx_web.graph.errors import CheckpointError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pyctx_web.graph._engine.channels import StateSchema
    from pyctx_web.graph._values import Interrupt

__all__ = [
    "EngineResult",
    "TaskOutcome",
    "current_values",
    "failed_outcome",
    "retake_input",
    "runnable_tasks",
    "state_values",
    "step_writes",
]


@record(slots=True)
class TaskOutcome:
    """What one attempt sequence of a task produced."""

    result: TaskResult | None = None
    raw: Any = None
    interrupt: Interrupt | None = None
    index: int = -1
    error: Exception | None = None


def failed_outcome(error: Exception) -> TaskOutcome:
    """The outcome of a node that failed before or after it ran (a middleware's error)."""
    return TaskOutcome(error=error)


def _by_path(cp: Checkpoint) -> list[TaskSpec]:
    """The tasks of ``cp`` in the order LangGraph applies their writes: by task path, so
    the nodes' own tasks by node name, then the ``Send`` tasks in the order they were sent."""
    tasks = cp.tasks
    if len(tasks) < 2:
        return list(tasks)
    order = sorted(
        range(len(tasks)),
        key=lambda i: (0, tasks[i].name, i) if tasks[i].arg is NO_ARG else (1, "", i),
    )
    return [tasks[i] for i in order]


def step_writes(cp: Checkpoint, pending: Pending) -> list[tuple[str, str, Any]]:
    """``(node, key, value)`` writes of the finished tasks of ``cp``, in the order LangGraph
    applies a step's writes (by task path: it decides what a reducer sees first)."""
    out: list[tuple[str, str, Any]] = []
    for task in _by_path(cp):
        rec = pending.tasks.get(task.id)
        if rec is not None and rec.result is not None:
            out.extend((task.name, k, v) for k, v in rec.result.updates)
    return out


def current_values(schema: StateSchema, cp: Checkpoint, pending: Pending) -> dict[str, Any]:
    """State values of ``cp``, with finished tasks' writes while its step is paused.

    What a run streams and returns; :func:`state_values` is what ``get_state`` shows.
    """
    if not pending.paused(cp.tasks):
        return cp.values
    return schema.apply(cp.values, step_writes(cp, pending))


def state_values(schema: StateSchema, cp: Checkpoint, pending: Pending) -> dict[str, Any]:
    """State values of ``cp`` as a snapshot shows them: with its finished tasks' writes.

    As LangGraph's ``get_state``: a step cut short after some (or all) of its
    tasks finished shows their results, not values that look as if they never ran.
    The input's ``__start__`` write is left out: the input checkpoint shows the
    values before it, as LangGraph's history does, until the step that applies it.
    """
    writes = [w for w in step_writes(cp, pending) if w[0] != START]
    if not writes:
        return cp.values
    return schema.apply(cp.values, writes)


def retake_input(cp: Checkpoint, pending: Pending) -> None:
    """Give an input checkpoint's ``__start__`` task its input when its write was not stored.

    Called before a step runs. The input checkpoint and the input's write are
    stored one after the other; a failure, cancel or crash between them leaves
    the task without a result (forks of an input checkpoint start that way too).
    The checkpoint holds the input as well, so the step takes it from there, as
    LangGraph's ``__start__`` task takes it from the checkpoint's channel.
    """
    for task in cp.tasks:
        if task.name != START:
            continue
        rec = pending.record(task.id)
        if rec.result is not None:
            continue
        if cp.writes is None or START not in cp.writes:
            # Only a checkpoint stored without its input gets here: nothing to run on.
            raise CheckpointError(
                f"checkpoint {cp.id!r} of thread {cp.thread_id!r} does not hold the input "
                f"it was written for: send the input again",
                thread_id=cp.thread_id,
                checkpoint_id=cp.id,
            )
        rec.result = TaskResult(list(cp.writes[START].items()))


@record(slots=True)
class EngineResult:
    """Where the engine's steps of an invocation stopped: the checkpoint, values, questions."""

    checkpoint: Checkpoint
    """The checkpoint the run stopped at."""
    values: dict[str, Any]
    """The state values (with the writes of finished tasks while paused)."""
    interrupts: list[Interrupt] = field(default_factory=list)
    """Questions waiting for an answer."""


def runnable_tasks(cp: Checkpoint, pending: Pending) -> Sequence[TaskSpec]:
    """The tasks of the step of ``cp`` to run: in a step under way, not those that finished
    or wait for an answer."""
    if not pending.tasks:
        return cp.tasks
    return [
        t
        for t in cp.tasks
        if (rec := pending.tasks.get(t.id)) is None or (rec.result is None and not rec.waiting)
    ]
