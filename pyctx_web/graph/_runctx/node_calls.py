"""The run-context layer's plug into the engine: what surrounds each node's execution.

``node:before``/``node:after`` middleware, the ``node:start``, ``interrupt``
and ``node:end`` events, and the node's record in the run's ``state.steps``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.frames import OutcomeT
from pyctx_web.graph._runctx.context import RunContext
from pyctx_web.graph._runctx.log import RunLog, StepRecord
from pyctx_web.graph.middleware import MiddlewareContext, run_scope

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.records import TaskSpec
    from pyctx_web.graph._runctx.services import RunRuntime

__all__ = ["ContextPlug"]


@dataclass(eq=False, slots=True)
class ContextPlug:
    """The :class:`~pyctx_web.graph._engine.frames.RunPlug` of a run that has a context."""

    context: RunContext[Any]
    """The run's context: every node's second parameter."""
    services: RunRuntime
    """The graph's middleware and listeners."""
    log: RunLog
    """Where the run records its node executions."""

    async def around_node(
        self,
        run: Run,
        task: TaskSpec,
        attempts: Callable[[], Awaitable[OutcomeT]],
        error_outcome: Callable[[Exception], OutcomeT],
    ) -> OutcomeT:
        """Run ``attempts`` between the ``node:before`` and ``node:after`` middleware.

        An error of a ``node:before`` middleware fails the node without running it;
        one of a ``node:after`` middleware fails a node that had succeeded.
        """
        ctx, services = self.context, self.services
        middleware, bus = services.middleware, services.bus
        started_at, clock = time.time(), time.perf_counter()
        status = "cancelled"
        try:
            try:
                if middleware:
                    before = MiddlewareContext("node:before", ctx, node=task.name)
                    await run_scope(middleware, before)
            except Exception as error:
                out = error_outcome(error)
            else:
                if bus.has_listeners("node:start"):
                    payload = {"node": task.name, "task_id": task.id, "step": run.step}
                    services.emit(ctx, "node:start", payload)
                out = await attempts()
            if out.interrupt is not None:
                question = {"node": task.name, "id": out.interrupt.id, "value": out.interrupt.value}
                services.emit(ctx, "interrupt", question)
            if middleware:
                out = await self._after(task, out, error_outcome)
            status = "interrupted" if out.interrupt else "error" if out.error else "done"
            if bus.has_listeners("node:end"):
                self._node_end(task, status, out.raw, out.error)
            return out
        finally:
            duration_ms = (time.perf_counter() - clock) * 1000
            self.log.steps.append(StepRecord(task.name, run.step, status, started_at, duration_ms))

    async def _after(
        self, task: TaskSpec, out: OutcomeT, error_outcome: Callable[[Exception], OutcomeT]
    ) -> OutcomeT:
        """Run the ``node:after`` middleware; its error fails a node that had succeeded."""
        after = MiddlewareContext(
            "node:after", self.context, node=task.name, result=out.raw, error=out.error
        )
        try:
            await run_scope(self.services.middleware, after)
        except Exception as error:
            if out.error is None and out.interrupt is None:
                return error_outcome(error)
        return out

    def _node_end(self, task: TaskSpec, status: str, raw: Any, error: Exception | None) -> None:
        payload = {
            "node": task.name,
            "task_id": task.id,
            "status": status,
            "update": raw,
            "error": None if error is None else repr(error),
        }
        self.services.emit(self.context, "node:end", payload)
