"""The life of one run: its extension, the ``before_agent``/``after_agent`` hooks, cancellation.

Every ``ainvoke``/``astream``/``start`` runs the graph in a task of its own, so
that cancelling the run (``runtime.cancel()``, ``CompiledStateGraph.cancel`` or
``RunHandle.cancel``) stops that task at its next ``await`` and nothing else.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Generator, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import field
from typing import TYPE_CHECKING, Any

from pyctx_web._homes import publish
from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.execution import ExecutionContext, execution_context_storage
from pyctx_web.graph._engine.extension import RunLog, RunOutcome, RunRecord
from pyctx_web.graph._runctx.extension import RuntimeExtension
from pyctx_web.graph._runctx.middleware import run_after_agent, run_before_agent
from pyctx_web.graph._runctx.services import GraphServices, merge_context
from pyctx_web.graph.errors import RunCancelledError, ThreadBusyError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.outcome import EngineResult

__all__ = ["ActiveRuns", "Admission", "RunHandle", "extend", "managed"]


@record(eq=False)
class Admission:
    """A run admitted to its thread: its turn, its hold on the thread, its cancel, its end."""

    run_id: str
    """The run it controls."""
    thread_id: str | None
    """The run's thread."""
    task: asyncio.Task[Any] | None = None
    """The task the run executes in, once started."""
    requested: bool = False
    """Whether a cancel was asked for."""
    reason: str | None = None
    """Why, as given to the first cancel."""
    started: bool = False
    """Whether the run's body has begun; before that a cancel is only noted."""
    turn: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the runs of the thread admitted before this one have ended."""
    hold: AbstractAsyncContextManager[None] = field(default_factory=nullcontext)
    """Held by the run once its turn has come: the checkpointer's hold on the thread."""
    outcome: RunOutcome | None = None
    """How the run ended, once it has."""

    def cancel(self, reason: str | None = None) -> None:
        """Ask the run to stop at its next ``await``; later calls keep the first reason."""
        if self.requested:
            return
        self.requested = True
        self.reason = reason
        # A task cancelled before its first step never runs its body, so its end would
        # go unrecorded: a run that has not begun notices the request when it begins.
        if self.started and self.task is not None and not self.task.done():
            self.task.cancel(reason)


@record(eq=False)
class ActiveRuns:
    """The runs of one compiled graph that are executing or waiting now, by thread.

    One run at a time per thread: ``admit`` refuses a second (``"reject"``) or
    queues it (``"enqueue"``), and ``turn`` waits until the runs before it are
    done. Runs of different threads never wait for each other.
    """

    by_thread: dict[str | None, list[Admission]] = field(default_factory=dict)
    """Controls of admitted runs in arrival order; a run leaves when it ends."""

    def admit(self, control: Admission, multitask: str) -> None:
        """Register ``control``; :class:`ThreadBusyError` if its thread runs and ``"reject"``."""
        busy = control.thread_id is not None and self.by_thread.get(control.thread_id)
        if busy and multitask == "reject":
            assert control.thread_id is not None
            raise ThreadBusyError(control.thread_id, "another run of this graph is running it")
        self.by_thread.setdefault(control.thread_id, []).append(control)

    async def turn(self, control: Admission) -> None:
        """Wait until the runs of ``control``'s thread admitted before it have ended."""
        runs = self.by_thread.get(control.thread_id, [])
        if control.thread_id is None or not runs or runs[0] is control:
            return
        await control.turn.wait()

    def remove(self, control: Admission) -> None:
        """Forget ``control``; the next run of its thread may go."""
        runs = self.by_thread.get(control.thread_id)
        if runs is None or control not in runs:
            return
        runs.remove(control)
        if runs:
            runs[0].turn.set()
        else:
            del self.by_thread[control.thread_id]

    def of(self, thread_id: str | None) -> list[Admission]:
        """The admitted runs of ``thread_id``."""
        return list(self.by_thread.get(thread_id, ()))


