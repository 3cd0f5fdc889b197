"""Scenarios of the context store: AsyncLocalStorage, Variable, Snapshot and ExecutionContext.

Every ``scenario_<behaviour>`` function states one behaviour in its docstring
and checks it with plain ``assert``. Synchronous scenarios expect to be called
in a context of their own (``contextvars.copy_context().run``); asynchronous
ones in a task of their own, on any asyncio event loop (``asyncio.run`` on
CPython, Pyodide's WebLoop in Node and in the browser).

This module imports only pyctx_web and the standard library, so the same file
runs on CPython and inside Pyodide. Ports of Node's ``AsyncLocalStorage`` tests
(test-async-local-storage-*) are named ``scenario_node_*``, ports of the TC39
``AsyncContext`` proposal's tests ``scenario_tc39_*``.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import random
import sys
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from types import FrameType
from typing import Any

import pyctx_web.context
from pyctx_web import (
    AsyncLocalStorage,
    ContextCoroutine,
    ContextMissingError,
    ExecutionContext,
    PyctxError,
    Snapshot,
    Variable,
    current_execution_context,
    get_current_correlation_id,
    get_current_tenant_id,
    get_current_user_id,
    require_execution_context,
    with_execution_context,
)

Body = Callable[[], Coroutine[Any, Any, Any]]
Launch = Callable[[Body], Coroutine[Any, Any, Any]]


# --- helpers ----------------------------------------------------------------------------------


def _raises(exc_type: type[BaseException], fn: Callable[..., Any], *args: Any) -> BaseException:
    """Call ``fn(*args)``; return the exception of ``exc_type`` it raised, fail if none."""
    try:
        fn(*args)
    except exc_type as caught:
        return caught
    raise AssertionError(f"{getattr(fn, '__name__', fn)!r} did not raise {exc_type.__name__}")


async def _read_after_sleep(read: Callable[[], Any]) -> Any:
    """Read a value after giving the event loop a turn."""
    await asyncio.sleep(0)
    return read()


async def _await(awaitable: Awaitable[Any]) -> Any:
    """Await ``awaitable`` from a coroutine of its own (what ``await`` inside a caller does)."""
    return await awaitable


async def _check_async_api(
    launch: Launch,
    read: Callable[[], Any],
    expected: Any,
    *,
    isolated: bool = True,
) -> None:
    """Check how a coroutine runs when started by ``launch(body)``.

    ``read()`` must return ``expected`` inside the coroutine after every kind of
    await and in the tasks it creates; the caller's value comes back afterwards;
    exceptions and cancellation pass through unchanged. With ``isolated``,
    nothing the coroutine sets in the context (other storages, a plain
    ``ContextVar``) is seen by the caller.
    """
    loop = asyncio.get_running_loop()
    before = read()
    assert before != expected
    other = AsyncLocalStorage[str](name="other")
    plain: contextvars.ContextVar[str] = contextvars.ContextVar("plain", default="caller")

    # A task that exists before the coroutine starts, with the caller's context.
    gate = asyncio.Event()

    async def bystander_body() -> Any:
        await gate.wait()
        return read()

    bystander = asyncio.create_task(bystander_body())

    async def body() -> tuple[list[Any], Any]:
        seen = [read()]
        await asyncio.sleep(0)
        seen.append(read())
        await asyncio.sleep(0.001)
        seen.append(read())
        gate.set()
        seen_by_bystander = await bystander
        seen.append(read())
        seen.append(await asyncio.create_task(_read_after_sleep(read)))
        future: asyncio.Future[Any] = loop.create_future()
        loop.call_soon(lambda: future.set_result(read()))
        seen.append(await future)
        seen.extend(await asyncio.gather(_read_after_sleep(read), _read_after_sleep(read)))
        other.enter_with("set inside")
        plain.set("set inside")
        await asyncio.sleep(0)
        seen.append(read())
        return seen, seen_by_bystander

    seen, seen_by_bystander = await launch(body)
    assert seen == [expected] * len(seen), seen
    assert seen_by_bystander == before
    assert read() == before
    if isolated:
        assert other.get_store() is None
        assert plain.get() == "caller"

    # await, asyncio.create_task and asyncio.gather accept what launch returns.
    async def simple() -> Any:
        await asyncio.sleep(0)
        return read()

    assert await asyncio.create_task(launch(simple)) == expected
    assert list(await asyncio.gather(launch(simple), launch(simple))) == [expected, expected]
    assert read() == before

    # Exceptions pass through unchanged, raised before or after the first await.
    error = ValueError("boom")

    async def fails_at_once() -> None:
        assert read() == expected
        raise error

    async def fails_later() -> None:
        await asyncio.sleep(0)
        assert read() == expected
        raise error

    for failing in (fails_at_once, fails_later):
        caught: BaseException | None = None
        try:
            await launch(failing)
        except ValueError as exc:
            caught = exc
        assert caught is error
        assert read() == before

    # Cancellation passes through with its message; finally blocks see the value.
    for wrap_in_caller in (False, True):
        entered = asyncio.Event()
        finally_seen: list[Any] = []

        async def sleeper(
            entered: asyncio.Event = entered, finally_seen: list[Any] = finally_seen
        ) -> None:
            try:
                entered.set()
                await asyncio.sleep(3600)
            finally:
                finally_seen.append(read())

        awaitable = launch(sleeper)
        task = asyncio.create_task(_await(awaitable) if wrap_in_caller else awaitable)
        await entered.wait()
        task.cancel("stop")
        cancelled: BaseException | None = None
        try:
            await task
        except asyncio.CancelledError as exc:
            cancelled = exc
        assert isinstance(cancelled, asyncio.CancelledError)
        assert cancelled.args == ("stop",)
        assert task.cancelled()
        assert finally_seen == [expected]
        assert read() == before


def _library_frames() -> int:
    """Count the frames of pyctx_web/context.py on the current stack."""
    # The name its code was compiled under: a sourceless bytecode build may not name __file__.
    library = pyctx_web.context.is_awaitable.__code__.co_filename
    count = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        if frame.f_code.co_filename == library:
            count += 1
        frame = frame.f_back
    return count


def _stack_depth() -> int:
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


# --- Node's AsyncLocalStorage tests -------------------------------------------------------------


def scenario_node_nested_run_and_exit() -> None:
    """Nested run shows the inner store, exit inside run none, and both restore the outer one."""
    als = AsyncLocalStorage[dict[str, str]]()
    outer: dict[str, str] = {}
    inner: dict[str, str] = {}

    def test_inner() -> None:
        assert als.get_store() is outer
        als.run(inner, lambda: _expect(als.get_store() is inner))
        assert als.get_store() is outer
        als.exit(lambda: _expect(als.get_store() is None))
        assert als.get_store() is outer

    als.run(outer, test_inner)
    assert als.get_store() is None


def _expect(condition: bool) -> None:
    assert condition


async def scenario_node_concurrent_runs_are_isolated() -> None:
    """Two runs interleaved on one loop each keep their own mutable store across awaits."""
    als = AsyncLocalStorage[dict[str, str]]()

    async def request(value: str, delay: float) -> str:
        store = als.get_store()
        assert store is not None
        store["hello"] = value
        await asyncio.sleep(delay)
        store = als.get_store()
        assert store is not None
        return store["hello"]

    results = await asyncio.gather(
        als.run({}, request, "world", 0.002),
        als.run({}, request, "earth", 0.001),
    )
    assert list(results) == ["world", "earth"]
    assert als.get_store() is None


async def scenario_node_exit_inside_async_run() -> None:
    """An awaited exit in a coroutine under run sees no store; the run's store is back after it."""
    als = AsyncLocalStorage[dict[str, str]]()

    async def foo() -> None:
        await asyncio.sleep(0)

    async def test_out() -> None:
        await foo()
        assert als.get_store() is None

    async def test_await() -> None:
        await foo()
        store = als.get_store()
        assert store is not None
        assert store["key"] == "value"
        await als.exit(test_out)
        assert als.get_store() is store

    def start() -> Awaitable[None]:
        store = als.get_store()
        assert store is not None
        store["key"] = "value"
        return asyncio.ensure_future(test_await())

    task = als.run({}, start)
    assert als.get_store() is None
    await task


