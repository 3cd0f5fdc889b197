"""then(): promise reactions in their registration context, released when they cannot run.

A reaction's entry stays in the table until the promise settles and the
reaction runs. It is released sooner when the future that :func:`then`
returned is cancelled (or settled by its owner), and when the promise's own
future is garbage-collected: nothing can settle it any more. Dropping the
returned future alone releases nothing, as in JavaScript, where
``promise.then(f)`` runs ``f`` whether or not the derived promise is kept.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from contextvars import Context, copy_context
from functools import partial
from typing import Any, final

from pyctx_web._homes import publish
from pyctx_web.jsbridge._core import (
    RAISE,
    Entry,
    Started,
    check_callable,
    dispatch,
    entries,
    loop,
    outcome,
    register,
    require_pyodide,
)

__all__ = ["then"]

_BASE = Context()
"""The context of the internal done callbacks: they run no user code themselves."""


def then(
    promise: Awaitable[Any],
    on_fulfilled: Callable[[Any], Any] | None = None,
    on_rejected: Callable[[BaseException], Any] | None = None,
) -> asyncio.Future[Any]:
    """Attach reactions to a promise, like JavaScript's ``promise.then``; return the derived future.

    ``promise`` is any awaitable: a JavaScript promise as Pyodide hands it to
    Python (a ``PyodideFuture``), a future, a task or a coroutine. The reaction
    runs in a fresh copy of the context current now, whenever the promise
    settles. The returned future (a ``PyodideFuture``, which JavaScript sees as
    a thenable) resolves to what the reaction returns, awaiting a returned
    coroutine, and fails with what it raises, ``BaseException`` included; a
    reaction that raises ``asyncio.CancelledError`` cancels it. What the
    reaction raises is also reported to the loop's exception handler, so the
    future may be dropped. ``on_rejected`` receives the exception: a
    :class:`pyodide.ffi.JsException` carrying the message of a JavaScript
    ``Error``. A missing reaction passes the value or the exception through
    (a cancelled promise cancels the future).

    The reaction is released, and never runs, when the returned future is
    cancelled before the promise settles, or when the awaitable's future is
    garbage-collected unsettled. The promise itself is never cancelled. A
    JavaScript promise that never settles keeps its ``PyodideFuture`` alive
    for good (Pyodide holds it for the promise's reactions): cancel the
    returned future to release the reaction. Dropping the returned future
    keeps the reaction, as JavaScript's ``promise.then(f)`` does.
    """
    require_pyodide("then()")
    for reaction in (on_fulfilled, on_rejected):
        if reaction is not None:
            check_callable(reaction, "then")
    source = asyncio.ensure_future(promise)
    derived: asyncio.Future[Any] = loop().create_future()
    entry = Entry(_reaction(on_fulfilled, on_rejected), (), copy_context(), once=True, errors=RAISE)
    link = _Link(register(entry), source, derived, on_fulfilled, on_rejected)
    source.add_done_callback(link, context=_BASE)
    derived.add_done_callback(link.derived_done, context=_BASE)
    return derived


def _reaction(
    on_fulfilled: Callable[[Any], Any] | None, on_rejected: Callable[[BaseException], Any] | None
) -> Callable[[bool, Any], Any]:
    def reaction(rejected: bool, value: Any) -> Any:
        if rejected:
            return on_rejected(value)  # type: ignore[misc]
        return on_fulfilled(value)  # type: ignore[misc]

    named = on_fulfilled if on_fulfilled is not None else on_rejected
    reaction.__qualname__ = getattr(named, "__qualname__", "reaction")
    return reaction


@final
class _Link:
    """The source's done callback: run the reaction and settle the derived future.

    It holds the source weakly, and a finalizer on it releases the reaction
    when the source is collected unsettled.
    """

    __slots__ = ("derived", "fulfils", "key", "rejects", "source", "watch")

    def __init__(
        self,
        key: int,
        source: asyncio.Future[Any],
        derived: asyncio.Future[Any],
        on_fulfilled: object,
        on_rejected: object,
    ) -> None:
        self.key = key
        self.source = weakref.ref(source)
        self.derived = derived
        self.fulfils = on_fulfilled is not None
        self.rejects = on_rejected is not None
        self.watch = weakref.finalize(source, entries.pop, key, None)
        self.watch.atexit = False

    def derived_done(self, derived: asyncio.Future[Any]) -> None:
        """Release a reaction whose derived future was cancelled; mark a failure retrieved.

        A failure was reported to the exception handler already, so a dropped
        future never logs "exception was never retrieved".
        """
        if entries.pop(self.key, None) is not None:  # done before the source settled
            self.watch.detach()
            source = self.source()
            if source is not None:
                source.remove_done_callback(self)
        if not derived.cancelled():
            derived.exception()

    def __call__(self, source: asyncio.Future[Any]) -> None:
        self.watch.detach()
        derived = self.derived
        if derived.done():  # cancelled by its owner: derived_done releases the entry
            entries.pop(self.key, None)
            return
        rejected, value = _state_of(source)
        if not (self.rejects if rejected else self.fulfils):
            entries.pop(self.key, None)
            _settle(derived, value if rejected else None, value)
            return
        try:
            result = dispatch(self.key, rejected, value)
        except BaseException as exc:  # already reported by invoke()
            _settle(derived, exc, None)
            return
        if isinstance(result, Started):
            result.task.add_done_callback(partial(_adopt_outcome, derived), context=_BASE)
        elif isinstance(result, asyncio.Task):
            result.add_done_callback(partial(_adopt_task, derived), context=_BASE)
        else:
            derived.set_result(result)


def _state_of(source: asyncio.Future[Any]) -> tuple[bool, Any]:
    """``(rejected, value or exception)`` of a settled source."""
    if source.cancelled():
        return True, asyncio.CancelledError("the promise was cancelled")
    exc = source.exception()
    return (True, exc) if exc is not None else (False, source.result())


def _settle(derived: asyncio.Future[Any], exc: BaseException | None, value: Any) -> None:
    """Settle ``derived`` unless it is done: a ``CancelledError`` cancels it."""
    if derived.done():
        return
    if exc is None:
        derived.set_result(value)
    elif isinstance(exc, asyncio.CancelledError):
        derived.cancel()
    else:
        derived.set_exception(exc)


def _adopt_outcome(derived: asyncio.Future[Any], task: asyncio.Task[Any]) -> None:
    exc, value = outcome(task)
    _settle(derived, exc, value)


def _adopt_task(derived: asyncio.Future[Any], task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        _settle(derived, asyncio.CancelledError(), None)
    else:
        exc = task.exception()
        _settle(derived, exc, None if exc is not None else task.result())


publish("pyctx_web.jsbridge", then)
