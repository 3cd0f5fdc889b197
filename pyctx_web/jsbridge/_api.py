"""The public API: bound callbacks, timers, microtasks, frames, listeners (``then`` is apart)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import Context, copy_context
from types import TracebackType
from typing import Any, Literal, final

from pyctx_web._env import IN_BROWSER, IN_PYODIDE
from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentValueError, JsUnavailableError
from pyctx_web.jsbridge._core import (
    Entry,
    check_callable,
    entries,
    helpers,
    register,
    require_pyodide,
    timer_starter,
)

if IN_PYODIDE:
    import js

__all__ = [
    "JsCallback",
    "ListenerContext",
    "Subscription",
    "TimerHandle",
    "add_event_listener",
    "bind_js",
    "queue_microtask",
    "request_animation_frame",
    "set_interval",
    "set_timeout",
]

ListenerContext = Literal["registration", "dispatch"]
"""Where a listener's context comes from: its registration, or the code that dispatches."""


@final
class JsCallback:
    """A Python callable bound to its registration context, for JavaScript to call.

    :attr:`proxy` is the JavaScript function to hand over. Each call runs the
    function in a fresh copy of the context captured by :func:`bind_js`.
    :meth:`destroy` (or leaving the ``with`` block) frees the Python side; a
    ``once`` callback frees itself when called. JavaScript calling it after
    that gets ``undefined`` and the loop's exception handler a
    :class:`~pyctx_web.errors.CallbackConsumedError`.
    """

    __slots__ = ("_key", "once", "proxy")

    proxy: Any
    """The JavaScript function that calls the bound callable."""
    once: bool
    """Whether the callback frees itself after its first call."""

    def __init__(self, key: int, proxy: Any, once: bool) -> None:
        self._key = key
        self.proxy = proxy
        self.once = once

    @property
    def alive(self) -> bool:
        """Whether JavaScript can still call the callback."""
        return self._key in entries

    def destroy(self) -> None:
        """Free the Python side (function, context); later calls from JavaScript are reported."""
        entries.pop(self._key, None)

    def __enter__(self) -> JsCallback:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.destroy()

    def __repr__(self) -> str:
        state = "alive" if self.alive else "used up"
        return f"<JsCallback #{self._key} once={self.once} {state}>"


@final
class TimerHandle:
    """A scheduled timer or animation frame; :meth:`cancel` stops it and frees its callback."""

    __slots__ = ("_clear", "_handle", "_key")

    def __init__(self, key: int, handle: Any, clear: str) -> None:
        self._key = key
        self._handle = handle
        self._clear = clear

    @property
    def active(self) -> bool:
        """Whether the callback may still run (not yet fired, for a one-shot; not cancelled)."""
        return self._key in entries

    def cancel(self) -> None:
        """Stop the timer; idempotent, and harmless after it fired."""
        if entries.pop(self._key, None) is not None:
            getattr(helpers(), self._clear)(self._handle)

    def __repr__(self) -> str:
        return f"<TimerHandle #{self._key} {'active' if self.active else 'done'}>"


@final
class Subscription:
    """A listener added by :func:`add_event_listener`; :meth:`remove` detaches and frees it."""

    __slots__ = ("_key", "_listener", "_target", "_type")

    def __init__(self, key: int, target: Any, type: str, listener: Any) -> None:
        self._key = key
        self._target = target
        self._type = type
        self._listener = listener

    @property
    def active(self) -> bool:
        """Whether the listener is still attached (a ``once`` listener detaches when dispatched)."""
        return self._key in entries

    def remove(self) -> None:
        """Detach the listener and free its callback; idempotent."""
        entries.pop(self._key, None)
        if self._listener is not None:
            helpers().unlisten(self._target, self._type, self._listener)
            self._listener = self._target = None

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.remove()

    def __repr__(self) -> str:
        return (
            f"<Subscription #{self._key} {self._type!r} {'active' if self.active else 'removed'}>"
        )


def bind_js(fn: Callable[..., Any], *, once: bool = False) -> JsCallback:
    """Bind ``fn`` to the current context and return a :class:`JsCallback` for JavaScript.

    Each call from JavaScript runs ``fn(*js_args)`` in a fresh copy of the
    context captured now and returns its result to JavaScript. An ``async``
    ``fn`` is started as a task in that copy and JavaScript receives a
    ``Promise`` of its result; a result that cannot be converted to a
    JavaScript value (an instance of a Python class, also inside a list or a
    dict) arrives as a borrowed ``PyProxy``, destroyed once the reactions of
    the job that settles the promise have run (``proxy.copy()`` keeps one).
    An exception, any ``BaseException`` included, goes to the loop's
    exception handler: JavaScript receives ``undefined``, or a ``Promise``
    rejected with an ``Error`` named after it (and marked handled). With
    ``once=True`` the callback frees itself after its first call.
    """
    require_pyodide("bind_js()")
    check_callable(fn, "bind_js")
    entry = Entry(fn, (), copy_context(), once=once)
    key = register(entry)
    return JsCallback(key, helpers().make(key), once)