async def scenario_node_enable_disable() -> None:
    """disable hides the store from now on, also inside exit, until the next run."""
    als = AsyncLocalStorage[dict[str, str]]()
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    seen: dict[str, Any] = {}

    def first_callback() -> None:
        store = als.get_store()
        assert store is not None
        seen["first"] = store.get("foo")

        def scheduled_before() -> None:
            seen["scheduled before disable"] = als.get_store()

        loop.call_soon(scheduled_before)
        als.disable()
        seen["after disable"] = als.get_store()
        als.exit(lambda: seen.__setitem__("in exit", als.get_store()))
        seen["after exit"] = als.get_store()

        def later() -> None:
            seen["scheduled after disable"] = als.get_store()
            seen["run again"] = als.run({}, als.get_store)
            done.set_result(None)

        loop.call_soon(later)

    def start() -> None:
        store = als.get_store()
        assert store is not None
        store["foo"] = "bar"
        loop.call_soon(first_callback)

    als.run({}, start)
    await done
    assert seen["first"] == "bar"
    # Unlike Node's process-wide disable, a callback scheduled before disable() keeps its copy.
    assert seen["scheduled before disable"] == {"foo": "bar"}
    assert seen["after disable"] is None
    assert seen["in exit"] is None
    assert seen["after exit"] is None
    assert seen["scheduled after disable"] is None
    assert seen["run again"] == {}


async def scenario_node_enter_with_in_callback() -> None:
    """enter_with in a callback holds for what it schedules, not for a timer set elsewhere."""
    als = AsyncLocalStorage[dict[str, str]]()
    loop = asyncio.get_running_loop()
    store = {"foo": "bar"}
    seen: dict[str, Any] = {}
    inner_done = loop.create_future()
    outer_done = loop.create_future()

    def immediate() -> None:
        als.enter_with(store)
        seen["same callback"] = als.get_store()

        def inner_timer() -> None:
            seen["timer from callback"] = als.get_store()
            inner_done.set_result(None)

        loop.call_later(0.002, inner_timer)

    def outer_timer() -> None:
        seen["other timer"] = als.get_store()
        outer_done.set_result(None)

    loop.call_soon(immediate)
    loop.call_later(0.002, outer_timer)
    await asyncio.gather(inner_done, outer_done)
    assert seen["same callback"] is store
    assert seen["timer from callback"] is store
    assert seen["other timer"] is None


def scenario_node_snapshot_runs_in_captured_store() -> None:
    """A snapshot taken in run(123) runs a function with store 123 when called in run(321)."""
    als = AsyncLocalStorage[int]()
    run_in_scope = als.run(123, AsyncLocalStorage.snapshot)
    result = als.run(321, lambda: run_in_scope(als.get_store))
    assert result == 123
    assert als.get_store() is None


def scenario_node_bind_rejects_non_callables() -> None:
    """bind raises TypeError for 1, False, '', {} and []."""
    rejected: tuple[object, ...] = (1, False, "", {}, [])
    for value in rejected:
        error = _raises(TypeError, AsyncLocalStorage.bind, value)
        assert "callable" in str(error)


def scenario_node_bind_passes_arguments_and_result() -> None:
    """A bound function receives its arguments and returns its result."""
    assert AsyncLocalStorage.bind(lambda: 123)() == 123
    received: list[str] = []
    AsyncLocalStorage.bind(received.append)("test")
    assert received == ["test"]


def scenario_node_errors_in_sync_run_restore_the_store() -> None:
    """An error raised inside run reaches the caller unchanged and the store is restored."""
    als = AsyncLocalStorage[dict[str, bool]]()
    token = {"callback": True}
    error = RuntimeError("err1")

    def fail() -> None:
        assert als.get_store() is token
        raise error

    caught = _raises(RuntimeError, als.run, token, fail)
    assert caught is error
    assert als.get_store() is None


async def scenario_node_errors_after_await_keep_the_store_in_handlers() -> None:
    """An error after an await in a run reaches the caller; the run's callbacks see its store."""
    als = AsyncLocalStorage[dict[str, bool]]()
    token = {"await": True}
    seen: list[Any] = []

    async def await_test() -> None:
        await asyncio.sleep(0)
        raise RuntimeError("err3")

    def start() -> asyncio.Task[None]:
        task = asyncio.ensure_future(await_test())
        task.add_done_callback(lambda t: seen.append((als.get_store(), t.exception())))
        return task

    task = als.run(token, start)
    caught: BaseException | None = None
    try:
        await task
    except RuntimeError as exc:
        caught = exc
    assert str(caught) == "err3"
    await asyncio.sleep(0)
    assert len(seen) == 1
    assert seen[0][0] is token
    assert str(seen[0][1]) == "err3"
    assert als.get_store() is None


