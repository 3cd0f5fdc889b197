"""A ``Command`` as a run's input: answers to questions, a state update, nodes to run.

:func:`plan_resume` matches a ``Command(resume=...)`` to the questions that
wait; :func:`resume` gives the answers (and a ``Command(update=...)``) to the
paused tasks and runs the step again; the answers are written with what the
answered task does next, so a cancel or crash before that leaves the
question waiting. As in LangGraph, ``Command(goto=...)`` adds its nodes (or
``Send`` tasks) to the step of the thread's checkpoint, beside the tasks it
lists (a finished thread's step has only them); they are written at once
(:func:`encode_input_goto`), so a step that pauses keeps them, and a update
without answers is written at once too. On a thread without a checkpoint a
``Command`` without ``resume`` is an input: see ``execute``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph._engine.records import (
    NO_ARG,
    Checkpoint,
    Pending,
    TaskSpec,
    pull_task_id,
)
from pyctx_web.graph._engine.records import task_id as make_task_id
from pyctx_web.graph._values import UNSET, Command, Send
from pyctx_web.graph.checkpoint.base import StoredWrite
from pyctx_web.graph.constants import END
from pyctx_web.graph.errors import InvalidUpdateError, ResumeError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.outcome import EngineResult
    from pyctx_web.graph._engine.serde import JsonSerde
    from pyctx_web.graph._engine.spec import GraphSpec

__all__ = [
    "check_command",
    "encode_input_goto",
    "goto_targets",
    "plan_resume",
    "resume",
    "with_input_goto",
]

_ID: Final = re.compile(r"[0-9a-f]{32}")


def _is_resume_map(resume: Any) -> bool:
    return (
        isinstance(resume, Mapping)
        and len(resume) > 0
        and all(isinstance(k, str) and _ID.fullmatch(k) for k in resume)
    )


def _answered_ids(cp: Checkpoint, pending: Pending) -> set[str]:
    done = set(cp.answered)
    for task_id, rec in pending.tasks.items():
        done.update(interrupt_id(task_id, i) for i in range(len(rec.answers)))
        if rec.result is not None and rec.interrupt is not None:
            done.add(rec.interrupt.id)
    return done


def _retried(cp: Checkpoint, pending: Pending, resume: Any) -> dict[str, Any] | None:
    """The answers of a resume of a step whose node failed on its answers, or ``None``.

    As LangGraph: the node runs again with the answers it failed on (its
    questions stay pending), not with this resume's; a single answer goes to a
    further question it may ask, an answer by id to its question is not used.
    """
    failed = [
        (task.id, rec.interrupt.id)
        for task in cp.tasks
        if (rec := pending.tasks.get(task.id)) is not None
        and rec.result is None
        and rec.error is not None
        and rec.interrupt is not None
        and rec.answers
    ]
    if not failed or resume is None:
        return None
    if not _is_resume_map(resume):
        return {failed[0][0]: resume}
    if set(resume) <= {question for _, question in failed}:
        return {}
    return None


def plan_resume(resume: Any, cp: Checkpoint, pending: Pending) -> dict[str, Any]:
    """Return ``{task_id: answer}`` for a ``Command(resume=...)``, or raise :class:`ResumeError`.

    ``resume`` is one answer (when exactly one question waits) or a map
    ``{interrupt_id: answer}`` whose keys are all ids of waiting questions.
    Nothing is written: a refused resume leaves the checkpoint as it was.
    """
    waiting = pending.waiting(cp.tasks)
    ids = [i.id for i in waiting]
    task_of = {
        rec.interrupt.id: task_id
        for task_id, rec in pending.tasks.items()
        if rec.waiting and rec.interrupt is not None
    }

    def refuse(reason: str, rejected: list[str] | None = None) -> ResumeError:
        listed = ", ".join(repr(i) for i in ids) if ids else "none"
        return ResumeError(
            f"{reason}; pending interrupt ids: {listed}",
            thread_id=cp.thread_id,
            checkpoint_id=cp.id,
            pending_ids=ids,
            rejected_ids=rejected or [],
        )

    if not waiting:
        due = [t for t in cp.tasks if t.name != "__start__" and t.id not in pending.tasks]
        if due and resume is not None and not _is_resume_map(resume):
            # As LangGraph: with no question waiting (a breakpoint, an update by hand), a
            # single answer goes to the first question the next step asks.
            return {due[0].id: resume}
        retried = _retried(cp, pending, resume)
        if retried is not None:
            return retried
        raise refuse(f"nothing to resume: no interrupt is pending on thread {cp.thread_id!r}")
    if resume is None:
        raise refuse(
            "Command(resume=None) gives no answer: pass the answer, or a map {interrupt_id: answer}"
        )
    if _is_resume_map(resume):
        unknown = [k for k in resume if k not in task_of]
        if unknown:
            answered = _answered_ids(cp, pending)
            again = [k for k in unknown if k in answered]
            if again:
                raise refuse(
                    f"interrupt {', '.join(repr(k) for k in again)} was already answered", unknown
                )
            raise refuse(f"unknown interrupt id {', '.join(repr(k) for k in unknown)}", unknown)
        return {task_of[k]: v for k, v in resume.items()}
    if len(waiting) > 1:
        raise refuse(
            f"{len(waiting)} interrupts are pending and a single answer cannot be matched to "
            f"them: answer with a map {{interrupt_id: answer}}"
        )
    return {task_of[ids[0]]: resume}


def check_command(command: Command[Any], thread_id: str) -> None:
    """Refuse a ``Command`` that cannot be a run's input: one for a parent graph (a graph
    run from outside has none) or one that gives nothing to do."""
    if command.graph == Command.PARENT:
        raise InvalidUpdateError(
            "Command(graph=Command.PARENT) cannot be the input of a run: the graph it runs "
            "has no parent graph"
        )
    if command.resume is UNSET and not command.update and not _goto_items(command.goto):
        raise ResumeError(
            "Command() passed as input gives nothing to do: pass resume=<answer>, "
            "update={...} or goto=<node>",
            thread_id=thread_id,
            checkpoint_id=None,
        )


def _goto_items(goto: Any) -> list[Any]:
    if goto is None:
        return []
    return [goto] if isinstance(goto, str | Send) else list(goto)


def goto_targets(spec: GraphSpec, goto: Any) -> list[str | Send]:
    """The nodes and :class:`Send` tasks of an input's ``Command(goto=...)``, checked.

    ``END`` names no node and is left out, as LangGraph leaves it; another name
    that is not a node is refused (LangGraph ignores it with a warning).
    """
    out: list[str | Send] = []
    for item in _goto_items(goto):
        if not isinstance(item, str | Send):
            raise InvalidUpdateError(
                f"Command(goto=...) takes node names and Send objects, not "
                f"{type(item).__qualname__!r}"
            )
        name = item.node if isinstance(item, Send) else item
        if name == END:
            continue
        if name not in spec.nodes:
            known = ", ".join(repr(n) for n in spec.nodes)
            raise InvalidUpdateError(
                f"the input Command(goto=...) names {name!r}, which is not a node "
                f"(known nodes: {known})"
            )
        out.append(item)
    return out


def with_input_goto(target: tuple[Checkpoint, Pending]) -> tuple[Checkpoint, Pending]:
    """``target`` with the tasks earlier ``Command(goto=...)`` inputs added to its step.

    Only the run sees them in its checkpoint's tasks: as in LangGraph, the
    thread's state shows the step without them.
    """
    cp, pending = target
    if pending.input_goto:
        known = {t.id for t in cp.tasks}
        cp.tasks = _ordered(cp.tasks, [t for t in pending.input_goto if t.id not in known])
    return cp, pending


def _ordered(tasks: tuple[TaskSpec, ...], added: list[TaskSpec]) -> tuple[TaskSpec, ...]:
    """The step's tasks with ``added``, as LangGraph orders them: ``Send`` tasks first."""
    every = (*tasks, *added)
    return (*(t for t in every if t.arg is not NO_ARG), *(t for t in every if t.arg is NO_ARG))


