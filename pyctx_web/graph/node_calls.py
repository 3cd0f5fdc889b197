"""What surrounds a node's execution: ``node:*`` middleware and events, and its step record."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pyctx_web.graph.middleware import MiddlewareContext, run_scope
from pyctx_web.graph.run_context import StepRecord

if TYPE_CHECKING:
    from pyctx_web.graph.records import TaskSpec
    from pyctx_web.graph.run import Run
    from pyctx_web.graph.types import Interrupt

__all__ = ["observe_node"]


class _Outcome(Protocol):
    result: Any
    raw: Any
    interrupt: Interrupt | None
    error: Exception | None


OutcomeT = TypeVar("OutcomeT", bound=_Outcome)


async def observe_node(
    run: Run,
    task: TaskSpec,
    attempts: Callable[[], Awaitable[OutcomeT]],
    error_outcome: Callable[[Exception], OutcomeT],
) -> OutcomeT:
    """Run ``attempts`` between the ``node:before`` and ``node:after`` middleware.

    Emits ``node:start``, ``interrupt`` (when the node asks a question) and
    ``node:end``, and records the execution in the run's ``state.steps``. An
    error of a ``node:before`` middleware fails the node without running it; one
    of a ``node:after`` middleware fails a node that had succeeded.
    """
    ctx = run.context
    if ctx is None:
        return await attempts()
    runtime = ctx._runtime
    middleware = runtime.middleware
    bus = runtime.bus
    started_at = time.time()
    clock = time.perf_counter()
    status = "cancelled"
    try:
        try:
            if middleware:
                await run_scope(middleware, MiddlewareContext("node:before", ctx, node=task.name))
        except Exception as error:
            out = error_outcome(error)
        else:
            if bus.has_listeners("node:start"):
                runtime.emit(
                    ctx, "node:start", {"node": task.name, "task_id": task.id, "step": run.step}
                )
            out = await attempts()
        if out.interrupt is not None:
            status = "interrupted"
            question = out.interrupt
            runtime.emit(
                ctx, "interrupt", {"node": task.name, "id": question.id, "value": question.value}
            )
        try:
            if middleware:
                after = MiddlewareContext(
                    "node:after", ctx, node=task.name, result=out.raw, error=out.error
                )
                await run_scope(middleware, after)
        except Exception as error:
            if out.error is None and out.interrupt is None:
                out = error_outcome(error)
        if out.interrupt is None:
            status = "error" if out.error is not None else "done"
        if bus.has_listeners("node:end"):
            runtime.emit(
                ctx,
                "node:end",
                {
                    "node": task.name,
                    "task_id": task.id,
                    "status": status,
                    "update": out.raw,
                    "error": None if out.error is None else repr(out.error),
                },
            )
        return out
    except asyncio.CancelledError:
        status = "cancelled"
        raise
    finally:
        ctx._log.steps.append(
            StepRecord(
                node=task.name,
                step=run.step,
                status=status,
                started_at=started_at,
                duration_ms=(time.perf_counter() - clock) * 1000,
            )
        )