async def scenario_node_async_await_keeps_the_store() -> None:
    """A mutable store set before an await is there after it, and the caller has none after."""
    als = AsyncLocalStorage[dict[str, str]]()

    async def test() -> None:
        store = als.get_store()
        assert store is not None
        store["foo"] = "bar"
        await asyncio.sleep(0)
        store = als.get_store()
        assert store is not None
        assert store["foo"] == "bar"

    await als.run({}, test)
    assert als.get_store() is None


async def scenario_node_no_mix_contexts() -> None:
    """Concurrent runs of two storages never mix stores; exit of one storage keeps the other."""
    als1 = AsyncLocalStorage[dict[str, str]]()
    als2 = AsyncLocalStorage[dict[str, str]]()
    checked: list[str] = []

    async def both() -> None:
        store1, store2 = als1.get_store(), als2.get_store()
        assert store1 is not None
        assert store2 is not None
        store1["hello"] = "world"
        store2["hello"] = "foo"
        await asyncio.sleep(0.002)
        assert als1.get_store() == {"hello": "world"}
        assert als2.get_store() == {"hello": "foo"}

        def in_exit() -> None:
            assert als1.get_store() is None
            assert als2.get_store() == {"hello": "foo"}

        als1.exit(in_exit)
        assert als1.get_store() == {"hello": "world"}
        assert als2.get_store() == {"hello": "foo"}
        checked.append("both")

    async def one() -> None:
        store = als1.get_store()
        assert store is not None
        store["hello"] = "earth"
        await asyncio.sleep(0.001)
        assert als1.get_store() == {"hello": "earth"}
        assert als2.get_store() is None
        checked.append("one")

    await asyncio.gather(als1.run({}, als2.run, {}, both), als1.run({}, one))
    assert sorted(checked) == ["both", "one"]
    assert als1.get_store() is None
    assert als2.get_store() is None


def scenario_node_deep_stack_of_1000_runs() -> None:
    """run, exit and bind recurse 1,000 deep with at most two library frames per level."""
    als = AsyncLocalStorage[int]()
    depth = 1000
    bottom: list[tuple[str, int, int | None]] = []

    def via_run(count: int) -> None:
        if count > 0:
            return als.run(count, via_run, count - 1)
        bottom.append(("run", _library_frames(), als.get_store()))
        return None

    def via_exit(count: int) -> None:
        if count > 0:
            return als.exit(via_exit, count - 1)
        bottom.append(("exit", _library_frames(), als.get_store()))
        return None

    # Each level of bind nests Context.run, a C call into the interpreter; inside Pyodide
    # that uses the JavaScript stack, which holds a few hundred such levels.
    bind_depth = 200 if sys.platform == "emscripten" else depth

    def via_bind(count: int) -> None:
        if count > 0:
            return AsyncLocalStorage.bind(via_bind)(count - 1)
        bottom.append(("bind", _library_frames(), als.get_store()))
        return None

    old_limit = sys.getrecursionlimit()
    # Three Python frames per level at most, and CPython 3.11 also counts C-level calls
    # (Context.run, calls with *args) against the limit; the frames are counted below.
    sys.setrecursionlimit(max(old_limit, _stack_depth() + 8 * depth + 200))
    try:
        base = _library_frames()
        via_run(depth)
        als.enter_with(7)
        via_exit(depth)
        via_bind(bind_depth)
    finally:
        sys.setrecursionlimit(old_limit)
    assert [(name, store) for name, _, store in bottom] == [("run", 1), ("exit", None), ("bind", 7)]
    for name, frames, _ in bottom:
        levels = bind_depth if name == "bind" else depth
        assert levels <= frames - base <= 2 * levels, (name, frames - base)
    assert als.get_store() == 7


# --- TC39 AsyncContext proposal tests ----------------------------------------------------------


def scenario_tc39_initial_state_is_the_default() -> None:
    """A new Variable or storage reads its default (None unless given) outside any run."""
    assert Variable[int]().get() is None
    assert Variable[str]("v", default="d").get() == "d"
    assert AsyncLocalStorage[int]().get_store() is None
    assert AsyncLocalStorage[str](default_value="d").get_store() == "d"


def scenario_tc39_run_returns_the_function_result() -> None:
    """run returns what the function returns and passes positional and keyword arguments."""
    ctx = Variable[dict[str, int]]()
    expected = {"id": 1}
    assert ctx.run({"id": 2}, lambda: expected) is expected

    def echo(a: int, *, b: int) -> tuple[int, int, dict[str, int] | None]:
        return a, b, ctx.get()

    assert ctx.run({"id": 2}, echo, 1, b=2) == (1, 2, {"id": 2})


def scenario_tc39_get_within_nesting_runs() -> None:
    """get returns the innermost run's value and the outer one again after the inner run."""
    ctx = Variable[int]()

    def outer() -> None:
        assert ctx.get() == 1
        ctx.run(2, lambda: _expect(ctx.get() == 2))
        assert ctx.get() == 1

    ctx.run(1, outer)
    assert ctx.get() is None


def scenario_tc39_get_within_nesting_different_variables() -> None:
    """A run of one variable does not change another variable."""
    a, b = Variable[int]("a"), Variable[int]("b")

    def outer() -> None:
        assert (a.get(), b.get()) == (1, None)
        b.run(2, lambda: _expect((a.get(), b.get()) == (1, 2)))
        assert (a.get(), b.get()) == (1, None)

    a.run(1, outer)
    assert (a.get(), b.get()) == (None, None)


def scenario_tc39_wrap_stores_the_initial_state() -> None:
    """A function wrapped outside any run reads the default even when called inside a run."""
    ctx = Variable[int]()
    wrapped = Snapshot.wrap(ctx.get)
    assert ctx.run(1, wrapped) is None


def scenario_tc39_wrap_stores_the_current_state() -> None:
    """A function wrapped inside a run reads that run's value when called after the run."""
    ctx = Variable[int]()

    def make() -> Callable[[], int | None]:
        wrapped = Snapshot.wrap(ctx.get)
        assert wrapped() == 1
        assert ctx.get() == 1
        return wrapped

    wrapped = ctx.run(1, make)
    assert wrapped() == 1
    assert ctx.get() is None


