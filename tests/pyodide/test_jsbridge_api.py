"""pyctx_web.jsbridge rules: exceptions, rejections, once, re-entrance, timers, leaks, contain()."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide


@pytest.fixture
def selenium_pyctx(pyctx_module: Any) -> Any:
    """The module's Pyodide under a name run_in_pyodide accepts as its first argument."""
    return pyctx_module


@run_in_pyodide
async def test_exception_reaches_the_handler_in_the_failing_context(selenium_pyctx: Any) -> None:
    """A failing callback's exception reaches the loop's handler while its context is current."""
    import asyncio
    import contextvars

    from pyctx_web.jsbridge import set_timeout

    var = contextvars.ContextVar("failing", default="default")
    loop = asyncio.get_running_loop()
    reported = loop.create_future()
    previous = loop.get_exception_handler()
    loop.set_exception_handler(
        lambda _loop, info: reported.set_result((info["exception"], var.get()))
    )

    def failing() -> None:
        var.set("inside the failing callback")
        raise KeyError("boom")

    try:
        var.set("registration")
        set_timeout(failing, 0)
        exc, seen = await reported
    finally:
        loop.set_exception_handler(previous)
    assert isinstance(exc, KeyError)
    assert seen == "inside the failing callback"
    assert var.get() == "registration"
    assert await asyncio.sleep(0, result="alive") == "alive"


@run_in_pyodide
async def test_rejected_js_promise_reaches_on_rejected_with_the_message(
    selenium_pyctx: Any,
) -> None:
    """A JS promise rejected with an Error reaches on_rejected as an exception with its message."""
    import contextvars

    from pyctx_web.jsbridge import then
    from pyodide.code import run_js
    from pyodide.ffi import JsException

    var = contextvars.ContextVar("rejected", default="default")
    var.set("registration")
    rejected = run_js("new Promise((_, reject) => setTimeout(() => reject(new Error('nope')), 0))")
    derived = then(rejected, lambda value: "fulfilled", lambda exc: (exc, var.get()))
    var.set("later")
    exc, seen = await derived
    assert isinstance(exc, JsException)
    assert "nope" in str(exc)
    assert exc.message == "nope"
    assert seen == "registration"


@run_in_pyodide
async def test_then_passes_through_and_awaits_coroutine_reactions(selenium_pyctx: Any) -> None:
    """then() passes values and rejections through a missing reaction and awaits async ones."""
    import asyncio
    import contextvars

    import js
    import pytest

    from pyctx_web.jsbridge import live_callbacks, then
    from pyodide.ffi import JsException

    var = contextvars.ContextVar("then_chain", default="default")
    baseline = live_callbacks()
    var.set("registration")

    async def async_reaction(value: int) -> tuple[int, str]:
        await asyncio.sleep(0)
        return value * 2, var.get()

    doubled = then(js.Promise.resolve(21), async_reaction)
    passed = then(js.Promise.resolve(5), None, lambda exc: "unused")
    failed = then(js.Promise.reject(js.Error.new("kept")), lambda value: "unused")
    var.set("later")
    assert await doubled == (42, "registration")
    assert await passed == 5
    with pytest.raises(JsException, match="kept"):
        await failed
    assert live_callbacks() == baseline


@run_in_pyodide
async def test_failing_reaction_fails_the_derived_future_and_is_reported(
    selenium_pyctx: Any,
) -> None:
    """An exception in a promise reaction fails the derived future and reaches the handler."""
    import asyncio

    import js
    import pytest

    from pyctx_web.jsbridge import then

    loop = asyncio.get_running_loop()
    reported: list[BaseException] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, info: reported.append(info["exception"]))
    try:
        derived = then(js.Promise.resolve(1), lambda value: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            await derived
        dropped = then(js.Promise.resolve(1), lambda value: [][1])
        await asyncio.sleep(0.01)
        del dropped
    finally:
        loop.set_exception_handler(previous)
    assert [type(exc) for exc in reported] == [ZeroDivisionError, IndexError]


@run_in_pyodide
async def test_async_bound_callback_gives_javascript_a_promise(selenium_pyctx: Any) -> None:
    """An async function bound with bind_js runs as a task in its context; JS gets a Promise."""
    import asyncio
    import contextvars

    from pyctx_web.jsbridge import bind_js
    from pyodide.code import run_js

    var = contextvars.ContextVar("async_bound", default="default")
    var.set("registration")

    async def work(n: int) -> str:
        await asyncio.sleep(0)
        return f"{n}:{var.get()}"

    probe = run_js("async (f) => { const p = f(7); return [p instanceof Promise, await p]; }")
    callback = bind_js(work)
    var.set("later")
    with callback:
        is_promise, value = await probe(callback.proxy)
    assert callback.alive is False
    assert is_promise is True
    assert value == "7:registration"


@run_in_pyodide
async def test_once_callback_called_twice_reports_a_clear_error(selenium_pyctx: Any) -> None:
    """A once=True callback called twice runs once; the second call is reported, not thrown."""
    import asyncio
    import re

    from pyctx_web.errors import CallbackConsumedError
    from pyctx_web.jsbridge import bind_js, live_callbacks
    from pyodide.code import run_js

    loop = asyncio.get_running_loop()
    reported: list[BaseException] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, info: reported.append(info["exception"]))
    baseline = live_callbacks()
    calls: list[int] = []
    try:
        callback = bind_js(calls.append, once=True)
        assert live_callbacks() == baseline + 1
        results = run_js("(f) => [f(1), f(2)]")(callback.proxy)
    finally:
        loop.set_exception_handler(previous)
    assert calls == [1]
    assert list(results) == [None, None]
    assert len(reported) == 1
    assert isinstance(reported[0], CallbackConsumedError)
    assert re.fullmatch(
        r"JavaScript called callback #\d+ after it was used up: it was registered with "
        r"once=True and already called, or it was cancelled, removed or destroyed",
        str(reported[0]),
    ), str(reported[0])
    assert callback.alive is False
    assert live_callbacks() == baseline
    assert await asyncio.sleep(0, result="alive") == "alive"