def _goto_tasks(cp: Checkpoint, targets: list[str | Send]) -> tuple[TaskSpec, ...]:
    """The tasks ``targets`` add to the step of ``cp``: a node once per step, as an edge
    runs it; each :class:`Send` a task of its own."""
    tasks = list(cp.tasks)
    pulled = {t.name for t in tasks if t.arg is NO_ARG}
    for target in targets:
        if isinstance(target, Send):
            pushed = make_task_id(cp.id, "push", len(tasks), target.node)
            tasks.append(TaskSpec(pushed, target.node, target.arg))
        elif target not in pulled:
            pulled.add(target)
            tasks.append(TaskSpec(pull_task_id(cp.id, target), target))
    return tuple(tasks[len(cp.tasks) :])


def encode_input_goto(serde: JsonSerde, tasks: tuple[TaskSpec, ...]) -> StoredWrite:
    """The stored write of the tasks ``Command(goto=...)`` inputs added to a step (as the
    checkpoint stores its own tasks; read back as ``Pending.input_goto``)."""
    stored: list[dict[str, Any]] = []
    for task in tasks:
        doc: dict[str, Any] = {"id": task.id, "name": task.name}
        if task.arg is not NO_ARG:
            label = f"the arg of Send({task.name!r})"
            doc["arg"] = serde.encode(task.arg, key="arg", label=label)
        stored.append(doc)
    return StoredWrite("", "goto", serde.dumps({"tasks": stored}))