def scenario_tc39_wrap_within_nesting_runs() -> None:
    """Functions wrapped in nested runs each read their own run's value wherever called."""
    ctx = Variable[int]()

    def first_level() -> tuple[Callable[[], None], Callable[[], None]]:
        first_wrap = Snapshot.wrap(lambda: _expect(ctx.get() == 1))
        first_wrap()

        def second_level() -> Callable[[], None]:
            def check_second() -> None:
                first_wrap()
                assert ctx.get() == 2

            second_wrap = Snapshot.wrap(check_second)
            first_wrap()
            second_wrap()
            assert ctx.get() == 2
            return second_wrap

        second_wrap = ctx.run(2, second_level)
        first_wrap()
        second_wrap()
        assert ctx.get() == 1
        return first_wrap, second_wrap

    first_wrap, second_wrap = ctx.run(1, first_level)
    first_wrap()
    second_wrap()
    assert ctx.get() is None


def scenario_tc39_wrap_within_nesting_different_variables() -> None:
    """A function wrapped under runs of three variables reads all three, whatever else wraps."""
    for stray_wrap_at in range(5):
        a, b, c = Variable[int]("a"), Variable[int]("b"), Variable[int]("c")

        def stray(level: int, at: int = stray_wrap_at) -> None:
            if level == at:
                Snapshot.wrap(lambda: None)

        def level_c(a: Variable[int] = a, b: Variable[int] = b, c: Variable[int] = c) -> Any:
            return Snapshot.wrap(lambda: _expect((a.get(), b.get(), c.get()) == (1, 2, 3)))

        def level_b(a: Variable[int] = a, b: Variable[int] = b, c: Variable[int] = c) -> Any:
            stray(1)
            wrap = c.run(3, level_c)
            stray(2)
            assert (a.get(), b.get(), c.get()) == (1, 2, None)
            return wrap

        def level_a(a: Variable[int] = a, b: Variable[int] = b, c: Variable[int] = c) -> Any:
            stray(0)
            wrap = b.run(2, level_b)
            stray(3)
            assert (a.get(), b.get(), c.get()) == (1, None, None)
            return wrap

        wrap = a.run(1, level_a)
        stray(4)
        assert (a.get(), b.get(), c.get()) == (None, None, None)
        wrap()
        assert (a.get(), b.get(), c.get()) == (None, None, None)


def scenario_tc39_wrap_out_of_order() -> None:
    """Wrapped functions from two runs can be called in any order and each reads its own value."""
    ctx = Variable[int]()
    first_wrap = ctx.run(1, lambda: Snapshot.wrap(lambda: _expect(ctx.get() == 1)))
    second_wrap = ctx.run(2, lambda: Snapshot.wrap(lambda: _expect(ctx.get() == 2)))
    first_wrap()
    second_wrap()
    first_wrap()
    second_wrap()
    assert ctx.get() is None


def scenario_tc39_runs_within_wrap() -> None:
    """Runs inside a wrapped function nest on the captured values and leave them as captured."""
    a, b = Variable[int]("a"), Variable[int]("b")

    def inside() -> tuple[Any, ...]:
        assert (a.get(), b.get()) == (1, 2)
        inner = a.run(3, lambda: b.run(4, lambda: (a.get(), b.get())))
        return inner, (a.get(), b.get())

    wrapped = a.run(1, lambda: b.run(2, lambda: Snapshot.wrap(inside)))
    assert a.run(10, wrapped) == ((3, 4), (1, 2))
    assert (a.get(), b.get()) == (None, None)


def scenario_tc39_snapshot_of_several_variables() -> None:
    """A Snapshot captures every variable at construction and restores them all in run."""
    a, b, c = Variable[str]("a"), Variable[str]("b", default="b0"), Variable[str]("c")
    snapshot = a.run("a1", lambda: b.run("b1", Snapshot))
    later = c.run("c1", snapshot.run, lambda: (a.get(), b.get(), c.get()))
    assert later == ("a1", "b1", None)
    assert (a.get(), b.get(), c.get()) == (None, "b0", None)


# --- run ----------------------------------------------------------------------------------------


def scenario_run_restores_only_its_own_storage() -> None:
    """run restores its own storage on return; another storage's enter_with inside survives."""
    mine, other = AsyncLocalStorage[str](name="mine"), AsyncLocalStorage[str](name="other")
    plain: contextvars.ContextVar[str] = contextvars.ContextVar("plain", default="before")

    def body() -> str:
        mine.enter_with("changed inside")
        other.enter_with("entered inside")
        plain.set("set inside")
        return "result"

    mine.enter_with("outer")
    assert mine.run("inner", body) == "result"
    assert mine.get_store() == "outer"
    assert other.get_store() == "entered inside"
    assert plain.get() == "set inside"


def scenario_run_restores_its_own_storage_on_error() -> None:
    """run restores its own storage when fn raises, and the exception passes unchanged."""
    mine, other = AsyncLocalStorage[str](), AsyncLocalStorage[str]()
    error = KeyError("k")

    def body() -> None:
        other.enter_with("entered inside")
        raise error

    mine.enter_with("outer")
    assert _raises(KeyError, mine.run, "inner", body) is error
    assert mine.get_store() == "outer"
    assert other.get_store() == "entered inside"


def scenario_run_nests_and_exit_inside_run_hides_the_store() -> None:
    """Nested runs of two storages and exit inside a run each restore what they changed."""
    a, b = AsyncLocalStorage[int](name="a"), AsyncLocalStorage[int](name="b", default_value=0)
    trace: list[tuple[int | None, int | None]] = []

    def record() -> None:
        trace.append((a.get_store(), b.get_store()))

    def level2() -> None:
        record()
        a.exit(record)
        record()
        b.exit(record)
        record()

    def level1() -> None:
        record()
        b.run(2, level2)
        record()

    a.run(1, level1)
    record()
    assert trace == [(1, 0), (1, 2), (None, 2), (1, 2), (1, 0), (1, 2), (1, 0), (None, 0)]


def scenario_run_accepts_any_store_value() -> None:
    """run sets falsy and mutable stores as they are, including None for no store."""
    als = AsyncLocalStorage[Any](default_value="default")
    stores: tuple[object, ...] = (0, "", False, [], {}, None)
    for store in stores:
        assert als.run(store, als.get_store) is store
    assert als.get_store() == "default"


