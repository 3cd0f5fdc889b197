"""Property tests of the context store against a small reference model of its semantics.

A program is a list of operations on three storages: ``run``/``exit`` (of a
synchronous block, or awaited with an asynchronous one), ``enter_with``,
``disable``, ``bind`` (its bound block called twice, at once or at the end of
the enclosing block), ``task`` (an interleaved task running a block) and
``yield`` (an ``await asyncio.sleep(0)`` that lets the tasks interleave). After
every operation the interpreter records the three stores under the operation's
path; the model computes the same records from plain lists:

* a synchronous ``run``/``exit`` sets one storage and restores only that one;
* an awaited asynchronous ``run``/``exit``, a ``task`` and every call of a bound
  block run in a copy of the values, so nothing they set comes back;
* ``enter_with`` and ``disable`` change the current values.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyctx_web import AsyncLocalStorage, ExecutionContext

DEFAULTS: tuple[Any, ...] = (None, None, "default")
Op = tuple[Any, ...]
Records = dict[str, list[tuple[Any, ...]]]


# --- programs ------------------------------------------------------------------------------------

storages = st.integers(0, len(DEFAULTS) - 1)
values = st.integers(0, 2)


def blocks(depth: int, is_async: bool) -> st.SearchStrategy[list[Op]]:
    """Lists of operations; ``is_async`` blocks may await."""
    options: list[st.SearchStrategy[Op]] = [
        st.tuples(st.just("enter"), storages, values),
        st.tuples(st.just("disable"), storages),
    ]
    if is_async:
        options.append(st.just(("yield",)))
    if depth > 0:
        sync_body = blocks(depth - 1, False)
        async_body = blocks(depth - 1, True)
        options += [
            st.tuples(st.just("run"), storages, values, sync_body, st.just(False)),
            st.tuples(st.just("exit"), storages, sync_body, st.just(False)),
            st.tuples(st.just("bind"), sync_body, st.just(False), st.booleans()),
            st.tuples(st.just("task"), async_body),
        ]
        if is_async:
            options += [
                st.tuples(st.just("run"), storages, values, async_body, st.just(True)),
                st.tuples(st.just("exit"), storages, async_body, st.just(True)),
                st.tuples(st.just("bind"), async_body, st.just(True), st.booleans()),
            ]
    return st.lists(st.one_of(options), max_size=5)


programs = blocks(3, True)


# --- the implementation, driven by a program ------------------------------------------------------


class Interpreter:
    """Runs a program on real storages and records their stores after every operation."""

    def __init__(self) -> None:
        self.storages = [
            AsyncLocalStorage[Any](name=f"s{i}", default_value=default)
            for i, default in enumerate(DEFAULTS)
        ]
        self.records: Records = defaultdict(list)
        self.tasks: list[asyncio.Future[None]] = []

    def read(self) -> tuple[Any, ...]:
        return tuple(storage.get_store() for storage in self.storages)

    def _sync_op(self, op: Op, path: str, pending: list[Callable[[], Any]]) -> bool:
        """Perform ``op`` when it needs no await; return whether it did."""
        kind = op[0]
        if kind == "enter":
            self.storages[op[1]].enter_with(op[2])
        elif kind == "disable":
            self.storages[op[1]].disable()
        elif kind == "task":
            self.tasks.append(asyncio.ensure_future(self.run_async(op[1], path)))
        elif kind == "run" and not op[4]:
            self.storages[op[1]].run(op[2], self.run_sync, op[3], path)
        elif kind == "exit" and not op[3]:
            self.storages[op[1]].exit(self.run_sync, op[2], path)
        elif kind == "bind" and not op[2]:
            bound = AsyncLocalStorage.bind(self.run_sync)

            def call_twice(body: list[Op] = op[1], bound: Callable[..., Any] = bound) -> None:
                for k in range(2):
                    bound(body, f"{path}#{k}")

            (pending.append if op[3] else lambda call: call())(call_twice)
        else:
            return False
        return True

    def run_sync(self, ops: list[Op], path: str) -> None:
        pending: list[Callable[[], Any]] = []
        for i, op in enumerate(ops):
            here = f"{path}.{i}"
            handled = self._sync_op(op, here, pending)
            assert handled, op
            self.records[here].append(self.read())
        for call in pending:
            call()
        self.records[f"{path}.end"].append(self.read())

    async def run_async(self, ops: list[Op], path: str) -> None:
        pending: list[Callable[[], Any]] = []
        for i, op in enumerate(ops):
            here = f"{path}.{i}"
            if not self._sync_op(op, here, pending):
                kind = op[0]
                if kind == "yield":
                    await asyncio.sleep(0)
                elif kind == "run":
                    await self.storages[op[1]].run(op[2], self.run_async, op[3], here)
                elif kind == "exit":
                    await self.storages[op[1]].exit(self.run_async, op[2], here)
                elif kind == "bind":
                    bound = AsyncLocalStorage.bind(self.run_async)

                    async def call_twice(
                        body: list[Op] = op[1], at: str = here, bound: Any = bound
                    ) -> None:
                        for k in range(2):
                            await bound(body, f"{at}#{k}")

                    if op[3]:
                        pending.append(call_twice)
                    else:
                        await call_twice()
                else:
                    raise AssertionError(op)
            self.records[here].append(self.read())
        for call in pending:
            result = call()
            if inspect.isawaitable(result):
                await result
        self.records[f"{path}.end"].append(self.read())

    async def main(self, program: list[Op]) -> tuple[Any, ...]:
        await self.run_async(program, "main")
        while self.tasks:
            await self.tasks.pop(0)
        return self.read()


# --- the reference model -------------------------------------------------------------------------


class Model:
    """Computes the records of a program from plain lists of values."""

    def __init__(self) -> None:
        self.records: Records = defaultdict(list)

    def run(self, ops: list[Op], path: str, env: list[Any]) -> None:
        pending: list[Callable[[], None]] = []
        for i, op in enumerate(ops):
            here = f"{path}.{i}"
            kind = op[0]
            if kind == "enter":
                env[op[1]] = op[2]
            elif kind == "disable":
                env[op[1]] = DEFAULTS[op[1]]
            elif kind == "task":
                self.run(op[1], here, list(env))
            elif kind in ("run", "exit"):
                index = op[1]
                value = op[2] if kind == "run" else DEFAULTS[index]
                body, is_async = (op[3], op[4]) if kind == "run" else (op[2], op[3])
                if is_async:
                    inner = list(env)
                    inner[index] = value
                    self.run(body, here, inner)
                else:
                    previous = env[index]
                    env[index] = value
                    self.run(body, here, env)
                    env[index] = previous
            elif kind == "bind":
                captured = list(env)

                def call_twice(
                    body: list[Op] = op[1], at: str = here, seen: Any = captured
                ) -> None:
                    for k in range(2):
                        self.run(body, f"{at}#{k}", list(seen))

                if op[3]:
                    pending.append(call_twice)
                else:
                    call_twice()
            self.records[here].append(tuple(env))
        for call in pending:
            call()
        self.records[f"{path}.end"].append(tuple(env))


# --- properties ----------------------------------------------------------------------------------


@settings(
    max_examples=500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(programs)
def test_random_programs_match_the_reference_model(program: list[Op]) -> None:
    """Each store read in random run/exit/enter_with/disable/bind/task programs fits the model."""
    interpreter = Interpreter()
    final = asyncio.run(interpreter.main(program))

    model = Model()
    env = list(DEFAULTS)
    model.run(program, "main", env)

    assert dict(interpreter.records) == dict(model.records)
    assert final == tuple(env)
    assert interpreter.read() == DEFAULTS


@settings(max_examples=100, deadline=None, database=None)
@given(
    st.one_of(
        st.none(),
        st.integers(),
        st.text(),
        st.booleans(),
        st.lists(st.integers()),
        st.dictionaries(st.text(), st.integers()),
    )
)
def test_bind_rejects_every_non_callable(value: Any) -> None:
    """bind raises TypeError for any non-callable value."""
    try:
        AsyncLocalStorage.bind(value)
    except TypeError as error:
        message = str(error)
    else:
        message = ""
    assert message == f"bind() argument must be callable, not {type(value).__name__!r}"


items = st.dictionaries(
    st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8), st.none()), max_size=6
)


@settings(max_examples=200, deadline=None, database=None)
@given(items, st.text(max_size=8), st.integers())
def test_plus_returns_a_new_context_and_never_changes_the_original(
    values: dict[str, Any], key: str, value: int
) -> None:
    """plus and plus_all return the merged values and leave the original context as it was."""
    original = ExecutionContext.of(values)
    before = original.to_dict()
    assert dict(original.plus(key, value)) == {**values, key: value}
    assert dict(original.plus_all({key: value})) == {**values, key: value}
    assert original.to_dict() == before == values


@settings(max_examples=200, deadline=None, database=None)
@given(items)
def test_contexts_with_the_same_items_are_equal_and_hash_alike(values: dict[str, Any]) -> None:
    """Contexts built from the same items in any order are equal and have equal hashes."""
    forward = ExecutionContext.of(values)
    backward = ExecutionContext.of(dict(reversed(list(values.items()))))
    assert forward == backward
    assert hash(forward) == hash(backward)
