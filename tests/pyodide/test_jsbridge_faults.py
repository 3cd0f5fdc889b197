"""pyctx_web.jsbridge under faults: BaseExceptions, unconvertible results, unsettled promises."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide


@pytest.fixture
def selenium_pyctx(pyctx_module: Any) -> Any:
    """The module's Pyodide under a name run_in_pyodide accepts as its first argument."""
    return pyctx_module


# --- BaseException raised by a callback -----------------------------------------------------


@run_in_pyodide
async def test_base_exceptions_from_a_callback_are_reported_and_javascript_gets_undefined(
    selenium_pyctx: Any,
) -> None:
    """A callback raising any BaseException is reported in its context; JS gets undefined."""
    import asyncio
    import contextvars

    from pyctx_web.graph.errors import GraphInterrupt
    from pyctx_web.jsbridge import bind_js, live_callbacks
    from pyodide.code import run_js
    from pyodide.ffi import to_js

    class Custom(BaseException):
        pass

    var = contextvars.ContextVar("faults_sync", default="default")
    kinds: list[type[BaseException]] = [
        KeyboardInterrupt,
        SystemExit,
        GraphInterrupt,
        Custom,
        asyncio.CancelledError,
    ]
    call_all = run_js(
        "(fs) => fs.map((f) => { try { return ['returned', f()]; }"
        " catch (e) { return ['threw', String(e && e.message)]; } })"
    )
    loop = asyncio.get_running_loop()
    reported: list[tuple[type[BaseException], str]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(
        lambda _loop, info: reported.append((type(info["exception"]), var.get()))
    )

    def raiser(kind: type[BaseException]) -> Any:
        def fail() -> None:
            var.set(f"inside {kind.__name__}")
            raise kind()

        return fail

    baseline = live_callbacks()
    var.set("registration")
    try:
        callbacks = [bind_js(raiser(kind), once=True) for kind in kinds]
        results = [list(pair) for pair in call_all(to_js([c.proxy for c in callbacks]))]
    finally:
        loop.set_exception_handler(previous)
    assert results == [["returned", None]] * len(kinds)
    assert reported == [(kind, f"inside {kind.__name__}") for kind in kinds]
    assert var.get() == "registration"
    assert live_callbacks() == baseline
    assert await asyncio.sleep(0, result="alive") == "alive"


@run_in_pyodide
async def test_base_exceptions_from_async_callbacks_reject_the_promise_and_are_reported(
    selenium_pyctx: Any,
) -> None:
    """An async callback raising a BaseException is reported; JS gets a rejected Promise."""
    import asyncio

    from pyctx_web.jsbridge import bind_js
    from pyodide.code import run_js
    from pyodide.ffi import to_js

    kinds: list[type[BaseException]] = [KeyboardInterrupt, SystemExit, asyncio.CancelledError]
    settle_all = run_js(
        "(fs) => Promise.all(fs.map(async (f) => { try { return ['fulfilled', await f()]; }"
        " catch (e) { return ['rejected', e.name]; } }))"
    )
    loop = asyncio.get_running_loop()
    reported: list[type[BaseException]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, info: reported.append(type(info["exception"])))

    def raiser(kind: type[BaseException]) -> Any:
        async def fail() -> None:
            await asyncio.sleep(0)
            raise kind()

        return fail

    try:
        callbacks = [bind_js(raiser(kind), once=True) for kind in kinds]
        proxies = to_js([c.proxy for c in callbacks])
        results = [list(pair) for pair in await settle_all(proxies)]
        alive = await asyncio.sleep(0, result="alive")
    finally:
        loop.set_exception_handler(previous)
    assert results == [["rejected", kind.__name__] for kind in kinds]
    assert sorted(kind.__name__ for kind in reported) == sorted(k.__name__ for k in kinds)
    assert alive == "alive"


@run_in_pyodide
async def test_base_exception_in_a_reaction_fails_or_cancels_the_derived_future(
    selenium_pyctx: Any,
) -> None:
    """A reaction's BaseException fails the derived future; a CancelledError cancels it."""
    import asyncio

    import js

    from pyctx_web.jsbridge import live_callbacks, then

    loop = asyncio.get_running_loop()
    reported: list[type[BaseException]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, info: reported.append(type(info["exception"])))
    baseline = live_callbacks()

    def interrupt(value: Any) -> None:
        raise KeyboardInterrupt

    def cancel(value: Any) -> None:
        raise asyncio.CancelledError

    async def exit_later(value: Any) -> None:
        await asyncio.sleep(0)
        raise SystemExit(3)

    try:
        failed = then(js.Promise.resolve(1), interrupt)
        cancelled = then(js.Promise.resolve(1), cancel)
        exited = then(js.Promise.resolve(1), exit_later)
        await asyncio.wait([failed, cancelled, exited])
    finally:
        loop.set_exception_handler(previous)
    assert isinstance(failed.exception(), KeyboardInterrupt)
    assert cancelled.cancelled()
    assert isinstance(exited.exception(), SystemExit)
    assert sorted(kind.__name__ for kind in reported) == [
        "CancelledError",
        "KeyboardInterrupt",
        "SystemExit",
    ]
    assert live_callbacks() == baseline


# --- an async bind_js result that cannot be converted ---------------------------------------

_BORROW_PROBE = """
async (f) => {
  const seen = [];
  const object = await f("object");
  seen.push(object.label);
  const listed = await f("list");
  seen.push(listed[0].label);
  const mapped = await f("dict");
  seen.push(mapped.item.label);
  const kept = (await f("object")).copy();
  await new Promise((resolve) => setTimeout(resolve, 10));
  const after = [object, listed[0], mapped.item].map((proxy) => {
    try { return proxy.label; } catch (e) { return e.message; }
  });
  const keptLabel = kept.label;
  kept.destroy();
  return [seen, after, keptLabel];
}
"""


def test_unconvertible_async_result_is_a_borrowed_proxy_destroyed_after_the_call(
    selenium_pyctx: Any,
) -> None:
    """An async callback's unconvertible result is usable in the reaction, then destroyed."""

    @run_in_pyodide
    async def check(selenium: Any, probe_source: str) -> None:
        import asyncio
        import gc
        import weakref

        import pyodide_js

        from pyctx_web.jsbridge import bind_js
        from pyodide.code import run_js

        class Result:
            label = "kept"

        made: list[weakref.ref[Result]] = []

        async def produce(kind: str) -> Any:
            await asyncio.sleep(0)
            result = Result()
            made.append(weakref.ref(result))
            return {"object": result, "list": [result], "dict": {"item": result}}[kind]

        probe = run_js(probe_source)
        module = pyodide_js._module
        module.enable_pyproxy_allocation_tracing()
        try:
            gc.collect()
            proxies_before = module.pyproxy_alloc_map.size
            with bind_js(produce) as callback:
                seen, after, kept = await probe(callback.proxy)
            await asyncio.sleep(0)
            gc.collect()
            assert list(seen) == ["kept"] * 3
            assert kept == "kept"
            assert all("destroyed" in message for message in after), list(after)
            assert module.pyproxy_alloc_map.size == proxies_before
            assert len(made) == 4
            assert [ref() for ref in made] == [None] * 4
        finally:
            module.disable_pyproxy_allocation_tracing()

    check(selenium_pyctx, _BORROW_PROBE)


# --- then() on a promise that never settles -------------------------------------------------


@run_in_pyodide
async def test_cancelling_the_future_of_a_never_settling_promise_releases_the_reaction(
    selenium_pyctx: Any,
) -> None:
    """Cancelling then()'s future frees the reaction and its context; the promise never settles."""
    import asyncio
    import contextvars
    import gc
    import weakref

    import pyodide_js

    from pyctx_web.jsbridge import live_callbacks, then
    from pyodide.code import run_js

    class Store:
        pass

    var: contextvars.ContextVar[Store | None] = contextvars.ContextVar("never", default=None)
    never = run_js("new Promise(() => {})")
    calls: list[Any] = []
    module = pyodide_js._module
    module.enable_pyproxy_allocation_tracing()
    try:
        gc.collect()
        proxies_before = module.pyproxy_alloc_map.size
        baseline = live_callbacks()
        store = Store()
        stored = weakref.ref(store)

        def register(captured: Store) -> Any:
            var.set(captured)
            return then(never, calls.append, calls.append)

        derived = contextvars.copy_context().run(register, store)
        del store
        assert live_callbacks() == baseline + 1
        derived.cancel()
        await asyncio.sleep(0.01)  # lets the loop finish the handles that cancel() scheduled
        gc.collect()
        assert live_callbacks() == baseline
        assert stored() is None
        assert module.pyproxy_alloc_map.size == proxies_before
        assert calls == []
    finally:
        module.disable_pyproxy_allocation_tracing()


@run_in_pyodide
async def test_collecting_an_unsettled_source_future_releases_the_reaction(
    selenium_pyctx: Any,
) -> None:
    """When the awaitable's future is collected unsettled, its reaction and context are freed."""
    import asyncio
    import contextvars
    import gc
    import weakref

    from pyctx_web.jsbridge import live_callbacks, then

    class Store:
        pass

    var: contextvars.ContextVar[Store | None] = contextvars.ContextVar("dropped", default=None)
    baseline = live_callbacks()
    store = Store()
    stored = weakref.ref(store)

    def register(captured: Store) -> Any:
        var.set(captured)
        source = asyncio.get_running_loop().create_future()
        return source, then(source, lambda value: value)

    source, derived = contextvars.copy_context().run(register, store)
    del store
    assert live_callbacks() == baseline + 1
    kept = weakref.ref(derived)
    del source, derived
    gc.collect()
    assert live_callbacks() == baseline
    assert stored() is None
    assert kept() is None


@run_in_pyodide
async def test_dropping_the_future_of_a_pending_promise_keeps_the_reaction(
    selenium_pyctx: Any,
) -> None:
    """A dropped then() future still runs its reaction when the JS promise settles, as in JS."""
    import asyncio
    import contextvars
    import gc

    from pyctx_web.jsbridge import live_callbacks, then
    from pyodide.code import run_js

    var = contextvars.ContextVar("fire_and_forget", default="default")
    later = run_js("new Promise((resolve) => setTimeout(() => resolve('settled'), 5))")
    seen = asyncio.get_running_loop().create_future()
    baseline = live_callbacks()
    var.set("registration")
    then(later, lambda value: seen.set_result((value, var.get())))
    gc.collect()
    assert live_callbacks() == baseline + 1
    assert await seen == ("settled", "registration")
    assert live_callbacks() == baseline


@run_in_pyodide
async def test_timer_raising_system_exit_is_reported_and_the_runtime_goes_on(
    selenium_pyctx: Any,
) -> None:
    """A timer raising SystemExit from the JS event loop is reported; the runtime keeps running."""
    import asyncio

    from pyctx_web.jsbridge import set_timeout

    loop = asyncio.get_running_loop()
    reported = loop.create_future()
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, info: reported.set_result(info["exception"]))

    def leave() -> None:
        raise SystemExit(2)

    try:
        set_timeout(leave, 0)
        exc = await reported
        alive = await asyncio.sleep(0.01, result="alive")
    finally:
        loop.set_exception_handler(previous)
    assert isinstance(exc, SystemExit)
    assert exc.code == 2
    assert alive == "alive"
