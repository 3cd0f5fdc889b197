"""The ``checkpoints``, ``tasks`` and ``debug`` stream modes: their chunks, as LangGraph's.

``checkpoints`` yields each checkpoint as the step it lists starts (config, parent
config, values, metadata, next, tasks), after the values of the step that wrote
it; ``tasks`` yields each task as it starts (id, name, input, triggers) and as it
ends (id, name, error, result, interrupts), after its update; ``debug`` yields both
kinds wrapped with the step, a timestamp and a type (``checkpoint``, ``task``,
``task_result``). A ``@task`` called in a node is a task of its own there: it
starts each time it is called (also when its
saved result is returned) and ends each time it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from pyctx_web.graph._engine.options import NAMESPACE_SEPARATOR
from pyctx_web.graph._engine.records import NO_ARG, Checkpoint, Pending, TaskSpec, now_iso
from pyctx_web.graph._engine.run_metadata import EXTRA_METADATA_KEY
from pyctx_web.graph.constants import START

if TYPE_CHECKING:
    from pyctx_web.graph._engine.channels import StateSchema
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._values import Interrupt

__all__ = [
    "TASK_MODES",
    "emit_asked",
    "emit_call",
    "emit_call_result",
    "emit_checkpoint",
    "emit_question",
    "emit_task",
    "emit_task_result",
]

TASK_MODES: Final = ("tasks", "debug")
CHECKPOINT_MODES: Final = ("checkpoints", "debug")


def _listens(run: Run, modes: tuple[str, ...]) -> bool:
    # Most runs are not streamed: no queue, nothing to build.
    return run.queue is not None and not run.stream_modes.isdisjoint(modes)


def _emit(run: Run, kind: str, step: int, payload: dict[str, Any]) -> None:
    run.emit("tasks" if kind != "checkpoint" else "checkpoints", payload)
    if run.listens("debug"):
        run.emit("debug", {"step": step, "timestamp": now_iso(), "type": kind, "payload": payload})


def _config(run: Run, thread_id: str, checkpoint_id: str) -> dict[str, Any]:
    """A checkpoint's config as LangGraph's stream chunks give it: the run's ``configurable``
    entries (a subgraph's are its parent's) with the checkpoint's thread, namespace and id,
    and in a subgraph the checkpoint of each graph it runs in (``checkpoint_map``)."""
    given = run.config.get("configurable")
    # A subgraph's checkpoints are kept under the thread and namespace: the thread is the first.
    thread = thread_id.split(NAMESPACE_SEPARATOR, 1)[0]
    conf: dict[str, Any] = {"checkpoint_ns": run.checkpoint_ns, "thread_id": thread}
    if isinstance(given, dict):
        conf.update(
            (k, v) for k, v in given.items() if k not in _OWN_CONFIG and k != EXTRA_METADATA_KEY
        )
    if run.parents:
        conf["checkpoint_map"] = {**run.parents, run.checkpoint_ns: checkpoint_id}
    conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


_OWN_CONFIG: Final = frozenset({"checkpoint_ns", "thread_id", "checkpoint_id", "checkpoint_map"})
"""Config entries a checkpoint's own coordinates replace."""


def emit_checkpoint(
    run: Run, schema: StateSchema, cp: Checkpoint, nodes: Mapping[str, Any]
) -> None:
    """Stream ``cp`` to ``checkpoints`` and ``debug`` consumers, if the run has a checkpointer.

    Its metadata is the graph's own (``source``, ``step``, ``parents``): a saver adds the
    config's entries when it stores the checkpoint, after the chunk is made. A task of a
    subgraph node (of ``nodes``) has, as its ``state``, the config of the subgraph's place.
    """
    if run.checkpointer is None or not _listens(run, CHECKPOINT_MODES):
        return  # as LangGraph's: a run that keeps no checkpoints streams none
    meta = cp.meta or {}
    thread = cp.thread_id.split(NAMESPACE_SEPARATOR, 1)[0]
    payload = {
        "config": _config(run, cp.thread_id, cp.id),
        "parent_config": _config(run, cp.thread_id, cp.parent_id) if cp.parent_id else None,
        "values": schema.output(cp.values),
        "metadata": {"source": cp.source, "step": cp.step, "parents": meta.get("parents", {})},
        "next": [t.name for t in cp.tasks],
        "tasks": [
            {"id": t.id, "name": t.name, "interrupts": (), "state": _place(run, thread, t, nodes)}
            for t in cp.tasks
        ],
    }
    _emit(run, "checkpoint", cp.step, payload)


