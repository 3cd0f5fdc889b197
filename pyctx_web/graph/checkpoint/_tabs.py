"""One run per thread across the tabs and workers of an origin, and news of thread changes.

Used by :class:`~pyctx_web.graph.checkpoint.indexeddb.IndexedDBSaver`, whose
database every tab of the origin shares:

* a run holds the Web Lock :func:`lock_name` of its thread while it runs
  (``navigator.locks``; where there is none, as in Node, nothing is held);
* every change of a thread, and the end of a run, is posted on the
  ``BroadcastChannel`` :func:`channel_name` as ``{"database", "thread_id",
  "event": "checkpoint" | "released", "checkpoint_id"}``, so that other tabs can
  refresh what they show.

The news is a hint: any script of the origin can post on the channel. A reader
confirms it with storage (it reads the thread again) or with the lock (a thread
is free once the reader itself is granted its lock), and refreshes once for a
burst of news rather than once per message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from pyctx_web._js import load_js
from pyctx_web.graph.errors import ThreadBusyError

__all__ = ["announce", "channel_name", "hold", "lock_name"]

_helpers: Any = None


def _js() -> Any:
    global _helpers
    if _helpers is None:
        _helpers = load_js("tabs")
    return _helpers


def lock_name(database: str, thread_id: str) -> str:
    """The Web Lock a run of ``thread_id`` in IndexedDB database ``database`` holds."""
    return f"pyctx_web:{database}:{thread_id}"


def channel_name(database: str) -> str:
    """The ``BroadcastChannel`` on which changes of ``database``'s threads are posted."""
    return f"pyctx_web:{database}"


def announce(database: str, thread_id: str, event: str, checkpoint_id: str | None = None) -> None:
    """Tell other tabs that ``thread_id`` changed (``"checkpoint"``) or is free (``"released"``)."""
    message = {
        "database": database,
        "thread_id": thread_id,
        "event": event,
        "checkpoint_id": checkpoint_id,
    }
    _js().announce(channel_name(database), json.dumps(message))


@asynccontextmanager
async def hold(database: str, thread_id: str, *, wait: bool) -> AsyncIterator[None]:
    """Hold ``thread_id``'s Web Lock while the block runs; announce its release.

    :class:`ThreadBusyError` at once when another tab or worker holds it, unless
    ``wait``, which waits in line for it.
    """
    held = await _js().hold(lock_name(database, thread_id), wait)
    if not held.granted:
        reason = "a run in another tab or worker is running it"
        if getattr(held, "error", None):
            reason = f"its lock could not be taken ({held.error})"
        raise ThreadBusyError(thread_id, reason)
    try:
        yield
    finally:
        held.release()
        announce(database, thread_id, "released")
