"""The life of one run: its context, ``run:*`` middleware, hooks and events, and cancellation.

Every ``ainvoke``/``astream``/``start`` runs the graph in a task of its own, so
that cancelling the run (``ctx.cancel()``, ``CompiledGraph.cancel`` or
``RunHandle.cancel``) stops that task at its next ``await`` and nothing else.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Generator, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyctx_web.context import is_awaitable
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.execution import ExecutionContext, execution_context_storage
from pyctx_web.graph._engine.ids import random_uuid
from pyctx_web.graph._engine.values import Command
from pyctx_web.graph._runctx.context import RunContext, merge_data
from pyctx_web.graph._runctx.log import RunLog, RunOutcome
from pyctx_web.graph._runctx.node_calls import ContextPlug
from pyctx_web.graph._runctx.services import RunRuntime
from pyctx_web.graph.errors import RunCancelledError, ThreadBusyError
from pyctx_web.graph.middleware import MiddlewareContext, run_scope

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.outcome import Outcome

__all__ = ["ActiveRuns", "RunControl", "RunHandle", "managed", "new_context"]


@dataclass(eq=False)
class RunControl:
    """Cancellation of one run: which task to stop and why."""

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

    def cancel(self, reason: str | None = None) -> None:
        """Ask the run to stop at its next ``await``; later calls keep the first reason."""
        if self.requested:
            return
        self.requested = True
        self.reason = reason
        # A task cancelled before its first step never runs its body, so on_end would
        # not run: a run that has not begun notices the request when it begins.
        if self.started and self.task is not None and not self.task.done():
            self.task.cancel(reason)


@dataclass(eq=False)
class ActiveRuns:
    """The runs of one compiled graph that are executing or waiting now, by thread.

    One run at a time per thread: ``admit`` refuses a second (``"reject"``) or
    queues it (``"enqueue"``), and ``turn`` waits until the runs before it are
    done. Runs of different threads never wait for each other.
    """

    by_thread: dict[str | None, list[RunControl]] = field(default_factory=dict)
    """Controls of admitted runs in arrival order; a run leaves when it ends."""

    def admit(self, control: RunControl, multitask: str) -> None:
        """Register ``control``; :class:`ThreadBusyError` if its thread runs and ``"reject"``."""
        busy = control.thread_id is not None and self.by_thread.get(control.thread_id)
        if busy and multitask == "reject":
            assert control.thread_id is not None
            raise ThreadBusyError(control.thread_id, "another run of this graph is running it")
        self.by_thread.setdefault(control.thread_id, []).append(control)

    async def turn(self, control: RunControl) -> None:
        """Wait until the runs of ``control``'s thread admitted before it have ended."""
        runs = self.by_thread.get(control.thread_id, [])
        if control.thread_id is None or not runs or runs[0] is control:
            return
        await control.turn.wait()

    def remove(self, control: RunControl) -> None:
        """Forget ``control``; the next run of its thread may go."""
        runs = self.by_thread.get(control.thread_id)
        if runs is None or control not in runs:
            return
        runs.remove(control)
        if runs:
            runs[0].turn.set()
        else:
            del self.by_thread[control.thread_id]

    def of(self, thread_id: str | None) -> list[RunControl]:
        """The admitted runs of ``thread_id``."""
        return list(self.by_thread.get(thread_id, ()))


