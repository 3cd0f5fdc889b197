"""Context across the JavaScript boundary: callbacks that JavaScript calls run in the right context.

In Pyodide an asyncio task keeps its context across ``await <JS promise>``, but
a Python callable that *JavaScript* invokes (a timer, a listener, a JS-side
``promise.then``) runs in whatever context the thread has at that moment: the
top-level context, or the context of the Python code that made JavaScript
dispatch synchronously. What one such callback sets with ``ContextVar.set``
stays in that shared context and is seen by every later callback.

This package makes JavaScript callbacks behave like ``loop.call_soon`` and
``PyodideFuture.then``:

* :func:`bind_js`, :func:`then`, :func:`set_timeout`, :func:`set_interval`,
  :func:`queue_microtask` and :func:`request_animation_frame` capture the
  context at registration; every call runs in a fresh copy of it, so nothing a
  callback sets is seen by the next callback, by the top level or by other
  operations, and a callback may re-enter itself.
* :func:`add_event_listener` lets the caller choose: ``context="registration"``
  (the default), or ``context="dispatch"``: a copy of the context of the Python
  code that dispatched the event synchronously, or an empty
  :class:`contextvars.Context` when the event comes from the JavaScript event
  loop, never what an earlier callback left behind.
* :func:`contain` patches ``pyodide.ffi.create_proxy`` and
  ``create_once_callable`` so that third-party code gets the same behaviour;
  :func:`release` restores them.

A callback that returns a coroutine has it started as a task in the
callback's context; JavaScript calling a :func:`bind_js` callback receives a
``Promise`` of its result.

Promises. Pyodide 314 turns every JavaScript promise (every thenable) that
reaches Python into a :class:`pyodide.webloop.PyodideFuture`, so :func:`then`
takes any awaitable and returns a ``PyodideFuture`` for the derived promise.
A promise rejected with an ``Error`` reaches ``on_rejected`` as a
:class:`pyodide.ffi.JsException` carrying the error's message. A promise
rejected with a value that is not an ``Error`` never settles its
``PyodideFuture`` (Pyodide's ``set_exception`` fails with "invalid exception
object"); no Python code sees it.

Exceptions. An exception raised by a callback, or by the coroutine it
returned, is passed to the event loop's exception handler
(``loop.call_exception_handler``) while the callback's context is still
current. This holds for every ``BaseException``: ``KeyboardInterrupt``,
``SystemExit``, ``GraphInterrupt`` and ``asyncio.CancelledError`` are reported
like an ``Exception``, and none is re-raised into the event loop. Nothing
propagates into a JavaScript job, where Node would take it for an uncaught
exception and end the process: JavaScript calling a callback receives
``undefined``, and a ``Promise`` that JavaScript receives from an ``async``
callback rejects with an ``Error`` named after the exception and is marked
handled. The future returned by :func:`then` also fails with it, except that
a reaction raising ``asyncio.CancelledError`` (or whose coroutine is
cancelled) cancels that future, as a task that raises it is cancelled.

Results. A value that an ``async`` :func:`bind_js` callback returns and that
cannot be converted to JavaScript (an instance of a Python class, also inside
a list or a dict) reaches JavaScript as a borrowed ``PyProxy``: it is
destroyed once the reactions of the job that settles the promise have run
(``await`` sees it; ``proxy.copy()`` keeps one). A synchronous callback's
result follows Pyodide's rule for return values: JavaScript owns the proxy.

Proxies. No callback of this package owns a ``PyProxy``: one permanent proxy
of a dispatcher serves them all, and each JavaScript function handed out is a
small JavaScript closure over an integer key. The Python side (function,
arguments, captured context) stays in a table until the callback is used up:
a one-shot callback when it is called (a timer when it fires, a microtask or
animation frame when it runs, a promise reaction when the promise settles, a
``once`` listener when it is dispatched), any callback on ``cancel()``,
``remove()`` or ``destroy()``. A :func:`then` reaction is also freed when the
future :func:`then` returned is cancelled before the promise settles, or when
the awaitable's future is garbage-collected unsettled; a JavaScript promise
that never settles keeps its future for good (Pyodide holds it), so cancel
the returned future to free the reaction. Dropping that future frees
nothing: the reaction still runs when the promise settles, as in JavaScript.
:func:`live_callbacks` counts the table. A
captured context, and the stores it references, is freed as soon as no live
callback references it.

"Object has already been destroyed". Registering callbacks with
``queueMicrotask`` or a JavaScript-side ``.then`` from inside
``copy_context().run()`` can end a Node process with this error (or its
siblings "This borrowed proxy was automatically destroyed at the end of a
function call", "OnceProxy can only be called once" and "OnceProxy has already
been destroyed"). The context switch itself is harmless; the cause is that the
lifetime of the ``PyProxy`` handed to JavaScript no longer matches the
lifetime of the JavaScript job that holds it:

1. a ``create_proxy`` proxy destroyed when the ``run()`` scope ends, while the
   microtask or reaction that holds it has not run yet;
2. a raw Python object passed as an argument (``ctx.run(js.queueMicrotask, f)``,
   or a Python future given to JavaScript code that chains ``.then`` on it
   later): Pyodide makes it a *borrowed* proxy and destroys it as soon as the
   JavaScript function returns;
3. a ``create_once_callable`` called a second time (the same callable given to
   two ``.then``), destroyed early by its owner, or re-entered (a once
   listener that dispatches its own event: the inner call destroys it, then
   the outer call's own ``destroy`` throws).

JavaScript then calls a destroyed proxy inside a job. Pyodide throws a
JavaScript ``Error`` there; nothing catches it, and Node ends the process on an
uncaught exception (browsers only log it). The same happens when a callback
wraps one shared ``Context`` with ``ctx.run`` and is re-entered: "cannot enter
context: ... is already entered" escapes into the job. Nothing here can
trigger any of these: JavaScript only ever holds closures over a key and the
one permanent dispatcher proxy, each call runs in a fresh copy of its context,
and a call to a used-up callback is reported to the exception handler as a
:class:`~pyctx_web.errors.CallbackConsumedError`.

Under a Content-Security-Policy without ``'unsafe-eval'``, serve
:func:`js_module_source` as a same-origin module and register it before Python
uses this package: ``pyodide.registerJsModule("pyctx_web_js", await
import("/pyctx_web.mjs"))`` (``demo/serve.py`` and ``demo/worker.js`` do).
Otherwise the JavaScript is evaluated with ``pyodide.code.run_js``.

Outside Pyodide the package imports, :func:`live_callbacks` returns 0, and
every function that needs JavaScript raises
:class:`~pyctx_web.errors.JsUnavailableError`.
"""

from __future__ import annotations

from pyctx_web._js import JS_MODULE_NAME, module_source
from pyctx_web.jsbridge._api import (
    JsCallback,
    ListenerContext,
    Subscription,
    TimerHandle,
    add_event_listener,
    bind_js,
    queue_microtask,
    request_animation_frame,
    set_interval,
    set_timeout,
)
from pyctx_web.jsbridge._contain import contain, is_contained, release
from pyctx_web.jsbridge._core import live_callbacks
from pyctx_web.jsbridge._promise import then

__all__ = [
    "JS_MODULE_NAME",
    "JsCallback",
    "ListenerContext",
    "Subscription",
    "TimerHandle",
    "add_event_listener",
    "bind_js",
    "contain",
    "is_contained",
    "js_module_source",
    "live_callbacks",
    "queue_microtask",
    "release",
    "request_animation_frame",
    "set_interval",
    "set_timeout",
    "then",
]


def js_module_source() -> str:
    """An ES module of pyctx_web's JavaScript, to serve same-origin where ``eval`` is refused.

    It exports each of pyctx_web's scripts and ``loadPyctxWeb``; register it
    before Python asks for it (see this module's docstring).
    """
    return module_source()
