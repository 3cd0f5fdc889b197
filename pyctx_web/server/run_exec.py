"""Runs being executed: each in an asyncio task of its own, its events published to its listeners.

:func:`launch` starts a planned run (:mod:`.run_plan`) in a task: it waits for
the runs of its thread launched before it (``enqueue``), goes ``running``, and
publishes each event of :func:`~.run_events.run_events` as a
:data:`~._core.StoredEvent` (an ``ms-seq`` id, its name, its JSON) to every
queue that listens to it, and to the server's :class:`~._core.EventLog` when
the run is ``stream_resumable`` (as the LangGraph Server keeps them: the modes
asked and ``metadata``, never the last ``error``). A listener's queue gets
``None`` once the run ended. When the run ends its record and its thread say
how (:mod:`.run_finish`). A run lives on whether or not anyone listens: a
client that leaves a stream cancels it only when it asked to (``on_disconnect``).

:func:`cancel` ends a run ``interrupted`` (its committed steps kept) or, with
``rollback``, deletes it with its checkpoints and events; a run still waiting
for its turn never starts.
"""

from __future__ import annotations

import asyncio
import copy
import json
import weakref
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError
from pyctx_web.server import sse
from pyctx_web.server._core import ServerCore, StoredEvent, utc_now
from pyctx_web.server.run_events import RunOutcome, run_events
from pyctx_web.server.run_finish import finish_run, forget_thread, roll_back
from pyctx_web.server.run_plan import RunPlan
from pyctx_web.server.threads import set_thread_status

__all__ = [
    "CANCEL_ACTIONS",
    "ActiveRun",
    "Listener",
    "active_runs",
    "cancel",
    "cancel_soon",
    "inflight",
    "launch",
]

CANCEL_ACTIONS: Final = ("interrupt", "rollback")
"""What a cancel does to a run: ends it ``interrupted``, or also deletes it."""

Listener = asyncio.Queue[StoredEvent | None]
"""Where a run's events go for one client: ``None`` after the last."""


class ActiveRun:
    """A run launched and not yet ended: its plan, its task, who listens, how it is cancelled."""

    def __init__(self, plan: RunPlan, stateless: bool, after: list[ActiveRun]) -> None:
        self.plan = plan
        self.stateless = stateless
        self.after = after
        """The runs of the same thread this one waits for."""
        self.task: asyncio.Task[None] | None = None
        self.done = asyncio.Event()
        self.started = False
        """Whether it left the queue and runs (``running``)."""
        self.stoppable = True
        """Whether a cancel still stops it (False once its graph's events ended)."""
        self.action: str | None = None
        """The cancel asked of it, if any."""
        self.reason = ""
        """Why it was cancelled, as its thread's error says."""
        self.forgotten = False
        """Whether its record was deleted while it ran (it is then not stored again)."""
        self.listeners: list[Listener] = []
        self.ids = sse.EventIds()

    @property
    def run_id(self) -> str:
        """The run's id."""
        run_id: str = self.plan.record["run_id"]
        return run_id

    @property
    def thread_id(self) -> str:
        """The id of the run's thread."""
        thread_id: str = self.plan.record["thread_id"]
        return thread_id

    def listen(self) -> Listener:
        """A new queue that gets the run's events from now on."""
        queue: Listener = asyncio.Queue()
        self.listeners.append(queue)
        return queue

    def leave(self, queue: Listener) -> None:
        """Stop sending the run's events to ``queue``."""
        if queue in self.listeners:
            self.listeners.remove(queue)


_ACTIVE: weakref.WeakKeyDictionary[ServerCore, dict[str, ActiveRun]] = weakref.WeakKeyDictionary()


def active_runs(server: ServerCore) -> dict[str, ActiveRun]:
    """The server's runs launched and not yet ended (pending or running), by run id."""
    return _ACTIVE.setdefault(server, {})


def inflight(server: ServerCore, thread_id: str) -> list[ActiveRun]:
    """The thread's runs launched and not yet ended, oldest first."""
    return [run for run in active_runs(server).values() if run.thread_id == thread_id]


def launch(server: ServerCore, plan: RunPlan, *, stateless: bool = False) -> ActiveRun:
    """Start the run in a task of its own, after the thread's runs launched before it."""
    active = ActiveRun(plan, stateless, inflight(server, plan.record["thread_id"]))
    active_runs(server)[active.run_id] = active
    active.task = asyncio.ensure_future(_execute(server, active))
    active.task.add_done_callback(lambda _: _ended(server, active))
    return active


def _kept_modes(plan: RunPlan) -> set[str]:
    """The event names a resumable run keeps: its modes' and ``metadata``."""
    modes = {*plan.stream_modes, "metadata"}
    if "messages-tuple" in modes:
        modes.add("messages")
    return modes