def new_context(
    runtime: RunRuntime,
    run: Run,
    input: Any,
    *,
    data: Any,
    execution_context: ExecutionContext | Mapping[str, Any] | None,
    control: RunControl,
) -> ContextPlug:
    """Make the :class:`RunContext` of ``run`` and plug it into the run."""
    if isinstance(execution_context, ExecutionContext):
        ec = execution_context
    elif execution_context is None or isinstance(execution_context, Mapping):
        current = execution_context_storage.get_store() or ExecutionContext()
        ec = current.plus_all(execution_context or {})
    else:
        raise ArgumentTypeError(
            "execution_context must be an ExecutionContext or a mapping, "
            f"not {type(execution_context).__name__!r}"
        )
    if ec.correlation_id is None:
        # Every run can be traced: without a correlation id, the run id serves as one.
        ec = ec.plus("correlation_id", run.run_id)
    log = RunLog()
    ctx: RunContext[Any] = RunContext(
        services=runtime,
        log=log,
        run_id=run.run_id,
        thread_id=run.thread_id if run.thread_id is not None else random_uuid(),
        input=input.resume if isinstance(input, Command) else input,
        data=merge_data(runtime.default_data, data),
        execution_context=ec,
        cancel=control.cancel,
    )
    run.context = ctx.data  # runtime.context and ctx.data are one object
    run.plug = plug = ContextPlug(ctx, runtime, log)
    return plug


async def _call(fn: Callable[..., Any] | None, *args: Any) -> None:
    if fn is None:
        return
    result = fn(*args)
    if is_awaitable(result):
        await result


async def managed(
    plug: ContextPlug,
    control: RunControl,
    execute: Callable[[], Awaitable[Outcome]],
) -> Outcome:
    """Run ``execute`` between the run's start and end: middleware, hooks, events, cancel.

    Runs in the run's own task. ``Hooks.on_end`` and ``run:after`` middleware
    run whichever way the run ends. A cancel raises :class:`RunCancelledError`.
    """
    runtime, ctx = plug.services, plug.context
    execution_context_storage.enter_with(ctx.execution_context)
    control.started = True
    outcome: Outcome | None = None
    error: BaseException | None = None
    try:
        if control.requested:
            raise asyncio.CancelledError(control.reason)
        await run_scope(runtime.middleware, MiddlewareContext("run:before", ctx))
        if runtime.hooks is not None:
            await _call(runtime.hooks.on_start, ctx)
        runtime.emit(ctx, "run:start", {"input": ctx.input})
        outcome = await execute()
        return outcome
    except asyncio.CancelledError as cancelled:
        task = asyncio.current_task()
        if not control.requested or task is None:
            error = cancelled  # the caller was cancelled, not the run: on_end still hears of it
            raise
        task.uncancel()
        error = RunCancelledError(control.reason, run_id=ctx.run_id, thread_id=ctx.thread_id)
        raise error from None
    except BaseException as exc:
        error = exc
        raise
    finally:
        await _finish(plug, outcome, error)


async def _finish(plug: ContextPlug, outcome: Outcome | None, error: BaseException | None) -> None:
    runtime, ctx = plug.services, plug.context
    plug.log.finished_at = time.time()
    if isinstance(error, RunCancelledError):
        result = RunOutcome("cancelled", reason=error.reason)
    elif isinstance(error, asyncio.CancelledError):
        # Cancelled by whoever awaited it (a timeout, an astream consumer that stopped).
        result = RunOutcome("cancelled", reason=str(error.args[0]) if error.args else None)
    elif error is not None:
        result = RunOutcome("error", error=error)
    elif outcome is not None and outcome.interrupts:
        result = RunOutcome(
            "interrupt", values=dict(outcome.values), interrupts=tuple(outcome.interrupts)
        )
    else:
        result = RunOutcome("success", values=None if outcome is None else dict(outcome.values))
    runtime.emit(
        ctx,
        "run:end",
        {"status": result.status, "duration_ms": ctx.state.duration_ms, "reason": result.reason},
    )
    after = MiddlewareContext("run:after", ctx, result=result.values, error=result.error or error)
    try:
        await run_scope(runtime.middleware, after)
    finally:
        if runtime.hooks is not None:
            await _call(runtime.hooks.on_end, ctx, result)


@dataclass(eq=False)
class RunHandle:
    """A run started with :meth:`CompiledGraph.start`: await it for the values, or cancel it."""

    context: RunContext[Any]
    """The run's context."""
    control: RunControl
    """Its cancellation control."""
    task: asyncio.Task[dict[str, Any]]
    """The task it executes in."""

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self.context.run_id

    @property
    def thread_id(self) -> str:
        """The run's thread."""
        return self.context.thread_id

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
