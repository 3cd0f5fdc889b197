"""The measured facts of the JavaScript boundary: raw Pyodide (the problem) and through jsbridge.

Each ``test_raw_*`` asserts what raw Pyodide 314 does; the matching
``test_bridge_*`` asserts what pyctx_web.jsbridge does instead. Every test uses
its own ``ContextVar``, so what a raw callback leaks stays in that variable.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide


@pytest.fixture
def selenium_pyctx(pyctx_module: Any) -> Any:
    """The module's Pyodide under a name run_in_pyodide accepts as its first argument."""
    return pyctx_module


# --- a timer registered inside a task -------------------------------------------------------


@run_in_pyodide
async def test_raw_timer_callback_sees_the_default_not_the_task_value(selenium_pyctx: Any) -> None:
    """setTimeout(create_once_callable(cb)) set up in a task runs cb with the default value."""
    import asyncio
    import contextvars

    import js

    from pyodide.ffi import create_once_callable

    var = contextvars.ContextVar("raw_timer", default="default")
    seen = asyncio.get_running_loop().create_future()

    async def task() -> None:
        var.set("task")
        js.setTimeout(create_once_callable(lambda: seen.set_result(var.get())), 0)

    await asyncio.create_task(task())
    assert await seen == "default"


@run_in_pyodide
async def test_bridge_timer_callback_sees_the_task_value(selenium_pyctx: Any) -> None:
    """set_timeout registered in a task runs the callback with the task's value."""
    import asyncio
    import contextvars

    from pyctx_web.jsbridge import set_timeout

    var = contextvars.ContextVar("bridge_timer", default="default")
    seen = asyncio.get_running_loop().create_future()

    async def task() -> None:
        var.set("task")
        set_timeout(lambda: seen.set_result(var.get()), 0)

    await asyncio.create_task(task())
    assert await seen == "task"


# --- a value set inside a callback ----------------------------------------------------------


@run_in_pyodide
async def test_raw_value_set_in_a_callback_leaks_into_later_callbacks_and_tasks(
    selenium_pyctx: Any,
) -> None:
    """A ContextVar set in one raw JS-invoked callback is seen by the next one and its tasks."""
    import asyncio
    import contextvars

    import js

    from pyodide.ffi import create_once_callable

    var = contextvars.ContextVar("raw_leak", default="default")
    loop = asyncio.get_running_loop()
    first, second, in_task = loop.create_future(), loop.create_future(), loop.create_future()
    tasks: list[Any] = []

    async def task_body() -> None:
        in_task.set_result(var.get())

    def setter() -> None:
        var.set("leaked")
        first.set_result(None)

    def reader() -> None:
        second.set_result(var.get())
        tasks.append(asyncio.ensure_future(task_body()))

    js.setTimeout(create_once_callable(setter), 0)
    await first
    js.setTimeout(create_once_callable(reader), 0)
    assert await second == "leaked"
    assert await in_task == "leaked"


@run_in_pyodide
async def test_bridge_value_set_in_a_callback_leaks_nowhere(selenium_pyctx: Any) -> None:
    """A value set in one bridged callback is not seen by the next, its tasks or the top level."""
    import asyncio
    import contextvars

    from pyctx_web.jsbridge import queue_microtask, set_timeout

    var = contextvars.ContextVar("bridge_leak", default="default")
    loop = asyncio.get_running_loop()
    first, second, in_task, micro = (loop.create_future() for _ in range(4))
    tasks: list[Any] = []

    async def task_body() -> None:
        in_task.set_result(var.get())

    def setter() -> None:
        var.set("leaked")
        first.set_result(None)

    def reader() -> None:
        second.set_result(var.get())
        tasks.append(asyncio.ensure_future(task_body()))

    set_timeout(setter, 0)
    await first
    set_timeout(reader, 0)
    queue_microtask(lambda: micro.set_result(var.get()))
    assert await second == "default"
    assert await in_task == "default"
    assert await micro == "default"
    assert var.get() == "default"


# --- listeners and JS-side promise reactions ------------------------------------------------


