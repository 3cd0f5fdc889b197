"""The checkpoint document and the pending writes of its tasks, decoded, and their encoding.

A :class:`Checkpoint` holds the state values and the tasks of the next step.
While that step runs, each task leaves pending writes on the checkpoint: its
result, the question it asked, the answers it was given, its last error. A
paused or failed step is continued from these: finished tasks are not run again
and a questioned task is run again with its answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import Any, Final

from pyctx_web._records import record
from pyctx_web.graph._engine.ids import (
    new_checkpoint_id,
    now_iso,
    pull_task_id,
    stable_id,
    task_id,
)
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._engine.write_parts import decode_goto, decode_results, encode_goto
from pyctx_web.graph._values import Interrupt, Send
from pyctx_web.graph.checkpoint.base import CheckpointRecord, StoredCheckpoint, StoredWrite
from pyctx_web.graph.errors import CorruptCheckpointError, ResumeError, is_invalid_resume

__all__ = [
    "NO_ARG",
    "Checkpoint",
    "Pending",
    "TaskRecord",
    "TaskResult",
    "TaskSpec",
    "checkpoint_document",
    "checkpoint_parts",
    "decode_record",
    "encode_checkpoint",
    "encode_input_update",
    "encode_write",
    "new_checkpoint_id",
    "now_iso",
    "parts_document",
    "parts_text",
    "pull_task_id",
    "stable_id",
    "task_id",
]

FORMAT_VERSION: Final = 1
NO_ARG: Final[Any] = type("NoArg", (), {"__repr__": lambda self: "NO_ARG"})()
"""A pull task's ``arg``: the node receives the state."""

_BREAKPOINT_TASK: Final = ""
"""Task id of checkpoint-level writes (the static breakpoint marker)."""


@record(frozen=True, slots=True)
class TaskSpec:
    """A task of a step: run node ``name`` on the state, or on ``arg`` for a :class:`Send`."""

    id: str
    """Deterministic id, derived from the checkpoint that scheduled the task."""
    name: str
    """The node to run."""
    arg: Any = NO_ARG
    """The :class:`Send` argument, or :data:`NO_ARG` to pass the state."""


@record(slots=True)
class Checkpoint:
    """A decoded checkpoint: the state and the next step's tasks."""

    id: str
    """Checkpoint id."""
    thread_id: str
    """The thread it belongs to."""
    parent_id: str | None
    """The checkpoint it follows."""
    created_at: str
    """ISO 8601 UTC creation time."""
    step: int
    """Step number: -1 for the first input, then one more per step."""
    source: str
    """``"input"``, ``"loop"``, ``"update"`` or ``"fork"``."""
    values: dict[str, Any]
    """The state values."""
    tasks: tuple[TaskSpec, ...]
    """The tasks of the next step; empty when the run is over."""
    last_nodes: tuple[str, ...] = ()
    """Nodes whose writes produced these values (``aupdate_state``'s default ``as_node``)."""
    writes: dict[str, Any] | None = None
    """What each node of the previous step wrote, for the metadata."""
    skip_breakpoint: bool = False
    """The next step already stopped at its ``interrupt_before`` breakpoint."""
    answered: tuple[str, ...] = ()
    """Interrupt ids answered in the step that produced this checkpoint."""
    barriers: dict[str, list[str]] = field(default_factory=dict)
    """The sources each ``add_edge([a, b], c)`` join has seen since it last fired, and the
    ``defer=True`` nodes held back until nothing else is left to run."""
    meta: dict[str, Any] | None = None
    """The config values of the run that wrote it, which its metadata adds (never changed)."""

    def metadata(self) -> dict[str, Any]:
        """The checkpoint's metadata, as LangGraph's: ``source``, ``step``, ``parents``, then
        the :attr:`meta` values."""
        own = {"source": self.source, "step": self.step, "parents": {}}
        return own if self.meta is None else {**own, **self.meta}