@run_in_pyodide
def test_reentrant_listener_dispatching_its_own_event(selenium_pyctx: Any) -> None:
    """A listener that dispatches its own event sees its registration context at every depth."""
    import contextvars

    from pyctx_web.jsbridge import add_event_listener
    from pyodide.code import run_js

    events = run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )
    var = contextvars.ContextVar("reentrant", default="default")
    depth = contextvars.ContextVar("depth", default=0)
    target = events.EventTarget.new()
    seen: list[tuple[int, str]] = []

    def listener(event: Any) -> None:
        level = depth.get() + 1
        seen.append((level, var.get()))
        depth.set(level)
        var.set(f"set at {level}")
        if len(seen) < 4:
            target.dispatchEvent(events.Event.new("ping"))

    var.set("registration")
    with add_event_listener(target, "ping", listener):
        var.set("dispatcher")
        target.dispatchEvent(events.Event.new("ping"))
    assert seen == [(1, "registration")] * 4
    assert var.get() == "dispatcher"
    assert depth.get() == 0


@run_in_pyodide
async def test_dispatch_mode_from_the_event_loop_runs_in_the_empty_base_context(
    selenium_pyctx: Any,
) -> None:
    """A dispatch-mode listener fired by JavaScript sees an empty context, not an earlier leak."""
    import asyncio
    import contextvars

    import js

    from pyctx_web.jsbridge import add_event_listener
    from pyodide.code import run_js
    from pyodide.ffi import create_once_callable

    events = run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )
    var = contextvars.ContextVar("base", default="default")
    loop = asyncio.get_running_loop()
    leaked, seen = loop.create_future(), loop.create_future()

    def leak() -> None:  # a raw callback leaves a value in the ambient context
        var.set("leaked")
        leaked.set_result(var.get())

    js.setTimeout(create_once_callable(leak), 0)
    assert await leaked == "leaked"
    target = events.EventTarget.new()
    subscription = add_event_listener(
        target, "ping", lambda e: seen.set_result(var.get()), context="dispatch", once=True
    )
    run_js("(t, E) => setTimeout(() => t.dispatchEvent(new E('ping')), 0)")(target, events.Event)
    assert await seen == "default"
    assert subscription.active is False


@run_in_pyodide
async def test_interval_runs_each_tick_in_a_fresh_copy_until_cancelled(
    selenium_pyctx: Any,
) -> None:
    """set_interval ticks never see what an earlier tick set, and cancel() stops and frees it."""
    import asyncio
    import contextvars

    from pyctx_web.jsbridge import live_callbacks, set_interval, set_timeout

    var: contextvars.ContextVar[int | str] = contextvars.ContextVar("interval", default="default")
    baseline = live_callbacks()
    done = asyncio.get_running_loop().create_future()
    ticks: list[tuple[str, int | str]] = []

    def tick(tag: str) -> None:
        ticks.append((tag, var.get()))
        var.set(-1)
        if len(ticks) == 3:
            # Cancelled by the third tick itself: a fourth may not come, however late the
            # coroutine awaiting ``done`` resumes (a 1 ms interval outruns a busy machine).
            handle.cancel()
            done.set_result(None)

    var.set(1)
    handle = set_interval(tick, 1, "tick")
    cancelled = set_timeout(tick, 0, "never")
    cancelled.cancel()
    await done
    handle.cancel()
    handle.cancel()
    await asyncio.sleep(0.01)
    assert ticks == [("tick", 1)] * 3
    assert handle.active is False
    assert live_callbacks() == baseline