async def resume(
    engine: Engine, command: Command[Any], target: tuple[Checkpoint, Pending] | None, is_fork: bool
) -> EngineResult:
    """Give ``command`` to ``target`` (the thread's latest checkpoint) and run on."""
    thread_id = engine.run.thread_id or ""
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
            f"invoke(None, config) with it first to fork, then give the Command to the fork",
            thread_id=thread_id,
            checkpoint_id=cp.id,
            pending_ids=[i.id for i in pending.waiting(cp.tasks)],
        )
    targets = goto_targets(engine.spec, command.goto)
    if targets and (added := _goto_tasks(cp, targets)):
        cp.tasks = _ordered(cp.tasks, list(added))
        pending.input_goto = (*pending.input_goto, *added)
        if engine.checkpoints.checkpointer is not None:
            write = encode_input_goto(engine.checkpoints.serde, pending.input_goto)
            await engine.checkpoints.put_writes(cp, [write])
    if command.resume is UNSET:
        answers: Mapping[str, Any] = {}
    elif not cp.tasks and not command.update:
        # As LangGraph's: a thread that ran to its end has nothing to resume; the run
        # gives its values and writes nothing.
        engine.emit_values(cp, pending)
        return await engine.loop(cp, pending, skip_breakpoint=True)
    else:
        answers = plan_resume(command.resume, cp, pending)
    updates = engine.schema.check_update("__start__", command.update)
    _take_answers(engine, cp, pending, answers, updates)
    if updates and not answers:
        # Nothing waits to be written with them: written now, as LangGraph's are.
        await engine.checkpoints.save_writes(cp, [], input_updates=pending.input_updates)
        pending.unsaved_updates = False
    engine.emit_values(cp, pending)
    return await engine.loop(cp, pending, skip_breakpoint=True)


def _take_answers(
    engine: Engine,
    cp: Checkpoint,
    pending: Pending,
    answers: Mapping[str, Any],
    updates: list[tuple[str, Any]],
) -> None:
    """Give the answers (and the update) to the paused tasks, in memory only.

    They are written with what the answered task does next (its result, error
    or next question), in the same transaction: a cancel or a crash before
    that leaves the question waiting, to be answered again.
    """
    for task_id, answer in answers.items():
        rec = pending.record(task_id)
        # Past the question last asked: an answer given to a failed node earlier and not
        # used, which this one replaces (a waiting node's answers stop before it).
        rec.answers = [*rec.answers[: rec.interrupt_index + 1], answer]
        pending.unsaved_answers |= {task_id}
    if updates:
        pending.input_updates = [*pending.input_updates, *updates]
        pending.unsaved_updates = True
        cp.values = engine.schema.apply(cp.values, [("__start__", k, v) for k, v in updates])