async def scenario_sync_function_returning_a_coroutine_runs_wholly_under_run() -> None:
    """A coroutine returned by a plain function runs wholly with the store of run."""
    als = AsyncLocalStorage[str]()

    async def body() -> str | None:
        await asyncio.sleep(0)
        return als.get_store()

    result = als.run("s", lambda: body())
    assert isinstance(result, ContextCoroutine)
    assert isinstance(result, Coroutine)
    assert asyncio.iscoroutine(result)
    assert als.get_store() is None
    assert await result == "s"
    assert als.get_store() is None


def scenario_context_coroutine_close_and_throw_run_in_the_bound_context() -> None:
    """close() and throw() of a coroutine returned by run reach the coroutine with its store set."""
    als = AsyncLocalStorage[str]()
    seen: list[Any] = []

    class Suspend:
        def __await__(self) -> Any:
            yield None

    async def body() -> None:
        try:
            await Suspend()
            await Suspend()
        except ValueError as error:
            seen.append(("caught", str(error), als.get_store()))
            await Suspend()
        finally:
            seen.append(("finally", als.get_store()))

    coro = als.run("bound", body)
    coro.send(None)
    assert als.get_store() is None
    coro.throw(ValueError("thrown"))
    assert seen == [("caught", "thrown", "bound")]
    coro.close()
    assert seen == [("caught", "thrown", "bound"), ("finally", "bound")]
    assert als.get_store() is None


# --- async functions under every entry point ------------------------------------------------------


async def scenario_async_run_holds_the_store_for_the_whole_coroutine() -> None:
    """A coroutine under run keeps its store throughout, leaks nothing, passes errors."""
    als = AsyncLocalStorage[str](name="als")
    als.enter_with("outer")
    await _check_async_api(lambda body: als.run("inner", body), als.get_store, "inner")


async def scenario_async_exit_hides_the_store_for_the_whole_coroutine() -> None:
    """A coroutine under exit has no store throughout, leaks nothing, passes errors and cancels."""
    als = AsyncLocalStorage[str](name="als")
    als.enter_with("outer")
    await _check_async_api(lambda body: als.exit(body), als.get_store, None)


async def scenario_async_scope_holds_the_store_for_its_body() -> None:
    """A with or async with scope holds across awaits and restores the store, also on errors."""
    als = AsyncLocalStorage[str](name="als")
    als.enter_with("outer")

    async def in_async_scope(body: Body) -> Any:
        async with als.scope("inner"):
            return await body()

    async def in_sync_scope(body: Body) -> Any:
        with als.scope("inner"):
            return await body()

    await _check_async_api(in_async_scope, als.get_store, "inner", isolated=False)
    await _check_async_api(in_sync_scope, als.get_store, "inner", isolated=False)


async def scenario_async_variable_run_holds_the_value_for_the_whole_coroutine() -> None:
    """A coroutine under Variable.run keeps the value throughout, leaks nothing, passes errors."""
    var = Variable[str]("var", default="default")
    await _check_async_api(lambda body: var.run("inner", body), var.get, "inner")


async def scenario_async_snapshot_run_holds_the_captured_values_for_the_whole_coroutine() -> None:
    """A coroutine under Snapshot.run keeps the captured values throughout and leaks nothing."""
    var = Variable[str]("var")
    snapshot = var.run("captured", Snapshot)
    await _check_async_api(lambda body: snapshot.run(body), var.get, "captured")


async def scenario_async_bind_holds_the_captured_context_for_the_whole_coroutine() -> None:
    """A coroutine of a bound function keeps the captured store throughout and leaks nothing."""
    als = AsyncLocalStorage[str](name="als")
    als.enter_with("outer")

    def call(body: Body) -> Coroutine[Any, Any, Any]:
        return body()

    bound = als.run("captured", AsyncLocalStorage.bind, call)
    await _check_async_api(bound, als.get_store, "captured")


async def scenario_async_snapshot_runner_holds_the_captured_context_for_the_whole_coroutine() -> (
    None
):
    """A coroutine run by a snapshot() runner keeps the captured store throughout, leaks nothing."""
    als = AsyncLocalStorage[str](name="als")
    als.enter_with("outer")
    runner = als.run("captured", AsyncLocalStorage.snapshot)
    await _check_async_api(lambda body: runner(body), als.get_store, "captured")


async def scenario_async_run_returns_a_context_coroutine() -> None:
    """run, exit, Variable.run, Snapshot.run, bind and snapshot return a ContextCoroutine."""
    als = AsyncLocalStorage[str]()
    var = Variable[str]()

    async def body() -> str:
        return "done"

    made = [
        als.run("s", body),
        als.exit(body),
        var.run("v", body),
        Snapshot().run(body),
        AsyncLocalStorage.bind(body)(),
        AsyncLocalStorage.snapshot()(body),
    ]
    for coro in made:
        assert isinstance(coro, ContextCoroutine)
        assert "body" in repr(coro)
    assert await asyncio.gather(*made) == ["done"] * len(made)


# --- enter_with -----------------------------------------------------------------------------------


async def scenario_enter_with_holds_for_the_rest_of_the_task_and_what_it_schedules() -> None:
    """enter_with holds for the rest of the task and for the callbacks and tasks it schedules."""
    als = AsyncLocalStorage[str]()
    loop = asyncio.get_running_loop()
    seen: dict[str, Any] = {}
    timer_done = loop.create_future()

    def sync_part() -> asyncio.Task[Any]:
        als.enter_with("entered")
        seen["same function"] = als.get_store()
        loop.call_soon(lambda: seen.__setitem__("call_soon", als.get_store()))

        def timer() -> None:
            seen["call_later"] = als.get_store()
            timer_done.set_result(None)

        loop.call_later(0.001, timer)
        return asyncio.create_task(_read_after_sleep(als.get_store))

    task = sync_part()
    seen["caller after call"] = als.get_store()
    seen["task"] = await task
    await asyncio.sleep(0)
    seen["after await"] = als.get_store()
    await timer_done
    assert seen == dict.fromkeys(
        [
            "same function",
            "call_soon",
            "call_later",
            "caller after call",
            "task",
            "after await",
        ],
        "entered",
    )


