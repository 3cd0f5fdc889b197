"""A thread's state as callers see it: snapshots of checkpoints, and updates by hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.loop import Engine
from pyctx_web.graph._engine.options import config_of
from pyctx_web.graph._engine.outcome import state_values
from pyctx_web.graph._engine.records import (
    NO_ARG,
    Checkpoint,
    Pending,
    TaskResult,
    TaskSpec,
    new_checkpoint_id,
    now_iso,
)
from pyctx_web.graph._values import PregelTask, StateSnapshot
from pyctx_web.graph.constants import END, START
from pyctx_web.graph.errors import InvalidUpdateError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.channels import StateSchema

__all__ = ["snapshot", "update_state"]


def snapshot(schema: StateSchema, cp: Checkpoint, pending: Pending) -> StateSnapshot:
    """The :class:`StateSnapshot` of ``cp`` with its pending writes."""
    tasks = []
    for index, t in enumerate(cp.tasks):
        path = ("__pregel_pull", t.name) if t.arg is NO_ARG else ("__pregel_push", index)
        rec = pending.tasks.get(t.id)
        if rec is None:
            tasks.append(PregelTask(t.id, t.name, path))
            continue
        tasks.append(
            PregelTask(
                t.id,
                t.name,
                path,
                interrupts=(rec.interrupt,) if rec.waiting and rec.interrupt else (),
                error=rec.error if rec.result is None else None,
                result=dict(rec.result.updates) if rec.result is not None else None,
            )
        )
    return StateSnapshot(
        values=schema.output(state_values(schema, cp, pending)),
        # The input's __start__ task is listed until the step that applies it has run.
        next=tuple(t.name for t in tasks if t.result is None or t.name == START),
        config=config_of(cp.thread_id, cp.id),
        metadata=cp.metadata(),
        created_at=cp.created_at,
        parent_config=config_of(cp.thread_id, cp.parent_id) if cp.parent_id else None,
        tasks=tuple(tasks),
        interrupts=tuple(pending.waiting(cp.tasks)),
    )


def _as_node(engine: Engine, cp: Checkpoint | None, as_node: str | None) -> str:
    if as_node is None:
        last = cp.last_nodes if cp is not None else (START,)
        if len(last) != 1:
            raise InvalidUpdateError(
                f"cannot tell which node the update comes from: nodes "
                f"{', '.join(map(repr, last))} ran last; pass as_node=..."
            )
        as_node = last[0]
    if as_node not in engine.spec.nodes and as_node not in (START, END):
        known = ", ".join(repr(n) for n in engine.spec.nodes)
        raise InvalidUpdateError(
            f"update_state(): as_node {as_node!r} is not a node (known nodes: {known})"
        )
    return as_node


def _carry_questions(
    cp: Checkpoint, pending: Pending, tasks: tuple[TaskSpec, ...]
) -> tuple[tuple[TaskSpec, ...], Pending]:
    """Keep the task, hence the question id, of a question still waiting on the same node."""
    carried = Pending()
    waiting = [t for t in cp.tasks if (r := pending.tasks.get(t.id)) and r.waiting]
    replaced = list(tasks)
    for i, task in enumerate(replaced):
        match = next((w for w in waiting if w.name == task.name and w.arg == task.arg), None)
        if match is not None:
            waiting.remove(match)
            replaced[i] = match
            old = pending.tasks[match.id]
            rec = carried.record(match.id)
            rec.interrupt, rec.interrupt_index = old.interrupt, old.interrupt_index
            rec.answers = list(old.answers)
    return tuple(replaced), carried


async def update_state(
    engine: Engine,
    thread_id: str,
    checkpoint_id: str | None,
    values: Mapping[str, Any] | None,
    as_node: str | None,
) -> dict[str, Any]:
    """Write ``values`` as if ``as_node`` returned them; return the new checkpoint's config."""
    if checkpoint_id is not None:
        # The latest, on which the new checkpoint goes.
        await engine.checkpoints.load(thread_id, None)
    loaded = await engine.checkpoints.load(thread_id, checkpoint_id)
    cp, pending = loaded if loaded is not None else (None, Pending())
    as_node = _as_node(engine, cp, as_node)
    schema = engine.schema
    updates = schema.check_update(as_node, values)
    # Keys another version of the graph wrote are left behind: the thread moves on.
    known = {
        k: v for k, v in (cp.values if cp is not None else {}).items() if k in schema.annotations
    }
    base = schema.with_defaults(known)
    new_values = schema.apply(base, [(as_node, k, v) for k, v in updates])
    new_id = new_checkpoint_id()
    tasks: tuple[TaskSpec, ...] = ()
    barriers = cp.barriers if cp is not None else {}
    if as_node != END:
        finished = [(as_node, TaskResult(updates))]
        tasks, barriers = await engine.planner.plan(new_id, finished, new_values, barriers)
    carried = Pending()
    if cp is not None:
        tasks, carried = _carry_questions(cp, pending, tasks)
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
        barriers=barriers,
        meta=engine.run.checkpoint_meta(),
    )
    await engine.checkpoints.save_checkpoint(new)
    task_of = {t.id: t for t in tasks}
    items = []
    for task_id, rec in carried.tasks.items():
        items.append((task_of[task_id], "interrupt", rec))
        if rec.answers:
            items.append((task_of[task_id], "resume", rec))
    await engine.checkpoints.save_writes(new, items)
    return config_of(thread_id, new_id)