@run_in_pyodide
async def test_raw_listener_and_js_then_run_in_the_ambient_context(selenium_pyctx: Any) -> None:
    """addEventListener(create_proxy(cb)) and JS-side .then(proxy) ignore the registration."""
    import asyncio
    import contextvars

    from pyodide.code import run_js as _run_js

    events = _run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )

    from pyodide.code import run_js
    from pyodide.ffi import create_proxy

    var = contextvars.ContextVar("raw_ambient", default="default")
    loop = asyncio.get_running_loop()
    on_event, on_then = loop.create_future(), loop.create_future()
    target = events.EventTarget.new()
    listener = create_proxy(lambda event: on_event.set_result(var.get()))
    reaction = create_proxy(lambda value: on_then.set_result(var.get()))

    def register() -> None:
        var.set("registration")
        target.addEventListener("ping", listener)
        run_js("(f) => { Promise.resolve(1).then(f); }")(reaction)

    contextvars.copy_context().run(register)
    run_js("(t, E) => setTimeout(() => t.dispatchEvent(new E('ping')), 0)")(target, events.Event)
    try:
        assert await on_event == "default"
        assert await on_then == "default"
    finally:
        target.removeEventListener("ping", listener)
        listener.destroy()
        reaction.destroy()


@run_in_pyodide
async def test_raw_pyodide_future_then_and_call_soon_keep_the_registration_context(
    selenium_pyctx: Any,
) -> None:
    """PyodideFuture.then, loop.call_soon and loop.call_later use the registration context."""
    import asyncio
    import contextvars

    import js

    var = contextvars.ContextVar("raw_loop", default="default")
    loop = asyncio.get_running_loop()
    results: list[Any] = []

    def register() -> Any:
        var.set("registration")
        loop.call_soon(lambda: results.append(("soon", var.get())))
        loop.call_later(0.001, lambda: results.append(("later", var.get())))
        return js.Promise.resolve(1).then(lambda value: results.append(("then", var.get())))

    await contextvars.copy_context().run(register)
    await asyncio.sleep(0.01)
    assert sorted(results) == [
        ("later", "registration"),
        ("soon", "registration"),
        ("then", "registration"),
    ]


@run_in_pyodide
async def test_bridge_listener_and_js_then_run_in_the_registration_context(
    selenium_pyctx: Any,
) -> None:
    """add_event_listener and a bind_js proxy given to JS .then run in the registration context."""
    import asyncio
    import contextvars

    from pyodide.code import run_js as _run_js

    events = _run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )

    from pyctx_web.jsbridge import add_event_listener, bind_js
    from pyodide.code import run_js

    var = contextvars.ContextVar("bridge_registration", default="default")
    loop = asyncio.get_running_loop()
    on_event, on_then = loop.create_future(), loop.create_future()
    target = events.EventTarget.new()

    def register() -> Any:
        var.set("registration")
        subscription = add_event_listener(target, "ping", lambda e: on_event.set_result(var.get()))
        reaction = bind_js(lambda value: on_then.set_result(var.get()), once=True)
        run_js("(f) => { Promise.resolve(1).then(f); }")(reaction.proxy)
        return subscription

    subscription = contextvars.copy_context().run(register)
    run_js("(t, E) => setTimeout(() => t.dispatchEvent(new E('ping')), 0)")(target, events.Event)
    assert await on_event == "registration"
    assert await on_then == "registration"
    subscription.remove()


# --- synchronous dispatch -------------------------------------------------------------------


@run_in_pyodide
def test_raw_sync_dispatch_runs_listeners_in_the_dispatcher_context(selenium_pyctx: Any) -> None:
    """A synchronous dispatchEvent runs a raw listener in the dispatcher's context; sets leak."""
    import contextvars

    from pyodide.code import run_js as _run_js

    events = _run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )

    from pyodide.ffi import create_proxy

    var = contextvars.ContextVar("raw_dispatch", default="default")
    target = events.EventTarget.new()
    seen: list[str] = []

    def listener(event: Any) -> None:
        seen.append(var.get())
        var.set("set by listener")

    proxy = create_proxy(listener)
    contextvars.copy_context().run(
        lambda: (var.set("registration"), target.addEventListener("x", proxy))
    )

    def dispatcher() -> str:
        var.set("dispatcher")
        target.dispatchEvent(events.Event.new("x"))
        return var.get()

    after = contextvars.copy_context().run(dispatcher)
    target.removeEventListener("x", proxy)
    proxy.destroy()
    assert seen == ["dispatcher"]
    assert after == "set by listener"