async def scenario_enter_with_does_not_leak_into_an_awaiting_caller_in_another_task() -> None:
    """enter_with in a task, awaited or gathered, is never seen by the caller's task."""
    als = AsyncLocalStorage[str]()
    als.enter_with("caller")

    async def worker(name: str) -> str | None:
        als.enter_with(name)
        await asyncio.sleep(0)
        return als.get_store()

    assert await asyncio.create_task(worker("task")) == "task"
    assert als.get_store() == "caller"
    assert list(await asyncio.gather(worker("g1"), worker("g2"))) == ["g1", "g2"]
    assert als.get_store() == "caller"
    assert await asyncio.wait_for(asyncio.ensure_future(worker("w")), timeout=60) == "w"
    assert als.get_store() == "caller"


async def scenario_directly_awaited_coroutine_shares_the_callers_context() -> None:
    """Unlike Node, a directly awaited coroutine shares its caller's context; run isolates it."""
    als = AsyncLocalStorage[str]()

    async def helper() -> None:
        als.enter_with("inner")

    await helper()
    assert als.get_store() == "inner"  # in Node the caller would still see its own store

    als.enter_with("outer")
    await als.run("other", helper)
    assert als.get_store() == "outer"
    await asyncio.create_task(helper())
    assert als.get_store() == "outer"


# --- disable --------------------------------------------------------------------------------------


def scenario_disable_returns_the_default_until_the_next_run_or_enter_with() -> None:
    """After disable get_store returns the default, run and enter_with set stores again."""
    als = AsyncLocalStorage[str](default_value="default")
    als.enter_with("entered")
    als.disable()
    assert als.get_store() == "default"
    assert als.run("run", als.get_store) == "run"
    assert als.get_store() == "default"
    als.enter_with("again")
    assert als.get_store() == "again"


def scenario_disable_leaves_other_storages_untouched() -> None:
    """disable of one storage keeps the stores of other storages and variables."""
    a, b = AsyncLocalStorage[str](), AsyncLocalStorage[str]()
    var = Variable[str]()

    def body() -> None:
        a.enter_with("a")
        b.enter_with("b")
        a.disable()
        assert a.get_store() is None
        assert b.get_store() == "b"
        assert var.get() == "v"

    var.run("v", body)


def scenario_disable_inside_run_ends_with_the_run() -> None:
    """disable inside run lasts until the run returns, and the outer store is back afterwards."""
    als = AsyncLocalStorage[str]()
    als.enter_with("outer")

    def body() -> None:
        als.disable()
        assert als.get_store() is None

    als.run("inner", body)
    assert als.get_store() == "outer"


async def scenario_disable_does_not_affect_other_tasks() -> None:
    """disable in one task leaves the store of a concurrent task alone."""
    als = AsyncLocalStorage[str]()
    disabled = asyncio.Event()

    async def disabler() -> str | None:
        als.disable()
        disabled.set()
        return als.get_store()

    async def reader() -> str | None:
        await disabled.wait()
        return als.get_store()

    results = await asyncio.gather(als.run("r", reader), als.run("d", disabler))
    assert list(results) == ["r", None]


# --- bind, snapshot, Snapshot ---------------------------------------------------------------------


def _capture_everything() -> tuple[AsyncLocalStorage[str], Variable[str], Any, list[Any]]:
    """Set a storage, a Variable and a plain ContextVar, and capture with every capturing API."""
    als = AsyncLocalStorage[str]()
    var = Variable[str]()
    plain: contextvars.ContextVar[str] = contextvars.ContextVar("plain", default="plain default")

    def read() -> tuple[str | None, str | None, str]:
        return als.get_store(), var.get(), plain.get()

    def capture() -> list[Callable[[], Any]]:
        plain.set("plain captured")
        bound = AsyncLocalStorage.bind(read)
        runner = AsyncLocalStorage.snapshot()
        snapshot = Snapshot()
        wrapped = Snapshot.wrap(read)
        return [bound, lambda: runner(read), lambda: snapshot.run(read), wrapped]

    def captured() -> list[Callable[[], Any]]:
        return als.run("als captured", var.run, "var captured", capture)

    callers = contextvars.copy_context().run(captured)
    return als, var, plain, callers


def scenario_capture_includes_every_storage_variable_and_contextvar() -> None:
    """bind, snapshot, Snapshot and wrap capture every storage, Variable and plain ContextVar."""
    als, var, plain, callers = _capture_everything()
    als.enter_with("now")
    plain.set("plain now")
    for call in callers:
        assert var.run("var now", call) == ("als captured", "var captured", "plain captured")
    assert (als.get_store(), var.get(), plain.get()) == ("now", None, "plain now")


def scenario_captured_calls_each_run_in_a_fresh_copy() -> None:
    """What one call of a bound function or snapshot sets is not seen by the next or the caller."""
    als = AsyncLocalStorage[int]()
    plain: contextvars.ContextVar[int] = contextvars.ContextVar("plain", default=0)

    def bump() -> tuple[int | None, int]:
        seen = (als.get_store(), plain.get())
        als.enter_with((als.get_store() or 0) + 1)
        plain.set(plain.get() + 1)
        return seen

    bound = als.run(10, AsyncLocalStorage.bind, bump)
    runner = als.run(10, AsyncLocalStorage.snapshot)
    snapshot = als.run(10, Snapshot)
    for call in (bound, lambda: runner(bump), lambda: snapshot.run(bump)):
        assert [call(), call(), call()] == [(10, 0)] * 3
    assert (als.get_store(), plain.get()) == (None, 0)


def scenario_captured_functions_can_call_themselves_reentrantly() -> None:
    """A bound function, a snapshot runner and Snapshot.run can call themselves re-entrantly."""
    als = AsyncLocalStorage[str]()
    bound_calls: list[Any] = []

    def bound_recurse(n: int) -> int:
        bound_calls.append(als.get_store())
        als.enter_with(f"level {n}")
        return n if n == 0 else bound(n - 1) + n

    bound = als.run("captured", AsyncLocalStorage.bind, bound_recurse)
    assert bound(5) == 15
    assert bound_calls == ["captured"] * 6

    runner = als.run("captured", AsyncLocalStorage.snapshot)
    snapshot = als.run("captured", Snapshot)
    for call in (runner, snapshot.run):

        def recurse(n: int, call: Any = call) -> list[str | None]:
            here = als.get_store()
            als.enter_with(f"level {n}")
            return [here] if n == 0 else [here, *call(recurse, n - 1)]

        assert call(recurse, 3) == ["captured"] * 4


def scenario_bind_of_a_non_callable_raises_type_error() -> None:
    """bind(42) raises TypeError naming the type, and Snapshot.wrap(42) too."""
    error = _raises(TypeError, AsyncLocalStorage.bind, 42)
    assert "int" in str(error)
    assert "callable" in str(error)
    _raises(TypeError, Snapshot.wrap, 42)


