"""1,000 concurrent operations mixing tasks, timers, promise reactions and events.

Each operation runs in its own ``run(store, ...)`` and records, in every
callback, the store it sees. Through AsyncLocalStorage and jsbridge every
callback sees its own operation's store. The same scenario against a port of
the single-slot ``.finally()`` polyfill (one global current store that
``run()`` sets and restores in the returned promise's ``finally``) mixes
stores, which shows that the scenario tells a correct store from a wrong one.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide

SCENARIO = '''
import asyncio
import inspect
import random

from pyodide.code import run_js

from pyctx_web.jsbridge import add_event_listener, set_timeout, then

OPERATIONS = 1_000


class FinallyPolyfill:
    """The single-slot polyfill: a global current store, restored in the promise's finally."""

    def __init__(self):
        self.current = None

    def get_store(self):
        return self.current

    def run(self, store, fn, *args):
        previous = self.current
        self.current = store
        try:
            result = fn(*args)
        except BaseException:
            self.current = previous
            raise
        if not inspect.iscoroutine(result):
            self.current = previous
            return result
        promise = asyncio.ensure_future(result)

        def restore(_):  # promise.finally(() => { current = previous })
            self.current = previous

        promise.add_done_callback(restore)
        return promise


async def scenario(storage, seed=1234):
    """Run the operations concurrently; return (expected, seen) for every callback."""
    rng = random.Random(seed)
    events = run_js(
        "globalThis.EventTarget ? {EventTarget, Event} "
        ": require('vm').runInThisContext('({EventTarget, Event})')"
    )
    target = events.EventTarget.new()
    js_later = run_js("(ms, v) => new Promise((resolve) => setTimeout(() => resolve(v), ms))")
    fire_later = run_js("(t, E, type, ms) => setTimeout(() => t.dispatchEvent(new E(type)), ms)")
    loop = asyncio.get_running_loop()
    records = []

    async def operation(op, delays):
        def record(kind):
            records.append((op, kind, storage.get_store()))

        record("start")

        async def child():
            await asyncio.sleep(delays[0] / 1000)
            record("task")

        task = asyncio.ensure_future(child())
        timer_done = loop.create_future()

        def on_timer():
            record("timer")
            timer_done.set_result(None)

        set_timeout(on_timer, delays[1])
        reaction = then(js_later(delays[2], op), lambda value: record("reaction"))
        event_done = loop.create_future()

        def on_event(event):
            record("event")
            event_done.set_result(None)

        subscription = add_event_listener(target, f"op{op}", on_event, once=True)
        fire_later(target, events.Event, f"op{op}", delays[3])
        await js_later(delays[4], None)
        record("after await")
        await asyncio.gather(task, timer_done, reaction, event_done)
        subscription.remove()
        record("end")

    runs = []
    for op in range(OPERATIONS):
        delays = [rng.randint(0, 5) for _ in range(5)]
        runs.append(storage.run(op, operation, op, delays))
    await asyncio.gather(*runs)
    return [(op, kind, seen) for op, kind, seen in records]
'''


@pytest.fixture
def selenium_pyctx(pyctx_module: Any) -> Any:
    """The module's Pyodide under a name run_in_pyodide accepts as its first argument."""
    return pyctx_module


def test_every_callback_of_every_operation_sees_its_own_store(selenium_pyctx: Any) -> None:
    """With AsyncLocalStorage and jsbridge, 7,000 records of 1,000 operations see their store."""

    @run_in_pyodide
    async def check(selenium: Any, scenario_source: str) -> None:
        from collections import Counter

        from pyctx_web import AsyncLocalStorage
        from pyctx_web.jsbridge import live_callbacks

        namespace: dict[str, Any] = {}
        exec(scenario_source, namespace)
        baseline = live_callbacks()
        records = await namespace["scenario"](AsyncLocalStorage(name="operation"))
        kinds = Counter(kind for _, kind, _ in records)
        assert len(records) == 7 * namespace["OPERATIONS"]
        assert set(kinds.values()) == {namespace["OPERATIONS"]}
        wrong = [(op, kind, seen) for op, kind, seen in records if seen != op]
        assert wrong == []
        assert live_callbacks() == baseline

    check(selenium_pyctx, SCENARIO)


def test_finally_polyfill_baseline_mixes_stores(selenium_pyctx: Any) -> None:
    """Against the single-slot .finally() polyfill the scenario sees foreign stores."""

    @run_in_pyodide
    async def check(selenium: Any, scenario_source: str) -> None:
        namespace: dict[str, Any] = {}
        exec(scenario_source, namespace)
        records = await namespace["scenario"](namespace["FinallyPolyfill"]())
        assert len(records) == 7 * namespace["OPERATIONS"]
        wrong = [(op, kind, seen) for op, kind, seen in records if seen != op]
        mixed_kinds = {kind for _, kind, _ in wrong}
        assert len(wrong) > len(records) // 2
        assert {"timer", "reaction", "event", "task"} <= mixed_kinds

    check(selenium_pyctx, SCENARIO)