@run_in_pyodide
def test_bridge_sync_dispatch_uses_the_chosen_context_and_leaks_nothing(
    selenium_pyctx: Any,
) -> None:
    """Dispatched synchronously, each listener sees its chosen context and neither leaks."""
    import contextvars

    from pyodide.code import run_js as _run_js

    events = _run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )

    from pyctx_web.jsbridge import add_event_listener

    var = contextvars.ContextVar("bridge_dispatch", default="default")
    target = events.EventTarget.new()
    seen: list[tuple[str, str]] = []

    def listener(mode: str) -> Any:
        def on_event(event: Any) -> None:
            seen.append((mode, var.get()))
            var.set("set by listener")

        return on_event

    def register() -> list[Any]:
        var.set("registration")
        return [
            add_event_listener(target, "x", listener("registration")),
            add_event_listener(target, "x", listener("dispatch"), context="dispatch"),
        ]

    subscriptions = contextvars.copy_context().run(register)

    def dispatcher() -> str:
        var.set("dispatcher")
        target.dispatchEvent(events.Event.new("x"))
        return var.get()

    after = contextvars.copy_context().run(dispatcher)
    for subscription in subscriptions:
        subscription.remove()
    assert seen == [("registration", "registration"), ("dispatch", "dispatcher")]
    assert after == "dispatcher"


# --- contexts and tokens --------------------------------------------------------------------


@run_in_pyodide
def test_raw_context_entered_twice_and_token_reset_elsewhere_fail(selenium_pyctx: Any) -> None:
    """Entering a Context twice raises RuntimeError; a Token reset elsewhere raises ValueError."""
    import contextvars

    import pytest

    var = contextvars.ContextVar("raw_tokens", default="default")
    ctx = contextvars.copy_context()
    with pytest.raises(RuntimeError, match="already entered"):
        ctx.run(ctx.run, lambda: None)
    token = contextvars.copy_context().run(var.set, "value")
    with pytest.raises(ValueError, match="different Context"):
        contextvars.copy_context().run(var.reset, token)


@run_in_pyodide
def test_bridge_reentrant_callback_runs_each_call_in_its_own_copy(selenium_pyctx: Any) -> None:
    """A bound callback re-entered by JavaScript runs each call in a fresh copy."""
    import contextvars

    from pyctx_web.jsbridge import bind_js
    from pyodide.code import run_js

    var = contextvars.ContextVar("bridge_reentrant", default="default")
    depth = contextvars.ContextVar("depth", default=0)
    seen: list[tuple[int, str]] = []
    call_js = run_js("(f, n) => f(n)")

    def callback(n: int) -> None:
        seen.append((n, var.get()))
        token = var.set(f"level {n}")
        if n < 3:
            call_js(holder.proxy, n + 1)
        var.reset(token)
        depth.set(n)

    var.set("registration")
    holder = bind_js(callback)
    var.set("default")
    with holder:
        call_js(holder.proxy, 1)
    assert seen == [(1, "registration"), (2, "registration"), (3, "registration")]
    assert depth.get() == 0


# --- "Object has already been destroyed" ---------------------------------------------------

_CATCHING_JOBS = """
(errors) => ({
  microtask: (f) => (globalThis.queueMicrotask ?? ((j) => void Promise.resolve().then(j)))(
    () => { try { f(); } catch (e) { errors.push(e.message); } }),
  react: (f) => Promise.resolve(1).then(
    (v) => { try { f(v); } catch (e) { errors.push(e.message); } }),
  twice: (f) => {
    for (let i = 0; i < 2; i++) { try { f(); } catch (e) { errors.push(e.message); } }
  },
  listen: (t, f) => t.addEventListener(
    "x", (ev) => { try { f(ev); } catch (e) { errors.push(e.message); } }),
})
"""