@record(slots=True)
class TaskResult:
    """What a finished task wrote."""

    updates: list[tuple[str, Any]]
    """``(key, value)`` state writes, in the order given."""
    goto: Sequence[str | Send] = ()
    """Nodes or :class:`Send` objects from a returned ``Command(goto=...)``."""


_NO_RESULTS: Final[Mapping[str, tuple[str, Any]]] = MappingProxyType({})
"""A task's ``@task`` results when it has none (shared: records are made each step)."""


@record(slots=True)
class TaskRecord:
    """The pending writes of one task of the step."""

    result: TaskResult | None = None
    """Set when the task finished."""
    interrupt: Interrupt | None = None
    """The last question the task asked."""
    interrupt_index: int = -1
    """Position of that question among the task's ``interrupt()`` calls."""
    answers: Sequence[Any] = ()
    """Answers to the task's questions, by position (replaced, not changed: the default is
    shared, and a record is made per task of every step)."""
    error: str | None = None
    """``repr()`` of the last failed attempt's exception, as LangGraph gives it."""
    task_results: Mapping[str, tuple[str, Any]] = _NO_RESULTS
    """``(task name, result)`` of the ``@task`` calls the node made, by call position."""

    @property
    def waiting(self) -> bool:
        """Whether the task waits for an answer."""
        return (
            self.result is None
            and self.interrupt is not None
            and self.interrupt_index >= len(self.answers)
        )


@record(slots=True)
class Pending:
    """The pending writes of a checkpoint."""

    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    """Records by task id."""
    breakpoint_hit: bool = False
    """The step stopped at an ``interrupt_before`` breakpoint."""
    input_updates: Sequence[tuple[str, Any]] = ()
    """``Command(update=...)`` writes given with answers while the step was paused."""
    input_goto: tuple[TaskSpec, ...] = ()
    """Tasks ``Command(goto=...)`` inputs added to the step (``resume.encode_input_goto``)."""
    unsaved_answers: frozenset[str] = frozenset()
    """Tasks given answers that are not written yet (they go with the task's outcome)."""
    unsaved_updates: bool = False
    """Whether :attr:`input_updates` changed since they were written."""

    def record(self, task_id: str) -> TaskRecord:
        """The record of ``task_id``, created empty if needed."""
        rec = self.tasks.get(task_id)
        if rec is None:
            rec = self.tasks[task_id] = TaskRecord()
        return rec

    def refuses(self, task_id: str, error: Exception | None) -> bool:
        """Whether ``error`` refuses the answers ``task_id`` was given by this run.

        A node that raises :class:`ResumeError` on the answers of a resume (a
        malformed decision), or an answer its ``interrupt(response_schema=...)``
        rejects, refuses the resume: nothing of that attempt is written.
        """
        refused = isinstance(error, ResumeError) or (error and is_invalid_resume(error))
        return bool(refused) and task_id in self.unsaved_answers

    def waiting(self, tasks: Sequence[TaskSpec]) -> list[Interrupt]:
        """Unanswered questions, in task order."""
        out = []
        for task in tasks:
            rec = self.tasks.get(task.id)
            # TaskRecord.waiting, written out: every step asks this of each of its tasks.
            if (
                rec is not None
                and rec.result is None
                and rec.interrupt is not None
                and rec.interrupt_index >= len(rec.answers)
            ):
                out.append(rec.interrupt)
        return out

    def paused(self, tasks: Sequence[TaskSpec]) -> bool:
        """Whether the step is under way: a task waits for an answer or failed."""
        for task in tasks:
            rec = self.tasks.get(task.id)
            if rec is not None and rec.result is None and (rec.waiting or rec.error is not None):
                return True
        return False


def encode_checkpoint(serde: JsonSerde, cp: Checkpoint) -> StoredCheckpoint:
    """Encode ``cp`` for a checkpointer; raise ``SerializationError`` naming the state key."""
    doc = checkpoint_document(serde, cp)
    return StoredCheckpoint(cp.thread_id, cp.id, cp.parent_id, cp.created_at, serde.dumps(doc))


