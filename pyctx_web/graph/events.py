"""Run events and their listeners: ``CompiledGraph.on(event, listener)``.

Built-in events: ``run:start``, ``run:end``, ``node:start``, ``node:end``,
``tool:start``, ``tool:end``, ``interrupt`` and ``token``; any other name is a
custom event sent with ``ctx.emit(name, payload)``. ``"*"`` listens to all.

Listeners are called synchronously, in registration order, in the context of
the code that emitted the event (so ``get_run_context()`` works inside them). A
listener that returns a coroutine has it started as a task. A listener that
raises does not stop the run: the error goes to the event loop's exception
handler, with the event.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = ["BUILTIN_EVENTS", "EventBus", "Listener", "RunEvent"]

BUILTIN_EVENTS: Final = frozenset(
    {
        "run:start",
        "run:end",
        "node:start",
        "node:end",
        "tool:start",
        "tool:end",
        "interrupt",
        "token",
    }
)


@dataclass(frozen=True, slots=True)
class RunEvent:
    """Something that happened in a run, as listeners receive it."""

    name: str
    """The event name: a built-in one or a custom one."""
    payload: Any
    """What the emitter attached (a dict for the built-in events)."""
    graph_id: str
    """The graph the run belongs to."""
    run_id: str
    """The run that emitted it."""
    thread_id: str | None
    """The thread of the run."""
    node: str | None = None
    """The node that was running when it was emitted, if any."""
    at: float = field(default_factory=time.time)
    """Seconds since the epoch when it was emitted."""


Listener = Callable[[RunEvent], Any]
"""A function called with each event; it may return a coroutine."""


class EventBus:
    """The listeners of one compiled graph, by event name."""

    __slots__ = ("_listeners", "_tasks")

    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}
        # Tasks of async listeners, kept until done so they are not collected early.
        self._tasks: set[asyncio.Task[Any]] = set()

    def on(self, event: str, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` for every ``event`` (``"*"``: every event); return an unsubscribe."""
        if not isinstance(event, str) or not event:
            raise ArgumentValueError(f"event must be a non-empty str, not {event!r}")
        if not callable(listener):
            raise ArgumentTypeError(f"listener must be callable, not {type(listener).__name__!r}")
        self._listeners.setdefault(event, []).append(listener)

        def unsubscribe() -> None:
            listeners = self._listeners.get(event)
            if listeners is not None and listener in listeners:
                listeners.remove(listener)
                if not listeners:
                    del self._listeners[event]

        return unsubscribe

    def has_listeners(self, name: str) -> bool:
        """Whether any listener would receive an event called ``name``."""
        return name in self._listeners or "*" in self._listeners

    def emit(self, event: RunEvent) -> None:
        """Deliver ``event`` to its listeners, then to the ``"*"`` listeners."""
        targets = [*self._listeners.get(event.name, ()), *self._listeners.get("*", ())]
        for listener in targets:
            try:
                result = listener(event)
                if asyncio.iscoroutine(result):
                    task = asyncio.get_running_loop().create_task(result)
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            except Exception as error:
                _report(error, event, listener)


def _report(error: Exception, event: RunEvent, listener: Listener) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise error from None
    loop.call_exception_handler(
        {
            "message": f"listener {listener!r} of {event.name!r} raised",
            "exception": error,
            "event": event,
        }
    )
