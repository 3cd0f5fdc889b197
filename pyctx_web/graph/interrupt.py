"""``interrupt()``: ask a question from inside a node, and match answers to questions.

A node that calls ``interrupt(value)`` is paused: the question is saved on
the checkpoint and returned to the caller under ``"__interrupt__"``. When the
caller answers with ``Command(resume=...)``, the node runs again from its
first line and its ``interrupt()`` calls return the answers in the order they
were asked. Each call has a deterministic id: a hash of the task id and the
position of the call in the task.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from pyctx_web.errors import ContextMissingError
from pyctx_web.graph.errors import GraphConfigError, GraphInterrupt, ResumeError
from pyctx_web.graph.records import Checkpoint, Pending, stable_id
from pyctx_web.graph.run import current_run, current_task
from pyctx_web.graph.types import Interrupt

__all__ = ["interrupt", "interrupt_id", "plan_resume"]

_ID: Final = re.compile(r"[0-9a-f]{32}")


def interrupt_id(task_id: str, index: int) -> str:
    """The id of the ``index``-th ``interrupt()`` call (from 0) of task ``task_id``."""
    return stable_id(task_id, "interrupt", index)


def interrupt(value: Any) -> Any:
    """Pause the node with question ``value``; return the answer once the run is resumed.

    The first time, it raises :class:`GraphInterrupt` (a ``BaseException``:
    do not catch it). The node then runs again from its first line when the
    caller answers with ``Command(resume=answer)``, and this call returns the
    answer. Raises :class:`~pyctx_web.errors.ContextMissingError` when called
    outside a node of a running graph.
    """
    frame = current_task.get_store()
    if frame is None:
        if current_run.get_store() is None:
            raise ContextMissingError(
                "interrupt() was called outside a graph run; "
                "call it from a node while the graph runs",
                operation="interrupt()",
                source="graph run",
            )
        raise ContextMissingError(
            "interrupt() was called outside a node of the graph run (in a router?); "
            "only nodes can be paused",
            operation="interrupt()",
            source="graph node",
        )
    index = frame.calls
    frame.calls += 1
    if index < len(frame.answers):
        return frame.answers[index]
    if frame.run.checkpointer is None:
        raise GraphConfigError(
            "interrupt() needs a checkpointer to save the paused run: "
            "compile(checkpointer=InMemoryCheckpointer()) and pass a thread_id"
        )
    frame.raised_index = index
    raise GraphInterrupt((Interrupt(value, interrupt_id(frame.task.id, index)),))


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