def checkpoint_document(serde: JsonSerde, cp: Checkpoint) -> dict[str, Any]:
    """The JSON-ready document of ``cp``: a tree made for it alone, sharing nothing mutable
    with the run; ``SerializationError`` naming the state key of a value it cannot hold."""
    return parts_document(checkpoint_parts(serde, cp))


def checkpoint_parts(serde: JsonSerde, cp: Checkpoint) -> tuple[Any, ...]:
    """:func:`checkpoint_document`'s content as a tuple (its tasks as tuples too): cheaper to
    make and to copy with ``marshal`` than the document, which :func:`parts_document` makes."""
    values = serde.encode_values(cp.values)  # first: a bad value is named by its state key
    tasks = tuple([(t.id, t.name) if t.arg is NO_ARG else _sent(serde, t) for t in cp.tasks])
    writes = None
    if cp.writes is not None:
        writes = {node: serde.encode_update(node, upd) for node, upd in cp.writes.items()}
    barriers = {key: list(sources) for key, sources in cp.barriers.items()} if cp.barriers else None
    last, answered = tuple(cp.last_nodes), tuple(cp.answered)
    return (
        values,
        tasks,
        cp.step,
        cp.source,
        last,
        writes,
        cp.skip_breakpoint,
        answered,
        barriers,
        cp.meta,
    )


def _sent(serde: JsonSerde, task: TaskSpec) -> tuple[str, str, Any]:
    """A :class:`Send` task's part of :func:`checkpoint_parts`: id, node and encoded arg."""
    arg = serde.encode(task.arg, key="arg", label=f"the arg of Send({task.name!r})")
    return task.id, task.name, arg


def parts_document(parts: tuple[Any, ...]) -> dict[str, Any]:
    """The checkpoint document of :func:`checkpoint_parts`' tuple."""
    values, tasks, step, source, last_nodes, writes, skip_breakpoint, answered, barriers, meta = (
        parts
    )
    doc = {
        "v": FORMAT_VERSION,
        "step": step,
        "source": source,
        "values": values,
        "tasks": [
            {"id": t[0], "name": t[1]} if len(t) == 2 else {"id": t[0], "name": t[1], "arg": t[2]}
            for t in tasks
        ],
        "last_nodes": list(last_nodes),
        "writes": writes,
        "skip_breakpoint": skip_breakpoint,
        "answered": list(answered),
    }
    if barriers:
        doc["barriers"] = barriers
    if meta:
        doc["meta"] = meta
    return doc


def parts_text(parts: tuple[Any, ...]) -> str:
    """The JSON text of the checkpoint document of :func:`checkpoint_parts`' tuple."""
    return JsonSerde.dumps(parts_document(parts))


def encode_input_update(serde: JsonSerde, updates: Sequence[tuple[str, Any]]) -> StoredWrite:
    """Encode the ``Command(update=...)`` writes given with answers to a paused step."""
    doc = {"updates": [[k, serde.encode(v, key=k)] for k, v in updates]}
    return StoredWrite(_BREAKPOINT_TASK, "update", serde.dumps(doc))


def encode_write(
    serde: JsonSerde, task: TaskSpec | None, kind: str, rec: TaskRecord
) -> StoredWrite:
    """Encode the ``kind`` part of ``rec`` as a pending write of ``task``."""
    if task is None:
        return StoredWrite(_BREAKPOINT_TASK, "breakpoint", "{}")
    doc: dict[str, Any]
    if kind == "result":
        assert rec.result is not None
        doc = {
            "name": task.name,
            "updates": [[k, serde.encode(v, key=k)] for k, v in rec.result.updates],
            "goto": encode_goto(serde, rec.result.goto),
        }
    elif kind == "interrupt":
        assert rec.interrupt is not None
        value = serde.encode(
            rec.interrupt.value, key="value", label=f"the interrupt value of node {task.name!r}"
        )
        doc = {"index": rec.interrupt_index, "id": rec.interrupt.id, "value": value}
        if rec.interrupt.response_schema is not None:
            doc["schema"] = serde.encode(rec.interrupt.response_schema, key="response_schema")
    elif kind == "resume":
        doc = {
            "answers": [
                serde.encode(a, key="resume", label=f"the resume value for node {task.name!r}")
                for a in rec.answers
            ]
        }
    elif kind == "error":
        doc = {"error": rec.error}
    elif kind == "tasks":
        label = f"a task result of {task.name!r}"
        results = rec.task_results.items()
        doc = {"results": [[k, n, serde.encode(r, key=label)] for k, (n, r) in results]}
    else:
        raise ValueError(f"unknown pending write kind {kind!r}")
    return StoredWrite(task.id, kind, serde.dumps(doc))