async def _publish(server: ServerCore, active: ActiveRun, name: str, data: Any) -> None:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    event = (active.ids.next(), name, payload.encode())
    plan = active.plan
    # As the LangGraph Server: a subgraph's events by their mode; the error event is not kept.
    if plan.resumable and name.split("|", 1)[0] in _kept_modes(plan):
        await server.events.append(active.run_id, event)
    for queue in active.listeners:
        queue.put_nowait(event)


async def _run(server: ServerCore, active: ActiveRun) -> None:
    """Run the graph, publishing its events; record how it ended."""
    plan = active.plan
    active.started = True
    plan.record.update(status="running", updated_at=utc_now())
    # What the server's worker adds to the kept request once it runs it.
    kept = plan.record["kwargs"]["config"]
    kept["configurable"]["__pregel_node_finished"] = None
    kept["metadata"]["run_attempt"] = 1
    # Stored while the graph starts (it reads the thread's checkpoint first): nothing waits
    # for the record to say running, and its end is stored after it.
    running = asyncio.ensure_future(server.runs.put(copy.deepcopy(plan.record)))
    outcome = RunOutcome()
    events = run_events(
        plan.graph,
        plan.input,
        plan.config,
        run_id=active.run_id,
        stream_modes=plan.stream_modes,
        subgraphs=plan.subgraphs,
        outcome=outcome,
        options=plan.options,
    )
    try:
        async for name, data in events:
            await _publish(server, active, name, data)
    except asyncio.CancelledError:
        if active.action is None:  # not a cancel of this run: the loop itself is going away
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
    finally:
        active.stoppable = False
        await events.aclose()
        await running
    # Runs of the thread still to come keep it busy; ones being cancelled do not.
    later = inflight(server, active.thread_id)
    busy = any(run is not active and run.action is None for run in later)
    if active.action == "rollback":
        await roll_back(server, plan.graph, plan.record)
    keep = active.action != "rollback" and not active.forgotten
    await finish_run(server, plan, outcome, keep_record=keep, busy=busy, cancelled=_error(active))
    if active.stateless and plan.record["kwargs"]["temporary"]:  # on_completion "delete"
        await forget_thread(server, plan)


async def _execute(server: ServerCore, active: ActiveRun) -> None:
    try:
        for earlier in active.after:
            await earlier.done.wait()
    except asyncio.CancelledError:
        if active.action is None:
            raise
        return  # cancelled while it waited for its turn: :func:`cancel` recorded it
    await _run(server, active)


def _ended(server: ServerCore, active: ActiveRun) -> None:
    """The run's task is done (also one cancelled before it began): tell who waits."""
    active_runs(server).pop(active.run_id, None)
    active.done.set()
    for queue in active.listeners:
        queue.put_nowait(None)


def _error(active: ActiveRun) -> dict[str, str] | None:
    """The error a cancel leaves on the run's thread, as the server names it."""
    if active.action is None:
        return None
    name = "UserRollback" if active.action == "rollback" else "UserInterrupt"
    return {"error": name, "message": active.reason}


async def cancel(
    server: ServerCore, active: ActiveRun, action: str, reason: str | None = None
) -> None:
    """Cancel the run: ``interrupt`` ends it interrupted, ``rollback`` also deletes it.

    ``reason`` is what the thread's error then says (by default: a cancel request's words).

    A run still waiting for its turn never starts: it is ``interrupted`` (and
    its thread ``idle``, as the LangGraph Server sets it), or deleted at once
    by a rollback when nobody listens to it.
    """
    if action not in CANCEL_ACTIONS:
        raise ArgumentValueError(f"a cancel action is one of {CANCEL_ACTIONS}, not {action!r}")
    if active.action is not None or not active.stoppable:
        return
    active.action = action
    if reason is None:
        reason = f"{action} requested via POST /threads/{{thread_id}}/runs/{{run_id}}/cancel"
    active.reason = reason
    if not active.started:
        record = active.plan.record
        if action == "rollback" and not active.listeners:
            await server.runs.delete(active.run_id)
        else:
            record.update(status="interrupted", updated_at=utc_now())
            await server.runs.put(record)
            if await server.threads.get(active.thread_id) is not None:
                await set_thread_status(server, active.thread_id, "idle")
    if active.task is not None:
        active.task.cancel()


_DETACHED: set[asyncio.Task[None]] = set()
"""Cancels started for clients that left, kept until they ran (the loop holds tasks weakly)."""


def cancel_soon(server: ServerCore, active: ActiveRun, reason: str) -> None:
    """Interrupt the run in a task of its own: for a client that left, whose task is ending."""
    task = asyncio.ensure_future(cancel(server, active, "interrupt", reason))
    _DETACHED.add(task)
    task.add_done_callback(_DETACHED.discard)
