"""What the graph's code sees of its run, and tokens delivered by timers.

:func:`observe` streams a record of the current run (its run id and thread id, as
LangGraph's runtime shows them to the calling code) to the inspector as a custom
chunk ``{"inspect": record}``. :func:`deliver` writes one token to the stream
from a timer callback (a JavaScript timer in Pyodide, bound with
``pyctx_web.jsbridge``; ``loop.call_later`` elsewhere); the callback checks that
it still sees the run that set the timer.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from langgraph.runtime import Runtime, get_runtime

__all__ = ["deliver", "observe"]

IN_PYODIDE = sys.platform == "emscripten"


def observe(kind: str, name: str) -> dict[str, Any]:
    """What the runtime shows the calling code, sent to the inspector and returned."""
    runtime: Runtime[Any] = get_runtime()
    run_id, thread_id = _ids(runtime)
    record = {"kind": kind, "name": name, "run_id": run_id, "thread_id": thread_id}
    runtime.stream_writer({"inspect": record})
    return record


def _ids(runtime: Runtime[Any]) -> tuple[str | None, str | None]:
    info = runtime.execution_info
    if info is None:
        return None, None
    run_id = None if info.run_id is None else str(info.run_id)
    return run_id, info.thread_id


async def deliver(token: str, delay_ms: float, seen: list[dict[str, Any]]) -> None:
    """Write ``token`` to the stream from a timer callback, and wait until it is written.

    Without a delay, only the first token goes through a timer (the one the inspector
    shows): the others are written at once, since a browser makes each timer after the
    fifth nested one wait at least 4 ms, which would cap a fast model's stream.
    """
    if delay_ms <= 0 and seen:
        get_runtime().stream_writer({"token": token})
        return
    loop = asyncio.get_running_loop()
    written: asyncio.Future[None] = loop.create_future()

    def fire() -> None:
        # Runs when the timer fires, in the context captured when it was set: the
        # run's context is this run's, whatever ran in between.
        record = observe("timer", "token") if not seen else None
        runtime: Runtime[Any] = get_runtime()
        run_id, thread_id = _ids(runtime)
        if seen and (thread_id != seen[0]["thread_id"] or run_id != seen[0]["run_id"]):
            record = observe("timer", "token (crossed)")
        if record is not None:
            seen.append(record)
        runtime.stream_writer({"token": token})
        if not written.done():
            written.set_result(None)

    if IN_PYODIDE:
        from pyctx_web.jsbridge import set_timeout

        handle = set_timeout(fire, delay_ms)
        cancel = handle.cancel
    else:
        timer = loop.call_later(delay_ms / 1000, fire)
        cancel = timer.cancel
    try:
        await written
    finally:
        cancel()