def _timer(
    api: str, fn: Callable[..., Any], delay_ms: float, args: tuple[Any, ...], *, once: bool
) -> TimerHandle:
    if not IN_PYODIDE:
        require_pyodide(f"{api}()")
    check_callable(fn, api)
    key = register(Entry(fn, args, copy_context(), once=once))
    if once:
        return TimerHandle(key, timer_starter("setTimeout")(key, delay_ms), "clearTimeout")
    return TimerHandle(key, timer_starter("setInterval")(key, delay_ms), "clearInterval")


def set_timeout(fn: Callable[..., Any], delay_ms: float = 0, /, *args: Any) -> TimerHandle:
    """Call ``fn(*args)`` once after ``delay_ms`` (JavaScript ``setTimeout``), in this context.

    The callback runs in a fresh copy of the context captured now; its
    callback is freed when it fires or on :meth:`TimerHandle.cancel`.
    """
    return _timer("set_timeout", fn, delay_ms, args, once=True)


def set_interval(fn: Callable[..., Any], delay_ms: float = 0, /, *args: Any) -> TimerHandle:
    """Call ``fn(*args)`` every ``delay_ms`` (JavaScript ``setInterval``) until cancelled.

    Each call runs in a fresh copy of the context captured now, so one call
    never sees what an earlier one set. The callback is freed on
    :meth:`TimerHandle.cancel`.
    """
    return _timer("set_interval", fn, delay_ms, args, once=False)


def queue_microtask(fn: Callable[[], Any], /) -> None:
    """Run ``fn()`` in a JavaScript microtask, in a fresh copy of the current context."""
    require_pyodide("queue_microtask()")
    check_callable(fn, "queue_microtask")
    key = register(Entry(fn, (), copy_context(), once=True))
    helpers().queueMicrotask(key)


def request_animation_frame(fn: Callable[[float], Any], /) -> TimerHandle:
    """Call ``fn(timestamp)`` before the next repaint, in a fresh copy of the current context.

    Browsers only: in Node (and on CPython) this raises
    :class:`~pyctx_web.errors.JsUnavailableError`.
    """
    require_pyodide("request_animation_frame()")
    if not IN_BROWSER or not hasattr(js, "requestAnimationFrame"):
        raise JsUnavailableError(
            "request_animation_frame() needs a browser: this JavaScript runtime has no "
            "requestAnimationFrame (Node); use set_timeout() instead"
        )
    check_callable(fn, "request_animation_frame")
    key = register(Entry(fn, (), copy_context(), once=True))
    return TimerHandle(key, helpers().requestAnimationFrame(key), "cancelAnimationFrame")


def add_event_listener(
    target: Any,
    type: str,
    fn: Callable[[Any], Any],
    *,
    once: bool = False,
    context: ListenerContext = "registration",
) -> Subscription:
    """Add ``fn`` as a listener for ``type`` events on the JavaScript ``target``.

    With ``context="registration"`` every call runs in a fresh copy of the
    context current now; with ``context="dispatch"``, in a copy of the context
    of the Python code that dispatches the event, or in an empty context when
    the event comes from the JavaScript event loop. Nothing the listener sets
    leaks out. ``once=True`` detaches after the first event.
    """
    require_pyodide("add_event_listener()")
    check_callable(fn, "add_event_listener")
    if context == "registration":
        captured: Context | None = copy_context()
    elif context == "dispatch":
        captured = None
    else:
        raise ArgumentValueError(f"context must be 'registration' or 'dispatch', not {context!r}")
    entry = Entry(fn, (), captured, once=once)
    key = register(entry)
    try:
        listener = helpers().listen(target, type, key, once)
    except BaseException:
        entries.pop(key, None)
        raise
    return Subscription(key, target, type, listener)


publish(
    "pyctx_web.jsbridge",
    JsCallback,
    Subscription,
    TimerHandle,
    add_event_listener,
    bind_js,
    queue_microtask,
    request_animation_frame,
    set_interval,
    set_timeout,
)