@run_in_pyodide
def test_removed_listener_is_not_called_and_frees_its_callback(selenium_pyctx: Any) -> None:
    """remove() detaches the listener and frees its callback; later events do not call it."""
    from pyctx_web.jsbridge import add_event_listener, live_callbacks
    from pyodide.code import run_js

    events = run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )
    baseline = live_callbacks()
    target = events.EventTarget.new()
    calls: list[str] = []
    subscription = add_event_listener(target, "ping", lambda e: calls.append(e.type))
    target.dispatchEvent(events.Event.new("ping"))
    subscription.remove()
    subscription.remove()
    target.dispatchEvent(events.Event.new("ping"))
    assert calls == ["ping"]
    assert live_callbacks() == baseline


@run_in_pyodide
async def test_request_animation_frame_is_browser_only(selenium_pyctx: Any) -> None:
    """request_animation_frame runs in the registration context in a browser and raises in Node."""
    import asyncio
    import contextvars

    import pytest

    from pyctx_web import IN_BROWSER
    from pyctx_web.errors import JsUnavailableError
    from pyctx_web.jsbridge import request_animation_frame

    var = contextvars.ContextVar("frame", default="default")
    var.set("registration")
    if not IN_BROWSER:
        with pytest.raises(
            JsUnavailableError,
            match=r"^request_animation_frame\(\) needs a browser: this JavaScript runtime has "
            r"no requestAnimationFrame \(Node\); use set_timeout\(\) instead$",
        ):
            request_animation_frame(lambda t: None)
        return
    seen = asyncio.get_running_loop().create_future()
    request_animation_frame(lambda timestamp: seen.set_result((timestamp > 0, var.get())))
    request_animation_frame(lambda timestamp: None).cancel()
    var.set("later")
    assert await seen == (True, "registration")


@run_in_pyodide
async def test_contain_wraps_third_party_create_proxy_and_release_restores(
    selenium_pyctx: Any,
) -> None:
    """Under contain() third-party create_proxy callbacks keep their context; release() restores."""
    import asyncio
    import contextvars

    import pyodide.ffi
    from pyctx_web.jsbridge import contain, is_contained, release
    from pyodide.code import run_js

    var = contextvars.ContextVar("contained", default="default")
    original_proxy = pyodide.ffi.create_proxy
    original_once = pyodide.ffi.create_once_callable
    later = run_js("(f) => new Promise((resolve) => setTimeout(() => resolve(f()), 0))")

    def third_party_schedule() -> Any:  # looks create_proxy up at call time, as libraries do
        var.set("registration")
        from pyodide.ffi import create_once_callable, create_proxy

        proxy = create_proxy(lambda: var.get())
        once = create_once_callable(lambda: var.get())
        return proxy, later(proxy), later(once)

    _, raw, raw_once = contextvars.copy_context().run(third_party_schedule)
    contain()
    contain()
    try:
        assert is_contained() is True
        proxy, contained, contained_once = contextvars.copy_context().run(third_party_schedule)
        assert list(await asyncio.gather(contained, contained_once)) == ["registration"] * 2
        proxy.destroy()
    finally:
        release()
        release()
    assert list(await asyncio.gather(raw, raw_once)) == ["default", "default"]
    assert pyodide.ffi.create_proxy is original_proxy
    assert pyodide.ffi.create_once_callable is original_once
    assert is_contained() is False


@run_in_pyodide
async def test_no_leaks_after_ten_thousand_timers_and_reactions(selenium_pyctx: Any) -> None:
    """After 10,000 timers and 10,000 reactions no callback or proxy is live; the store is freed."""
    import asyncio
    import gc
    import weakref

    import js
    import pyodide_js

    from pyctx_web import AsyncLocalStorage
    from pyctx_web.jsbridge import live_callbacks, set_timeout, then

    class Store:
        pass

    module = pyodide_js._module
    module.enable_pyproxy_allocation_tracing()
    try:
        gc.collect()
        proxies_before = module.pyproxy_alloc_map.size
        callbacks_before = live_callbacks()
        als: AsyncLocalStorage[Store] = AsyncLocalStorage(name="leak")
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        count = [0]
        total = 20_000

        def hit(*_: Any) -> None:
            assert isinstance(als.get_store(), Store)
            count[0] += 1
            if count[0] == total:
                done.set_result(None)

        def schedule() -> None:
            for _ in range(10_000):
                set_timeout(hit, 0)
                then(js.Promise.resolve(1), hit)

        store = Store()
        ref = weakref.ref(store)
        als.run(store, schedule)
        del store
        await done
        await asyncio.sleep(0.01)
        gc.collect()
        assert count[0] == total
        assert live_callbacks() == callbacks_before
        assert module.pyproxy_alloc_map.size == proxies_before
        assert ref() is None
    finally:
        module.disable_pyproxy_allocation_tracing()
