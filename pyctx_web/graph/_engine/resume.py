"""Resuming a paused run: which task each answer goes to, saving answers, taking them back.

:func:`plan_resume` matches a ``Command(resume=...)`` to the questions that
wait; :func:`resume` gives the answers (and a ``Command(update=...)``) to the
paused tasks and runs the step again; the answers are written with what the
answered task does next, so a cancel or crash before that leaves the
question waiting.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph._engine.records import Checkpoint, Pending
from pyctx_web.graph._values import UNSET, Command
from pyctx_web.graph.errors import InvalidUpdateError, ResumeError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.outcome import EngineResult

__all__ = ["plan_resume", "resume"]

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


async def resume(
    engine: Engine, command: Command[Any], target: tuple[Checkpoint, Pending] | None, is_fork: bool
) -> EngineResult:
    """Answer the questions of ``target`` (the thread's latest checkpoint) and run on."""
    thread_id = engine.run.thread_id or ""
    if command.goto is not None and command.goto != ():
        raise InvalidUpdateError(
            "Command(goto=...) cannot be the input of a run: its next nodes come from the "
            "thread's checkpoint; use update_state(config, values, as_node=...) instead"
        )
    if command.resume is UNSET:
        raise ResumeError(
            "Command() passed as input needs resume=<answer>",
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
            f"invoke(None, config) with it first to fork, then answer the fork",
            thread_id=thread_id,
            checkpoint_id=cp.id,
            pending_ids=[i.id for i in pending.waiting(cp.tasks)],
        )
    if not cp.tasks and not command.update:
        # As LangGraph's: a thread that ran to its end has nothing to resume; the run
        # gives its values and writes nothing.
        engine.emit_values(cp, pending)
        return await engine.loop(cp, pending, skip_breakpoint=True)
    answers = plan_resume(command.resume, cp, pending)
    updates = engine.schema.check_update("__start__", command.update)
    _take_answers(engine, cp, pending, answers, updates)
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
        rec.answers = [*rec.answers, answer]
        pending.unsaved_answers |= {task_id}
    if updates:
        pending.input_updates = [*pending.input_updates, *updates]
        pending.unsaved_updates = True
        cp.values = engine.schema.apply(cp.values, [("__start__", k, v) for k, v in updates])
