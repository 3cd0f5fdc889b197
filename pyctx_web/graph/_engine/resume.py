"""Resuming a paused run: which task each answer goes to, saving answers, taking them back.

:func:`plan_resume` matches a ``Command(resume=...)`` to the questions that
wait; :func:`resume` saves the answers (and a ``Command(update=...)``) on the
paused checkpoint and runs the step again; a cancelled resume takes its
answers back, so the questions wait again.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from pyctx_web.graph._engine.interrupts import interrupt_id
from pyctx_web.graph._engine.records import Checkpoint, Pending, TaskRecord
from pyctx_web.graph._engine.values import UNSET, Command
from pyctx_web.graph.errors import InvalidUpdateError, ResumeError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.outcome import Outcome

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
) -> Outcome:
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
    answers = plan_resume(command.resume, cp, pending)
    updates = engine.schema.check_update("__start__", command.update)
    before = await _save_answers(engine, cp, pending, answers, updates)
    engine.emit_values(cp, pending)
    try:
        return await engine.loop(cp, pending, skip_breakpoint=True)
    except asyncio.CancelledError:
        await _withdraw_answers(engine, cp, before)
        raise


async def _save_answers(
    engine: Engine,
    cp: Checkpoint,
    pending: Pending,
    answers: Mapping[str, Any],
    updates: list[tuple[str, Any]],
) -> dict[str, TaskRecord]:
    """Save the answers (and the update) in one transaction; return the records before."""
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
    # The stored update write holds every update given while this step was paused.
    await engine.save_writes(
        cp, items, input_updates=[*pending.input_updates, *updates] if updates else None
    )
    if updates:
        pending.input_updates.extend(updates)
        cp.values = engine.schema.apply(cp.values, [("__start__", k, v) for k, v in updates])
    return before


async def _withdraw_answers(engine: Engine, cp: Checkpoint, before: dict[str, TaskRecord]) -> None:
    """Take back the saved answers of a cancelled resume, so its questions wait again.

    Only while ``cp`` is still the thread's latest checkpoint, and only for
    tasks whose saved record shows no result, error or new question since.
    """
    loaded = await engine.load(cp.thread_id, None)
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