def _place(
    run: Run, thread: str, task: TaskSpec, nodes: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The config naming where ``task``'s subgraph keeps its checkpoints; ``None`` for a task
    whose node is not a subgraph."""
    node = nodes.get(task.name)
    if getattr(getattr(node, "fn", None), "subgraph", None) is None:
        return None
    own = f"{task.name}:{task.id}"
    namespace = f"{run.checkpoint_ns}|{own}" if run.checkpoint_ns else own
    return {"configurable": {"thread_id": thread, "checkpoint_ns": namespace}}


def emit_task(run: Run, schema: StateSchema, cp: Checkpoint, task: TaskSpec) -> None:
    """Stream that ``task`` starts, to ``tasks`` and ``debug`` consumers."""
    if not _listens(run, TASK_MODES):
        return
    pushed = task.arg is not NO_ARG
    payload = {
        "id": task.id,
        "name": task.name,
        "input": task.arg if pushed else schema.own_values(cp.values),
        "triggers": ("__pregel_push",) if pushed else (f"branch:to:{task.name}",),
    }
    metadata = _user_metadata(run)
    if metadata:
        payload["metadata"] = metadata
    _emit(run, "task", cp.step + 1, payload)


def _user_metadata(run: Run) -> dict[str, Any]:
    """The run's own metadata and tags, as a task's start shows them (``lc_agent_name``...)."""
    given = run.config.get("metadata")
    metadata = {
        key: value
        for key, value in (given.items() if isinstance(given, dict) else ())
        if not key.startswith(("langgraph_", "checkpoint_")) and key != "thread_id"
    }
    tags = run.config.get("tags")
    if isinstance(tags, list) and tags:
        metadata["tags"] = list(tags)
    return metadata


def emit_task_result(
    run: Run,
    step: int,
    task: TaskSpec,
    result: Any,
    error: Exception | None,
    interrupt: Interrupt | None,
) -> None:
    """Stream how ``task`` ended, to ``tasks`` and ``debug`` consumers."""
    if not _listens(run, TASK_MODES):
        return
    questions = []
    if interrupt is not None:
        questions.append(
            {
                "value": interrupt.value,
                "id": interrupt.id,
                "response_schema": interrupt.response_schema,
            }
        )
    payload = {
        "id": task.id,
        "name": task.name,
        "error": None if error is None else repr(error),
        "result": dict(result or {}),
        "interrupts": questions,
    }
    _emit(run, "task_result", step, payload)


def emit_call(run: Run, call_id: str, name: str, args: tuple[Any, ...], kwargs: Any) -> None:
    """Stream that the ``@task`` call ``call_id`` of a node starts (or returns its saved result)."""
    if not _listens(run, TASK_MODES):
        return
    payload = {"id": call_id, "name": name, "input": (args, kwargs), "triggers": ("__pregel_push",)}
    _emit(run, "task", run.step, payload)


def emit_call_result(
    run: Run, call_id: str, name: str, value: Any, error: BaseException | None
) -> None:
    """Stream how the ``@task`` call ``call_id`` of a node ended: its value, or what it raised."""
    if not _listens(run, TASK_MODES):
        return
    payload: dict[str, Any] = {
        "id": call_id,
        "name": name,
        # The exception itself, not its repr, as LangGraph streams a task call's error.
        "error": error,
        "result": {} if error is not None else {"__return__": value},
        "interrupts": [],
    }
    _emit(run, "task_result", run.step, payload)


def emit_asked(run: Run, schema: StateSchema, cp: Checkpoint, pending: Pending) -> None:
    """Stream what a step under way has done when it goes on, as LangGraph does when it runs
    it again: each finished task's update marked ``cached``, then each waiting question."""
    if run.queue is None:
        return
    if run.listens("updates"):
        for task in cp.tasks:
            rec = pending.tasks.get(task.id)
            if task.name != START and rec is not None and rec.result is not None:
                updates = dict(rec.result.updates)
                run.emit("updates", {task.name: updates, "__metadata__": {"cached": True}})
    for question in pending.waiting(cp.tasks):
        emit_question(run, schema, cp, question)


def emit_question(run: Run, schema: StateSchema, cp: Checkpoint, question: Interrupt) -> None:
    """Stream one question as LangGraph does when its task asks it: an ``updates`` and a
    ``values`` chunk (the step's starting values) of its own."""
    run.emit("updates", {"__interrupt__": (question,)})
    if run.listens("values"):
        run.emit("values", {**schema.output(cp.values), "__interrupt__": (question,)})