def _tasks(serde: JsonSerde, stored: Any) -> tuple[TaskSpec, ...]:
    """Tasks stored as ``{"id", "name"}``, with ``"arg"`` (encoded) for a :class:`Send`'s."""
    args = [serde.decode(t["arg"]) if "arg" in t else NO_ARG for t in stored]
    return tuple([TaskSpec(t["id"], t["name"], arg) for t, arg in zip(stored, args, strict=True)])


def _meta(stored: Any) -> dict[str, Any] | None:
    if stored is not None and not isinstance(stored, dict):
        raise ValueError("the checkpoint's metadata is not an object")
    return stored or None


def decode_record(serde: JsonSerde, record: CheckpointRecord) -> tuple[Checkpoint, Pending]:
    """Decode a stored checkpoint and its writes; ``CheckpointError`` if they are corrupt."""
    stored = record.checkpoint
    try:
        doc = serde.loads(stored.data)
        if not isinstance(doc, dict) or doc.get("v") != FORMAT_VERSION:
            raise ValueError("not a checkpoint document of a known version")
        tasks = _tasks(serde, doc["tasks"])
        writes = doc["writes"]
        cp = Checkpoint(
            id=stored.checkpoint_id,
            thread_id=stored.thread_id,
            parent_id=stored.parent_id,
            created_at=stored.created_at,
            step=int(doc["step"]),
            source=str(doc["source"]),
            values={k: serde.decode(v) for k, v in doc["values"].items()},
            tasks=tasks,
            last_nodes=tuple(doc["last_nodes"]),
            writes=None if writes is None else {n: serde.decode(u) for n, u in writes.items()},
            skip_breakpoint=bool(doc["skip_breakpoint"]),
            answered=tuple(doc["answered"]),
            barriers={str(k): list(v) for k, v in doc.get("barriers", {}).items()},
            meta=_meta(doc.get("meta")),
        )
        pending = Pending()
        for w in record.writes:
            if w.kind == "breakpoint":
                pending.breakpoint_hit = True
                continue
            wdoc = serde.loads(w.data)
            if w.kind in ("update", "goto"):
                if w.kind == "goto":
                    pending.input_goto = _tasks(serde, wdoc["tasks"])
                else:
                    pending.input_updates = [(str(k), serde.decode(v)) for k, v in wdoc["updates"]]
                continue
            rec = pending.record(w.task_id)
            if w.kind == "result":
                updates = [(str(k), serde.decode(v)) for k, v in wdoc["updates"]]
                rec.result = TaskResult(updates, decode_goto(serde, wdoc["goto"]))
            elif w.kind == "interrupt":
                schema = serde.decode(wdoc["schema"]) if "schema" in wdoc else None
                rec.interrupt = Interrupt(serde.decode(wdoc["value"]), str(wdoc["id"]), schema)
                rec.interrupt_index = int(wdoc["index"])
            elif w.kind == "resume":
                rec.answers = [serde.decode(a) for a in wdoc["answers"]]
            elif w.kind == "error":
                rec.error = str(wdoc["error"])
            elif w.kind == "tasks":
                rec.task_results = decode_results(serde, wdoc["results"])
            else:
                raise ValueError(f"unknown pending write kind {w.kind!r}")
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise CorruptCheckpointError(stored.thread_id, stored.checkpoint_id, str(exc)) from exc
    return cp, pending
