"""The run-context layer's part of one run: tools, memory, log and cancel, around each node.

A :class:`RuntimeExtension` is made per invocation (``ainvoke``, ``astream``,
``start``) and plugged into the engine's run as its
:class:`~pyctx_web.graph._engine.extension.RunExtension`: each node runs
inside the middleware's ``awrap_node_call`` and is recorded in the run's log,
and the :class:`~pyctx_web.graph.runtime.Runtime` of every node and tool of the
run reaches the graph's tools and memory, the log and cancel through it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import field
from time import perf_counter
from typing import TYPE_CHECKING, Any

from pyctx_web._records import record
from pyctx_web.errors import UsageError
from pyctx_web.graph._engine.extension import (
    MemoryProvider,
    NodeOutcome,
    OutcomeT,
    RunRecord,
    ToolCallSpec,
    ToolResult,
)
from pyctx_web.graph._engine.frames import current_task
from pyctx_web.graph._engine.runtime import Runtime, runtime_of
from pyctx_web.graph._runctx.middleware import NodeCallRequest, wrap_node_call

if TYPE_CHECKING:
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.records import TaskSpec
    from pyctx_web.graph._runctx.services import GraphServices

__all__ = ["RuntimeExtension"]


@record(eq=False, slots=True)
class RuntimeExtension:
    """What the run-context layer adds to one run (see the module's docstring)."""

    run: Run
    """The engine's run it belongs to."""
    services: GraphServices
    """The graph's tools, middleware and memory."""
    cancel_run: Callable[[str | None], None]
    """Asks the run's task to stop."""
    record: RunRecord = field(default_factory=RunRecord)
    """What the run has done so far."""
    wraps_nodes: bool = field(init=False)
    """Whether middleware wraps node calls: the engine runs the others without
    :meth:`around_node`, and logs them with :meth:`node_ran`."""

    def __post_init__(self) -> None:
        self.wraps_nodes = bool(self.services.node_wrappers)

    @property
    def memory(self) -> MemoryProvider | None:
        """The graph's memory."""
        return self.services.memory

    def runtime(self) -> Runtime[Any]:
        """The run's :class:`Runtime`, as the calling code (a node, or not) sees it."""
        return runtime_of(self.run, current_task.get_store())

    async def call_tool(self, name: str, args: Mapping[str, Any]) -> Any:
        """See :meth:`Runtime.call_tool`."""
        (done,) = await self.call_tools([(name, args)])
        return done.result

    async def call_tools(self, calls: Iterable[ToolCallSpec]) -> list[ToolResult]:
        """See :meth:`Runtime.call_tools`."""
        from pyctx_web.graph._runctx.tool_calls import ToolRun, call_tools

        return await call_tools(
            ToolRun(self.run, self.services, self.record, self.runtime()), calls
        )

    def cancel(self, reason: str | None = None) -> None:
        """Stop the run at its next ``await``."""
        self.cancel_run(reason)

    async def around_node(
        self,
        task: TaskSpec,
        attempts: Callable[[], Awaitable[OutcomeT]],
        error_outcome: Callable[[Exception], OutcomeT],
    ) -> OutcomeT:
        """Run ``attempts`` inside the middleware's ``awrap_node_call``; record the node.

        An error a middleware raises fails the node (one raised after a node that
        succeeded, too); what the node itself raised stays its error.
        """
        start, out = perf_counter(), None
        try:
            if self.services.node_wrappers:
                out = await self._wrapped(task, attempts, error_outcome)
            else:
                out = await attempts()
            return out
        finally:
            self.node_ran(task, out, start)

    def node_ran(self, task: TaskSpec, out: NodeOutcome | None, start: float) -> None:
        """Log a node run from ``start`` (a perf_counter reading) to now; ``None``: cancelled."""
        if out is None:
            status = "cancelled"
        else:
            status = "interrupted" if out.interrupt else "error" if out.error else "done"
        # Recorded as plain clock readings: RunLog.steps makes the StepRecord when read.
        self.record.node_runs.append((task.name, self.run.step, status, start, perf_counter()))

    async def _wrapped(
        self,
        task: TaskSpec,
        attempts: Callable[[], Awaitable[OutcomeT]],
        error_outcome: Callable[[Exception], OutcomeT],
    ) -> OutcomeT:
        done: list[OutcomeT] = []

        async def node(request: NodeCallRequest) -> Any:
            out = await attempts()
            done.append(out)
            if out.error is not None:
                raise out.error
            return out.raw

        request = NodeCallRequest(task.name, task.id, self.runtime())
        try:
            await wrap_node_call(self.services.node_wrappers, request, node)
        except Exception as error:
            if done and error is done[-1].error:
                return done[-1]
            return error_outcome(error)
        if not done:
            return error_outcome(_skipped(task.name))
        return done[-1]


def _skipped(node: str) -> Exception:
    return UsageError(
        f"a middleware's awrap_node_call returned without calling handler, so node {node!r} "
        f"did not run; to stop a node, raise"
    )