def scenario_bind_keeps_the_function_metadata() -> None:
    """A bound function keeps the name, docstring and __wrapped__ of the original."""

    def original() -> None:
        """Doc of the original."""

    bound = AsyncLocalStorage.bind(original)
    assert bound.__name__ == "original"
    assert bound.__doc__ == "Doc of the original."
    # bind() sets __wrapped__, which the Callable it returns does not declare.
    assert bound.__wrapped__ is original  # type: ignore[attr-defined]


# --- memory ---------------------------------------------------------------------------------------


def scenario_ten_thousand_dropped_storages_are_freed() -> None:
    """10,000 storages and variables, used and then dropped, are all freed."""
    refs: list[weakref.ref[Any]] = []
    for i in range(10_000):
        storage = AsyncLocalStorage[int](name=f"s{i}")
        assert storage.run(i, storage.get_store) == i
        variable = Variable[int](f"v{i}")
        assert variable.run(i, variable.get) == i
        refs.append(weakref.ref(storage))
        refs.append(weakref.ref(variable))
    del storage, variable
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    assert alive == 0, f"{alive} of {len(refs)} are still alive"


def scenario_a_store_is_freed_once_no_context_holds_it() -> None:
    """A store is freed once its run returns, or after disable where it was entered."""

    class Store:
        pass

    als = AsyncLocalStorage[Store]()
    store = Store()
    ref = weakref.ref(store)
    als.run(store, lambda: None)
    del store
    assert als.get_store() is None
    gc.collect()
    assert ref() is None

    entered = Store()
    entered_ref = weakref.ref(entered)
    als.enter_with(entered)
    del entered
    als.disable()
    assert als.get_store() is None
    gc.collect()
    assert entered_ref() is None


# --- errors ---------------------------------------------------------------------------------------


def scenario_require_store_outside_a_run_names_the_operation_and_the_storage() -> None:
    """require_store outside a run raises ContextMissingError naming the operation and storage."""
    als = AsyncLocalStorage[str](name="session")
    error = _raises(ContextMissingError, als.require_store, "load user")
    assert isinstance(error, ContextMissingError)
    assert isinstance(error, LookupError)
    assert isinstance(error, PyctxError)
    assert "load user" in str(error)
    assert "session" in str(error)
    assert error.operation == "load user"
    assert error.source == "session"
    assert als.run("s", als.require_store, "load user") == "s"
    assert isinstance(_raises(LookupError, als.exit, als.require_store), ContextMissingError)


def scenario_require_store_of_an_unnamed_storage_still_says_what_is_missing() -> None:
    """require_store of an unnamed storage names the default operation and AsyncLocalStorage."""
    error = _raises(ContextMissingError, AsyncLocalStorage[int]().require_store)
    assert "this operation" in str(error)
    assert "AsyncLocalStorage" in str(error)


def scenario_storage_name_and_repr() -> None:
    """Storages and variables keep their name and show it with the current store in repr."""
    als = AsyncLocalStorage[str](name="request", default_value="none")
    assert als.name == "request"
    assert als.default_value == "none"
    assert "request" in repr(als)
    assert "'current'" in als.run("current", repr, als)
    var = Variable[int]("counter")
    assert var.name == "counter"
    assert "counter" in repr(var)


# --- ExecutionContext ----------------------------------------------------------------------------


def scenario_execution_context_of_builds_from_a_mapping_and_keywords() -> None:
    """ExecutionContext.of copies a mapping and adds keywords, which win on a clash."""
    source = {"tenant_id": "t1", "x": 1}
    ctx = ExecutionContext.of(source, x=2, user_id="u1")
    source["x"] = 99
    assert dict(ctx) == {"tenant_id": "t1", "x": 2, "user_id": "u1"}
    assert ExecutionContext.of() == ExecutionContext()
    assert len(ExecutionContext.of()) == 0
    assert ExecutionContext.of(mapping=1)["mapping"] == 1
    _raises(TypeError, ExecutionContext.of, [("a", 1)])
    _raises(TypeError, ExecutionContext.of, {1: "not a str key"})


def scenario_execution_context_get_and_get_as() -> None:
    """get returns the value or the default, get_as the value only when it has the asked type."""
    ctx = ExecutionContext.of(count=3, name="n", flag=None)
    assert ctx.get("count") == 3
    assert ctx.get("missing") is None
    assert ctx.get("missing", "fallback") == "fallback"
    assert ctx["name"] == "n"
    assert "flag" in ctx
    assert "missing" not in ctx
    _raises(KeyError, lambda: ctx["missing"])
    assert ctx.get_as("count", int) == 3
    assert ctx.get_as("count", str) is None
    assert ctx.get_as("missing", int) is None
    assert ctx.get_as("name", str) == "n"


def scenario_execution_context_well_known_properties() -> None:
    """tenant_id, user_id and correlation_id return the str values of their keys, else None."""
    ctx = ExecutionContext.of(tenant_id="t", user_id="u", correlation_id="c")
    assert (ctx.tenant_id, ctx.user_id, ctx.correlation_id) == ("t", "u", "c")
    empty = ExecutionContext.of()
    assert (empty.tenant_id, empty.user_id, empty.correlation_id) == (None, None, None)
    assert ExecutionContext.of(tenant_id=7).tenant_id is None


def scenario_execution_context_plus_returns_new_instances() -> None:
    """plus and plus_all return new contexts and never change the original."""
    original = ExecutionContext.of(tenant_id="t1")
    added = original.plus("user_id", "u1")
    replaced = original.plus("tenant_id", "t2")
    merged = original.plus_all({"user_id": "u2", "correlation_id": "c"})
    assert dict(original) == {"tenant_id": "t1"}
    assert dict(added) == {"tenant_id": "t1", "user_id": "u1"}
    assert replaced.tenant_id == "t2"
    assert dict(merged) == {"tenant_id": "t1", "user_id": "u2", "correlation_id": "c"}
    assert added is not original
    assert merged is not original
    _raises(TypeError, original.plus_all, [("a", 1)])
    _raises(TypeError, original.plus, 1, "not a str key")


