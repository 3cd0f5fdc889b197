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
    TaskRecord,
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
    from pyctx_web.graph._engine.spec import GraphSpec

__all__ = ["snapshot", "update_state", "with_input_updates"]


def _done_results(cp: Checkpoint, child: Checkpoint | None) -> dict[str, dict[str, Any]]:
    """The results of ``cp``'s tasks the step's next checkpoint ``child`` holds.

    A step's lone task writes no pending write: its update is the next
    checkpoint's ``writes`` entry, given here by node when the node ran once.
    """
    if child is None or child.source != "loop" or child.parent_id != cp.id or not child.writes:
        return {}
    names = [t.name for t in cp.tasks]
    return {
        name: update
        for name, update in child.writes.items()
        if type(update) is dict and names.count(name) == 1
    }


def snapshot(
    spec: GraphSpec,
    cp: Checkpoint,
    pending: Pending,
    child: Checkpoint | None = None,
    *,
    live: bool,
) -> StateSnapshot:
    """The :class:`StateSnapshot` of ``cp`` with its pending writes; ``child``, the
    checkpoint its step wrote (if known), gives the results of its finished tasks.

    ``live`` (the thread's latest state, as ``get_state`` without a checkpoint id
    gives it) shows the step as it stands: the values with its finished tasks'
    writes, ``next`` the tasks left to run, only the questions still waiting.
    Otherwise (the history, or a checkpoint named by id) it is the record of the
    step: the values it started from, every task in ``next``, every question its
    tasks asked. Both show the ``Command(update=...)`` given with answers to the
    step (``cp.values`` holds them, see :func:`with_input_updates`).
    """
    done = _done_results(cp, child)
    tasks = [_task(task, path, pending, done, live) for task, path in _listed(spec, cp)]
    if live:
        values = state_values(spec.schema, cp, pending)
        # The input's __start__ task is listed until the step that applies it has run.
        names = [t.name for t in tasks if t.result is None or t.name == START]
    else:
        values, names = cp.values, [t.name for t in tasks]
    metadata = cp.metadata()
    return StateSnapshot(
        values=spec.schema.output(values),
        next=tuple(names),
        config=_mapped(config_of(cp.thread_id, cp.id), metadata),
        metadata=metadata,
        created_at=cp.created_at,
        parent_config=(
            _mapped(config_of(cp.thread_id, cp.parent_id), metadata) if cp.parent_id else None
        ),
        tasks=tuple(tasks),
        interrupts=tuple(i for task in tasks for i in task.interrupts),
    )


def with_input_updates(schema: StateSchema, cp: Checkpoint, pending: Pending) -> Checkpoint:
    """``cp`` with the ``Command(update=...)`` writes given with answers to its step
    applied to its values, as loading it for a run (or ``get_state``) applies them."""
    if pending.input_updates:
        cp.values = schema.apply(cp.values, [(START, k, v) for k, v in pending.input_updates])
    return cp


def _listed(spec: GraphSpec, cp: Checkpoint) -> list[tuple[TaskSpec, tuple[Any, ...]]]:
    """The tasks of ``cp`` with their paths, in the order LangGraph lists a step's tasks:
    the ``Send`` tasks in the order they were sent, then the nodes in the order the
    graph added them (``__start__`` first)."""
    pushed = [t for t in cp.tasks if t.arg is not NO_ARG]
    listed: list[tuple[TaskSpec, tuple[Any, ...]]] = [
        (t, ("__pregel_push", index, False)) for index, t in enumerate(pushed)
    ]
    pulled = [t for t in cp.tasks if t.arg is NO_ARG]
    if len(pulled) > 1:
        order = {name: index for index, name in enumerate((START, *spec.nodes))}
        pulled.sort(key=lambda t: order.get(t.name, len(order)))
    listed.extend((t, ("__pregel_pull", t.name)) for t in pulled)
    return listed


def _task(
    task: TaskSpec,
    path: tuple[Any, ...],
    pending: Pending,
    done: Mapping[str, dict[str, Any]],
    live: bool,
) -> PregelTask:
    """The :class:`PregelTask` of ``task``; a ``live`` one lists only a pending question."""
    rec = pending.tasks.get(task.id)
    if rec is None:
        return PregelTask(task.id, task.name, path, result=done.get(task.name))
    result = dict(rec.result.updates) if rec.result is not None else done.get(task.name)
    asked = rec.interrupt if rec.interrupt is not None and (not live or _pending(rec)) else None
    return PregelTask(
        task.id,
        task.name,
        path,
        interrupts=(asked,) if asked is not None else (),
        error=rec.error if result is None else None,
        result=result,
    )


def _pending(rec: TaskRecord) -> bool:
    """Whether the question of ``rec`` is pending: it waits, or the node failed on its answer
    (as LangGraph, which asks it again with the same answer)."""
    return rec.waiting or (rec.result is None and rec.error is not None and bool(rec.answers))


def _mapped(config: dict[str, Any], metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A subgraph checkpoint's config with its ``checkpoint_map`` (the checkpoint id of
    each enclosing graph and its own, by namespace), as LangGraph's snapshots give it."""
    parents = metadata.get("parents")
    if not parents:
        return config
    conf = config["configurable"]
    conf["checkpoint_map"] = {**parents, conf["checkpoint_ns"]: conf["checkpoint_id"]}
    return config


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
    if isinstance(values, Mapping):
        # As LangGraph's update_state: keys outside the state schema are left out.
        values = {k: v for k, v in values.items() if k in schema.reducers}
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
    # The next step's tasks are new ones: a question a paused node asked is asked again.
    await engine.checkpoints.save_checkpoint(new)
    return config_of(thread_id, new_id)
