"""The dispatcher: one permanent proxy, a table of callbacks, and the call in a context copy."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from contextvars import Context, copy_context
from typing import Any, Final, TypeAlias, final

from pyctx_web._env import IN_PYODIDE
from pyctx_web._homes import publish
from pyctx_web._js import load_js
from pyctx_web.context import is_coroutine
from pyctx_web.errors import ArgumentTypeError, CallbackConsumedError, JsUnavailableError

if IN_PYODIDE:
    import js
    from pyodide.ffi import create_proxy, destroy_proxies, to_js


SWALLOW: Final = 0
"""An exception is reported and JavaScript receives ``undefined`` (timers, listeners, bind_js)."""
RAISE: Final = 1
"""An exception is reported and re-raised to the caller (promise reactions)."""


@final
class Entry:
    """The Python side of one callback: what to call, with what, in which context.

    ``context`` is ``None`` for a listener that runs in the dispatch context.
    """

    __slots__ = ("args", "context", "errors", "fn", "once")

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        context: Context | None,
        *,
        once: bool,
        errors: int = SWALLOW,
    ) -> None:
        self.fn = fn
        self.args = args
        self.context = context
        self.once = once
        self.errors = errors

    @property
    def what(self) -> str:
        """What the callback is called in error reports: its function's name."""
        # Asked only when something is reported: a callback that is made costs no lookup.
        return getattr(self.fn, "__qualname__", None) or type(self.fn).__name__


entries: dict[int, Entry] = {}
_next_key = 1
_helpers: Any = None


def live_callbacks() -> int:
    """The number of callbacks handed to JavaScript and not yet used up, cancelled or destroyed."""
    return len(entries)


def require_pyodide(feature: str) -> None:
    """Raise :class:`JsUnavailableError` outside Pyodide."""
    if not IN_PYODIDE:
        raise JsUnavailableError(
            f"{feature} needs Pyodide (Python running on a JavaScript runtime); "
            f"this is {sys.implementation.name} on {sys.platform!r}"
        )


def check_callable(fn: object, api: str) -> None:
    if not callable(fn):
        raise ArgumentTypeError(f"{api}() argument must be callable, not {type(fn).__name__!r}")


def helpers() -> Any:
    """The JavaScript helpers, created on first use around the one permanent dispatcher proxy."""
    global _helpers
    if _helpers is None:
        _helpers = load_js("jsbridge")(create_proxy(dispatch))
    return _helpers


_starters: dict[str, Any] = {}


def timer_starter(name: str) -> Any:
    """The JavaScript helper ``name`` (``"setTimeout"``, ``"setInterval"``), looked up once:
    reading an attribute of a JavaScript object makes a new proxy every time."""
    starter = _starters.get(name)
    if starter is None:
        starter = _starters[name] = getattr(helpers(), name)
    return starter


def register(entry: Entry) -> int:
    """Store ``entry`` and return its key."""
    global _next_key
    key = _next_key
    _next_key += 1
    entries[key] = entry
    return key


def loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.get_event_loop()


def report(exc: BaseException, what: str) -> None:
    """Pass ``exc`` to the event loop's exception handler, in the current context."""
    loop().call_exception_handler(
        {"message": f"Exception in {what} called from JavaScript", "exception": exc}
    )


def dispatch(key: int, *js_args: Any) -> Any:
    """The one entry point JavaScript calls: run callback ``key`` in a fresh context copy."""
    entry = entries.get(key)
    if entry is None:
        error = CallbackConsumedError(
            f"JavaScript called callback #{key} after it was used up: it was registered "
            "with once=True and already called, or it was cancelled, removed or destroyed"
        )
        Context().run(report, error, "a used-up callback")
        return None
    if entry.once:
        del entries[key]
    captured = entry.context
    if captured is not None:
        context = captured.copy()
    elif sys._getframe().f_back is None:
        context = Context()  # called by the JavaScript event loop: the empty base context
    else:
        context = copy_context()  # dispatched synchronously by Python code below us
    return context.run(invoke, entry, js_args)


def invoke(entry: Entry, js_args: tuple[Any, ...]) -> Any:
    """Call the entry's function in the current context; report what it raises.

    Every exception is reported, ``BaseException`` included (``KeyboardInterrupt``,
    ``SystemExit``, ``asyncio.CancelledError``, ``GraphInterrupt``): none may
    propagate into a JavaScript job. A ``RAISE`` entry re-raises it to the
    Python caller (a promise reaction); JavaScript receives ``undefined``.
    """
    try:
        result = entry.fn(*entry.args, *js_args) if entry.args else entry.fn(*js_args)
    except BaseException as exc:
        report(exc, entry.what)
        if entry.errors == RAISE:
            raise
        return None
    if result is None:  # what most callbacks return: nothing more to check
        return None
    if is_coroutine(result):
        task = loop().create_task(_guarded(result, entry.what))
        return Started(task) if entry.errors == RAISE else _promise_of(task, entry.what)
    return result


CallbackOutcome: TypeAlias = tuple[BaseException | None, Any]
"""What a callback's coroutine ended with: ``(exception, None)`` or ``(None, result)``."""


@final
class Started:
    """What :func:`invoke` returns for a ``RAISE`` entry whose function returned a coroutine."""

    __slots__ = ("task",)

    def __init__(self, task: asyncio.Task[CallbackOutcome]) -> None:
        self.task = task


async def _guarded(coro: Coroutine[Any, Any, Any], what: str) -> CallbackOutcome:
    """Await ``coro``; report what it raises and return it as an outcome, never re-raised.

    A task must not end with ``KeyboardInterrupt`` or ``SystemExit``: asyncio
    re-raises them out of the event loop, here into a JavaScript job.
    """
    try:
        return None, await coro
    except GeneratorExit:  # the task is being closed: let it close
        raise
    except BaseException as exc:
        report(exc, what)
        return exc, None


def outcome(task: asyncio.Task[CallbackOutcome]) -> CallbackOutcome:
    """The outcome of a :func:`_guarded` task; a task cancelled before it started is cancelled."""
    if task.cancelled():
        return asyncio.CancelledError("the callback's task was cancelled"), None
    return task.result()


def _promise_of(task: asyncio.Task[CallbackOutcome], what: str) -> Any:
    """A deferred JavaScript promise settled by ``task`` (the ``make`` closure unwraps it)."""
    deferred = helpers().deferred()

    def settle(task: asyncio.Task[CallbackOutcome]) -> None:
        exc, value = outcome(task)
        if exc is None:
            _resolve(deferred, value, what)
        else:
            deferred.reject(helpers().error(type(exc).__name__, str(exc)))

    task.add_done_callback(settle)
    return deferred


def _resolve(deferred: Any, value: Any, what: str) -> None:
    """Resolve ``deferred`` with ``value`` converted; the proxies made for it are borrowed.

    What cannot be converted (an instance of a Python class, also inside a
    list or dict) reaches JavaScript as a ``PyProxy`` that JavaScript may use
    until the job that settles the promise has run its microtasks (the
    reactions of ``await``); it is destroyed then, so no live proxy is left
    behind. ``proxy.copy()`` inside the reaction keeps one, for JavaScript to
    destroy.
    """
    borrowed = js.Array.new()
    try:
        converted = to_js(value, dict_converter=js.Object.fromEntries, pyproxies=borrowed)
    except BaseException as exc:
        destroy_proxies(borrowed)
        report(exc, f"the conversion of the result of {what}")
        deferred.reject(helpers().error(type(exc).__name__, str(exc)))
        return
    deferred.resolve(converted, borrowed)


publish("pyctx_web.jsbridge", live_callbacks)
