"""Whether a sync form (``invoke``, ``stream``...) runs the graph, and calls made outside the loop.

On CPython a sync form runs the graph on an event loop of its own, where
LangGraph's ``invoke`` runs none. So that a node function behaves there as in
LangGraph, the engine calls it with that loop hidden from it: a blocking call
(``time.sleep``, a lock) does not count as blocking a loop, and the node may
call sync APIs that run a loop of their own (``asyncio.run``, a subgraph's
``invoke``). The sync forms themselves hide a loop running in the calling
thread the same way, to run the graph on a loop of their own in that thread
(a sync ``invoke`` in a notebook, an async test, or a sync tool). In Pyodide
the browser's loop is never hidden.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from pyctx_web._env import IN_PYODIDE

__all__ = ["SYNC_FORM", "hides_loop", "without_loop"]

T = TypeVar("T")

SYNC_FORM: ContextVar[bool] = ContextVar("pyctx_web.graph.sync_form", default=False)
"""Set in the context of a run that a sync form started."""

# Since Python 3.14 the running task is kept per thread, not per loop: a loop run
# while another loop's task is being executed must see no task either. Before 3.12
# there is no way to swap it, nor a need to (tasks are kept per loop).
_swap_current_task: Callable[[Any, Any], Any] | None = getattr(
    asyncio.tasks, "_swap_current_task", None
)


def hides_loop() -> bool:
    """Whether node functions called here run with the graph's loop hidden (sync form, CPython)."""
    return not IN_PYODIDE and SYNC_FORM.get()


def without_loop(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` with the event loop running in this thread (if any) hidden.

    While ``fn`` runs, ``asyncio.get_running_loop()`` raises and no task is
    current; both are restored when it returns or raises.
    """
    loop = asyncio._get_running_loop()
    if loop is None:
        return fn(*args, **kwargs)
    task = _swap_current_task(loop, None) if _swap_current_task is not None else None
    asyncio._set_running_loop(None)
    try:
        return fn(*args, **kwargs)
    finally:
        asyncio._set_running_loop(loop)
        if task is not None:  # none is current in a loop's callback
            assert _swap_current_task is not None
            _swap_current_task(loop, task)
