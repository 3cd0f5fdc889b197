"""How a caller waits for a run of a compiled graph: to its end, or chunk by chunk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Coroutine
from contextvars import copy_context
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.frames import Run, current_run
from pyctx_web.graph._engine.options import DONE

if TYPE_CHECKING:
    from pyctx_web.graph._engine.outcome import EngineResult
    from pyctx_web.graph._runctx.lifecycle import ActiveRuns, Admission

__all__ = ["chunks_of", "outcome_of"]


def _awaited_below(task: asyncio.Task[None]) -> None:
    """A run's producer task is awaited by its consumer: nothing to do when it ends."""


async def outcome_of(
    active: ActiveRuns, control: Admission, run: Run, body: Coroutine[Any, Any, EngineResult]
) -> EngineResult:
    """Run ``body`` when its thread's turn comes, holding the thread; its outcome."""
    try:
        await active.turn(control)
        async with control.hold:
            return await current_run.run(run, lambda: body)
    finally:
        body.close()  # never started when the wait for its turn was cancelled
        active.remove(control)


async def chunks_of(
    active: ActiveRuns,
    run: Run,
    control: Admission,
    body: Coroutine[Any, Any, EngineResult],
    queue: asyncio.Queue[tuple[str, Any]],
) -> AsyncGenerator[tuple[str, Any], None]:
    """Run ``body`` in a task of its own and yield its chunks as they come."""

    async def produce() -> None:
        try:
            await active.turn(control)
            async with control.hold:
                await body
        finally:
            body.close()  # never started when the wait for its turn was cancelled
            active.remove(control)
            queue.put_nowait((DONE, None))

    context = copy_context()
    context.run(current_run.enter_with, run)
    producer = asyncio.create_task(produce(), context=context)
    # The producer's error is raised below by `await producer`, once it has finished: a
    # loop that calls a task ending with no one waiting on it unhandled (Pyodide's prints
    # "Unhandled exception in event loop") is told that it is waited on.
    producer.add_done_callback(_awaited_below)
    control.task = producer
    try:
        while (item := await queue.get())[0] != DONE:
            yield item
            queue.task_done()  # the run's next step waits for this
        await producer
    finally:
        if not producer.done():
            producer.cancel()
            # Waiting lets the run's finally blocks finish before we return.
            await asyncio.wait([producer])
        if not producer.cancelled():
            # Mark the run's own error as retrieved; it was raised above, or
            # the consumer stopped early and chose not to see it.
            producer.exception()
