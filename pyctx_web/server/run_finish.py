"""How a run's end shows: on its record, on its thread, and, for a rollback, in what is deleted.

:func:`finish_run` records a run's end (``success``, ``error`` or
``interrupted``) and sets its thread's status, values and interrupts from the
state the run left. :func:`roll_back` deletes a cancelled run: its record, its
stored events and the checkpoints it wrote (:func:`delete_run_checkpoints`),
so that its thread is back where it was before the run.
"""

from __future__ import annotations

from typing import Any

from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server._core import ServerCore, utc_now
from pyctx_web.server.run_events import RunOutcome
from pyctx_web.server.run_plan import RunPlan
from pyctx_web.server.state_json import interrupt_json, to_jsonable
from pyctx_web.server.threads import set_thread_status

__all__ = ["delete_run_checkpoints", "finish_run", "forget_thread", "roll_back"]


def _thread_config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


async def finish_run(
    server: ServerCore,
    plan: RunPlan,
    outcome: RunOutcome,
    *,
    keep_record: bool,
    busy: bool,
    cancelled: dict[str, str] | None = None,
) -> None:
    """Record how the run ended, on the run (unless deleted) and on its thread.

    ``busy``: other runs of the thread wait to start, so the thread stays ``busy``.
    ``cancelled``: the error a cancel leaves on the thread (``{error, message}``).
    """
    record = plan.record
    ended = outcome.status if outcome.status in ("success", "error") else "interrupted"
    record.update(status=ended, updated_at=utc_now())
    if keep_record:
        await server.runs.put(record)
    thread_id = record["thread_id"]
    thread = await server.threads.get(thread_id)
    if thread is None:  # deleted while the run went on
        return
    snapshot = await plan.graph.aget_state(_thread_config(thread_id))
    interrupts = {
        task.id: [interrupt_json(i) for i in task.interrupts]
        for task in snapshot.tasks
        if task.interrupts
    }
    if busy:
        status = "busy"
    elif ended == "error":
        status = "error"
    elif (ended == "interrupted" and keep_record) or snapshot.next:
        # A run rolled back leaves its thread as it was before: interrupted only if it was.
        status = "interrupted"
    else:
        status = "idle"
    values = to_jsonable(snapshot.values) if snapshot.config else None
    error = outcome.error
    raised = cancelled if error is None else to_jsonable(error)
    await set_thread_status(
        server, thread_id, status, values=values, interrupts=interrupts, error=raised, thread=thread
    )


async def forget_thread(server: ServerCore, plan: RunPlan) -> None:
    """Delete a stateless run's thread and its checkpoints."""
    thread_id = plan.record["thread_id"]
    await server.threads.delete(thread_id)
    checkpointer = plan.graph.checkpointer
    if checkpointer is not None:
        await checkpointer.adelete_thread(thread_id)


async def delete_run_checkpoints(graph: CompiledStateGraph, thread_id: str, run_id: str) -> int:
    """Delete the checkpoints of the thread whose metadata names ``run_id``; how many.

    The checkpointer contract has no way to delete one checkpoint, so the
    thread's other checkpoints (with their writes) are stored again, oldest
    first, after the thread is deleted: the thread's history is then the one it
    had without the run.
    """
    checkpointer = graph.checkpointer
    if checkpointer is None:
        return 0
    written = {
        snapshot.config["configurable"]["checkpoint_id"]
        async for snapshot in graph.aget_state_history(_thread_config(thread_id))
        if (snapshot.metadata or {}).get("run_id") == run_id
    }
    if not written:
        return 0
    records = [record async for record in checkpointer.alist(thread_id)]
    kept = [r for r in reversed(records) if r.checkpoint.checkpoint_id not in written]
    await checkpointer.adelete_thread(thread_id)
    latest: str | None = None
    for record in kept:
        await checkpointer.aput_with_writes(record.checkpoint, record.writes, latest=latest)
        latest = record.checkpoint.checkpoint_id
    return len(written)


async def roll_back(server: ServerCore, graph: CompiledStateGraph, record: dict[str, Any]) -> None:
    """Delete the run: its record, its stored events, the checkpoints it wrote."""
    run_id = record["run_id"]
    await server.runs.delete(run_id)
    await server.events.drop(run_id)
    await delete_run_checkpoints(graph, record["thread_id"], run_id)