def test_raw_destroyed_proxies_throw_inside_javascript_jobs(selenium_pyctx: Any) -> None:
    """Proxies destroyed before their JavaScript job runs throw "destroyed" errors in that job."""

    @run_in_pyodide
    async def check(selenium: Any, catching_jobs: str) -> None:
        import asyncio
        import contextvars

        from pyodide.code import run_js as _run_js

        events = _run_js(
            "globalThis.EventTarget ? {EventTarget, Event} "
            ": require('vm').runInThisContext('({EventTarget, Event})')"
        )
        import functools

        import js

        from pyodide.code import run_js
        from pyodide.ffi import create_once_callable, create_proxy

        errors = js.Array.new()
        jobs = run_js(catching_jobs)(errors)
        calls: list[str] = []

        def scope_end() -> None:  # 1. destroyed when the run() scope ends
            proxy = create_proxy(lambda: calls.append("scope"))
            jobs.microtask(proxy)
            proxy.destroy()

        contextvars.copy_context().run(scope_end)
        # 2. a raw callable becomes a borrowed proxy, destroyed when the call returns
        contextvars.copy_context().run(jobs.microtask, functools.partial(calls.append, "borrowed"))
        # 3a. one once-callable handed to two jobs
        once = create_once_callable(lambda: calls.append("once"))
        contextvars.copy_context().run(jobs.twice, once)
        # 3b. a once listener that dispatches its own event
        target = events.EventTarget.new()

        def listener(event: Any) -> None:
            calls.append("reentrant")
            if calls.count("reentrant") == 1:
                target.dispatchEvent(events.Event.new("x"))

        jobs.listen(target, create_once_callable(listener))
        contextvars.copy_context().run(target.dispatchEvent, events.Event.new("x"))
        await asyncio.sleep(0.01)
        messages = list(errors)
        assert calls == ["once", "reentrant", "reentrant"]
        assert any("Object has already been destroyed" in m for m in messages)
        assert any("borrowed proxy was automatically destroyed" in m for m in messages), messages
        assert any("OnceProxy can only be called once" in m for m in messages)
        assert any("OnceProxy has already been destroyed" in m for m in messages)

    check(selenium_pyctx, _CATCHING_JOBS)


def test_bridge_callbacks_never_throw_destroyed_errors(selenium_pyctx: Any) -> None:
    """The same patterns through jsbridge throw nothing into JavaScript."""

    @run_in_pyodide
    async def check(selenium: Any, catching_jobs: str) -> None:
        import asyncio
        import contextvars

        from pyodide.code import run_js as _run_js

        events = _run_js(
            "globalThis.EventTarget ? {EventTarget, Event} "
            ": require('vm').runInThisContext('({EventTarget, Event})')"
        )

        import js

        from pyctx_web.errors import CallbackConsumedError
        from pyctx_web.jsbridge import add_event_listener, bind_js, live_callbacks, queue_microtask
        from pyodide.code import run_js

        loop = asyncio.get_running_loop()
        reported: list[BaseException] = []
        previous = loop.get_exception_handler()
        loop.set_exception_handler(lambda _loop, info: reported.append(info["exception"]))
        errors = js.Array.new()
        jobs = run_js(catching_jobs)(errors)
        calls: list[str] = []
        baseline = live_callbacks()
        try:

            def scope_end() -> None:
                with bind_js(lambda: calls.append("destroyed")) as callback:
                    jobs.microtask(callback.proxy)
                queue_microtask(lambda: calls.append("microtask"))
                jobs.react(bind_js(lambda v: calls.append("then"), once=True).proxy)

            contextvars.copy_context().run(scope_end)
            once = bind_js(lambda: calls.append("once"), once=True)
            contextvars.copy_context().run(jobs.twice, once.proxy)
            target = events.EventTarget.new()

            def listener(event: Any) -> None:
                calls.append("reentrant")
                if calls.count("reentrant") == 1:
                    target.dispatchEvent(events.Event.new("x"))

            add_event_listener(target, "x", listener, once=True)
            contextvars.copy_context().run(target.dispatchEvent, events.Event.new("x"))
            await asyncio.sleep(0.01)
        finally:
            loop.set_exception_handler(previous)
        assert list(errors) == []
        assert sorted(calls) == ["microtask", "once", "reentrant", "then"]
        assert len(reported) == 2  # the destroyed callback and the second "once" call
        assert all(isinstance(exc, CallbackConsumedError) for exc in reported)
        assert live_callbacks() == baseline

    check(selenium_pyctx, _CATCHING_JOBS)