def _execution_context(
    given: ExecutionContext | Mapping[str, Any] | None, run_id: str
) -> ExecutionContext:
    if isinstance(given, ExecutionContext):
        ec = given
    elif given is None or isinstance(given, Mapping):
        current = execution_context_storage.get_store() or ExecutionContext()
        ec = current.plus_all(given or {})
    else:
        raise ArgumentTypeError(
            "execution_context must be an ExecutionContext or a mapping, "
            f"not {type(given).__name__!r}"
        )
    if ec.correlation_id is None:
        # Every run can be traced: without a correlation id, the run id serves as one.
        ec = ec.plus("correlation_id", run_id)
    return ec


def extend(
    services: GraphServices,
    run: Run,
    *,
    context: Any,
    execution_context: ExecutionContext | Mapping[str, Any] | None,
    control: Admission,
) -> tuple[RuntimeExtension, ExecutionContext]:
    """Give ``run`` its context and its :class:`RuntimeExtension`; return it and the
    execution context (tenant, user, correlation id) the run executes in."""
    ec = _execution_context(execution_context, run.run_id)
    run.context = merge_context(services.default_context, context)
    run.extension = extension = RuntimeExtension(run, services, control.cancel)
    return extension, ec


async def managed(
    extension: RuntimeExtension,
    control: Admission,
    execution_context: ExecutionContext,
    execute: Callable[[], Awaitable[EngineResult]],
) -> EngineResult:
    """Run ``execute`` between the middleware's ``before_agent`` and ``after_agent``.

    Runs in the run's own task, in ``execution_context``. ``after_agent`` runs
    when the run reaches its end. A cancel raises :class:`RunCancelledError`.
    """
    execution_context_storage.enter_with(execution_context)
    control.started = True
    middleware, run = extension.services.middleware, extension.run
    try:
        if control.requested:
            raise asyncio.CancelledError(control.reason)
        if middleware:
            await run_before_agent(middleware, run.input, extension.runtime())
        outcome = await execute()
        if middleware and not outcome.interrupts:
            await run_after_agent(middleware, dict(outcome.values), extension.runtime())
        control.outcome = _ended(outcome)
        return outcome
    except asyncio.CancelledError as cancelled:
        reason = str(cancelled.args[0]) if cancelled.args else None
        control.outcome = RunOutcome(
            "cancelled", reason=control.reason if control.requested else reason
        )
        task = asyncio.current_task()
        if not control.requested or task is None:
            raise  # the caller was cancelled, not the run (a timeout, a stopped astream)
        task.uncancel()
        raise RunCancelledError(
            control.reason, run_id=run.run_id, thread_id=run.thread_id
        ) from None
    except Exception as error:
        control.outcome = RunOutcome("error", error=error)
        raise
    finally:
        extension.record.finished_at = time.time()


def _ended(outcome: EngineResult) -> RunOutcome:
    if outcome.interrupts:
        return RunOutcome(
            "interrupt", values=dict(outcome.values), interrupts=tuple(outcome.interrupts)
        )
    return RunOutcome("success", values=dict(outcome.values))


@record(eq=False)
class RunHandle:
    """A run started with :meth:`CompiledStateGraph.start`: await it, watch it, or cancel it."""

    run_id: str
    """The run's id."""
    thread_id: str | None
    """The run's thread; ``None`` without a checkpointer."""
    record: RunRecord
    """What the run has done, behind :attr:`log`."""
    control: Admission
    """Its cancellation control."""
    task: asyncio.Task[dict[str, Any]]
    """The task it executes in."""

    @property
    def log(self) -> RunLog:
        """What the run has done so far: steps, tool calls, messages, token usage."""
        return RunLog(self.record)

    @property
    def outcome(self) -> RunOutcome | None:
        """How the run ended (success, interrupt, error or cancelled); ``None`` while it runs."""
        return self.control.outcome

    def cancel(self, reason: str | None = None) -> None:
        """Stop the run at its next ``await``; awaiting the handle raises ``RunCancelledError``."""
        self.control.cancel(reason)

    def done(self) -> bool:
        """Whether the run has ended."""
        return self.task.done()

    async def result(self) -> dict[str, Any]:
        """Wait for the run and return its values, as ``ainvoke`` does."""
        return await self.task

    def __await__(self) -> Generator[Any, None, dict[str, Any]]:
        return self.task.__await__()


publish("pyctx_web.graph.runtime", RunHandle)