def scenario_execution_context_to_dict_is_a_new_plain_dict() -> None:
    """to_dict returns a new plain dict whose changes do not reach the context."""
    ctx = ExecutionContext.of(a=1)
    data = ctx.to_dict()
    assert type(data) is dict
    assert data == {"a": 1}
    data["a"] = 2
    assert ctx["a"] == 1
    assert ctx.to_dict() is not ctx.to_dict()


def scenario_execution_context_equality_and_hash_by_value() -> None:
    """Contexts with the same items are equal and hash alike, whatever the insertion order."""
    one = ExecutionContext.of(a=1, b="x")
    two = ExecutionContext.of({"b": "x"}, a=1)
    assert one == two
    assert hash(one) == hash(two)
    assert len({one, two}) == 1
    assert one != ExecutionContext.of(a=2, b="x")
    assert one != ExecutionContext.of(a=1)
    assert one != "not a context"


def scenario_execution_context_is_immutable() -> None:
    """Setting or deleting items or attributes raises TypeError saying immutable and naming plus."""
    ctx = ExecutionContext.of(x=0)

    def set_item() -> None:
        ctx["x"] = 1

    def del_item() -> None:
        del ctx["x"]

    def set_attr() -> None:
        ctx.x = 1

    def del_attr() -> None:
        del ctx._values

    def set_values() -> None:
        ctx._values = {}

    for mutate in (set_item, del_item, set_attr, del_attr, set_values):
        message = str(_raises(TypeError, mutate))
        assert "immutable" in message
        assert "plus" in message
    assert dict(ctx) == {"x": 0}


def scenario_current_and_require_execution_context_outside_any() -> None:
    """Outside any execution context the getters return None and require_ raises."""
    assert current_execution_context() is None
    assert get_current_tenant_id() is None
    assert get_current_user_id() is None
    assert get_current_correlation_id() is None
    error = _raises(ContextMissingError, require_execution_context)
    assert "require_execution_context()" in str(error)
    assert "execution_context" in str(error)


def scenario_with_execution_context_merges_a_mapping_and_keywords() -> None:
    """A mapping or keywords merge onto the current execution context for the block."""
    with with_execution_context(tenant_id="t1", user_id="u1") as outer:
        assert require_execution_context() is outer
        assert get_current_tenant_id() == "t1"
        with with_execution_context({"user_id": "u2"}, correlation_id="c") as inner:
            assert inner == ExecutionContext.of(tenant_id="t1", user_id="u2", correlation_id="c")
            assert current_execution_context() is inner
            assert get_current_user_id() == "u2"
            assert get_current_correlation_id() == "c"
        assert current_execution_context() is outer
    assert current_execution_context() is None
    with with_execution_context() as empty:
        assert empty == ExecutionContext()


def scenario_with_execution_context_replaces_with_an_execution_context() -> None:
    """An ExecutionContext replaces the current one, with keywords added to it."""
    with with_execution_context(tenant_id="t1", user_id="u1"):
        replacement = ExecutionContext.of(tenant_id="t2")
        with with_execution_context(replacement) as ctx:
            assert ctx is replacement
            assert get_current_user_id() is None
        with with_execution_context(replacement, correlation_id="c") as ctx:
            assert dict(ctx) == {"tenant_id": "t2", "correlation_id": "c"}
        assert get_current_tenant_id() == "t1"
    # An int, neither an ExecutionContext nor a mapping, is the bad input under test.
    _raises(TypeError, lambda: with_execution_context(42).__enter__())  # type: ignore[arg-type]


def scenario_with_execution_context_restores_on_error() -> None:
    """The previous execution context is back when the block raises, and the error passes."""
    error = RuntimeError("in block")

    def fail_inside() -> None:
        with with_execution_context(tenant_id="inner"):
            raise error

    with with_execution_context(tenant_id="outer"):
        assert _raises(RuntimeError, fail_inside) is error
        assert get_current_tenant_id() == "outer"
    assert current_execution_context() is None


async def scenario_execution_contexts_of_concurrent_operations_are_isolated() -> None:
    """Concurrent operations each see only their own execution context, and none remains."""
    rng = random.Random(3)
    delays = [rng.uniform(0, 0.002) for _ in range(100)]

    async def operation(i: int) -> None:
        with with_execution_context(tenant_id=f"t{i}", user_id=f"u{i}") as ctx:
            await asyncio.sleep(delays[i])
            assert get_current_tenant_id() == f"t{i}"
            derived = ctx.plus("step", i)
            assert derived["step"] == i
            assert "step" not in require_execution_context()
            await asyncio.sleep(delays[-1 - i])
            assert require_execution_context() is ctx
            assert get_current_user_id() == f"u{i}"
        assert current_execution_context() is None

    await asyncio.gather(*(operation(i) for i in range(100)))
    assert current_execution_context() is None


# --- concurrency ----------------------------------------------------------------------------------


async def _gather_many_runs(order: str, count: int = 1000, seed: int = 1) -> None:
    """Gather ``count`` runs with random tiny sleeps finishing in ``order``; check every store."""
    als = AsyncLocalStorage[tuple[str, int]](name="request")
    rng = random.Random(seed)
    sleeps = [(rng.uniform(0, 0.002), rng.uniform(0, 0.002)) for _ in range(count)]
    finished = [asyncio.Event() for _ in range(count)]
    completion: list[int] = []

    async def request(i: int) -> int:
        mine = ("request", i)
        assert als.get_store() == mine
        await asyncio.sleep(sleeps[i][0])
        assert als.get_store() == mine
        assert await asyncio.create_task(_read_after_sleep(als.get_store)) == mine
        await asyncio.sleep(sleeps[i][1])
        assert als.get_store() == mine
        previous = i - 1 if order == "fifo" else i + 1
        if 0 <= previous < count:
            await finished[previous].wait()
        assert als.get_store() == mine
        completion.append(i)
        finished[i].set()
        return i

    results = await asyncio.gather(*(als.run(("request", i), request, i) for i in range(count)))
    assert results == list(range(count))
    expected = list(range(count)) if order == "fifo" else list(reversed(range(count)))
    assert completion == expected
    assert als.get_store() is None


async def scenario_gather_of_1000_runs_finishing_first_in_first_out() -> None:
    """1,000 gathered runs with random sleeps, finishing in order, read only their own store."""
    await _gather_many_runs("fifo")


async def scenario_gather_of_1000_runs_finishing_in_reverse_order() -> None:
    """1,000 gathered runs with random sleeps, finishing in reverse, read only their own store."""
    await _gather_many_runs("reversed")
