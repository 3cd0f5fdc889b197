"""The sync forms of a compiled graph's methods: ``invoke``, ``stream``, ``get_state``...

On CPython they run the async forms to completion in a fresh event loop. Where
an event loop already runs in this thread (a notebook, an async function, a
node or a tool of a running graph calling a graph's ``invoke``), that loop is
hidden while the fresh one runs, in this thread and in the caller's context, and
waits as on any blocking call (as LangGraph's sync forms block it). In Pyodide
the browser owns the event loop: they run the async forms as tasks of Pyodide's
loop and block on them with ``pyodide.ffi.run_sync``. That needs JavaScript
Promise Integration (JSPI, as in Chromium) and a call stack that entered Python
through an async entry (``pyodide.runPythonAsync``, an async function,
``callPromising``); where ``pyodide.ffi.can_run_sync()`` says no, they raise
SyncUnavailableError naming the async form. :func:`in_sync_form` tells code the
run calls (a node given both a sync and an async form, as LangChain's agents
give them) that a sync form runs it.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterator, Sequence
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

from pyctx_web._env import IN_PYODIDE
from pyctx_web.graph._engine.frames import current_task
from pyctx_web.graph._engine.options import next_item, stream_modes
from pyctx_web.graph._engine.sync_form import SYNC_FORM, without_loop
from pyctx_web.graph.errors import SyncUnavailableError

__all__ = ["in_sync_form", "run_sync", "stream_sync"]

T = TypeVar("T")

_RunSync = Callable[[Awaitable[Any]], Any]


def in_sync_form() -> bool:
    """Whether the graph call running here is a sync form (``invoke``, ``stream``...).

    As in LangGraph, a node given both forms runs its sync one under ``invoke``
    and its async one under ``ainvoke``.
    """
    return SYNC_FORM.get()


async def _as_sync_form(coro: Awaitable[T]) -> T:
    """Await ``coro`` in the context of a sync form (set in the task's own context)."""
    SYNC_FORM.set(True)
    return await coro


class _Runner(Protocol):
    """What the sync forms need of :class:`asyncio.Runner`: ``run`` within ``with``."""

    def __enter__(self) -> _Runner: ...

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def run(self, coro: Coroutine[Any, Any, T]) -> T: ...


class _ContextRunner:
    """Base of the runners below: one context, copied from the caller's, for its life.

    As with ``asyncio.Runner``, a stream's steps then see what the earlier ones
    set. Entering and leaving hold nothing.
    """

    def __init__(self) -> None:
        self._context = contextvars.copy_context()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class _PyodideRunner(_ContextRunner):
    """:class:`asyncio.Runner` for Pyodide: coroutines run as tasks of Pyodide's event loop.

    This call stack waits for each through ``pyodide.ffi.run_sync``.
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        # Asked at each step: a stream may be iterated from another call stack than its call's.
        run_sync = _pyodide_run_sync()
        if run_sync is None:
            coro.close()
            raise _unavailable_in_pyodide(self._name)
        task = asyncio.get_event_loop().create_task(coro, context=self._context)
        result: T = run_sync(task)
        return result


def _pyodide_run_sync() -> _RunSync | None:
    """``pyodide.ffi.run_sync`` when this call stack can block on an awaitable, else None."""
    try:
        import pyodide.ffi as ffi
    except ImportError:  # IN_PYODIDE set by hand on CPython
        return None
    can_run_sync = getattr(ffi, "can_run_sync", None)
    if can_run_sync is None or not can_run_sync():
        return None
    run_sync: _RunSync = ffi.run_sync
    return run_sync


def _why_not_in_pyodide() -> str:
    """Why ``pyodide.ffi.run_sync`` cannot run here: the runtime, or how Python was entered."""
    try:
        import js

        jspi = any(hasattr(js.WebAssembly, name) for name in ("Suspending", "Suspender"))
    except ImportError:
        jspi = False
    if not jspi:
        return (
            "this JavaScript runtime has no JavaScript Promise Integration (JSPI), "
            "which pyodide.ffi.run_sync needs"
        )
    return (
        "pyodide.ffi.run_sync needs a call that entered Python through "
        "pyodide.runPythonAsync, an async function or callPromising (not pyodide.runPython)"
    )


def _unavailable_in_pyodide(name: str) -> SyncUnavailableError:
    return SyncUnavailableError(
        f"{name}() is not available in Pyodide here: {_why_not_in_pyodide()}; "
        f"use `await graph.a{name}(...)`"
    )


class _LoopRunner(_ContextRunner):
    """:class:`asyncio.Runner` on CPython, hiding a loop that runs in this thread (nested).

    A nested runner leaves alone the event loop set for this thread (the caller's).
    """

    def __init__(self, nested: bool) -> None:
        super().__init__()
        self._runner = asyncio.Runner(loop_factory=asyncio.new_event_loop if nested else None)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        without_loop(self._runner.close)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        result: T = without_loop(self._runner.run, coro, context=self._context)
        return result


def _runner(name: str) -> _Runner:
    """A runner for the sync form ``name``, or SyncUnavailableError naming the async form."""
    if IN_PYODIDE:
        if _pyodide_run_sync() is None:
            raise _unavailable_in_pyodide(name)
        return _PyodideRunner(name)
    # In a node (its loop hidden) or under a running loop, the run is nested in another.
    nested = asyncio._get_running_loop() is not None or current_task.get_store() is not None
    return _LoopRunner(nested)


def run_sync(name: str, coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end for the sync form ``name`` of a compiled graph's method."""
    try:
        runner = _runner(name)
    except SyncUnavailableError:
        coro.close()
        raise
    with runner:
        return runner.run(_as_sync_form(coro))


def stream_sync(
    stream_mode: str | Sequence[str], chunks: Callable[[], AsyncGenerator[Any, None]]
) -> Iterator[Any]:
    """The sync form of a stream: each chunk of ``chunks()`` comes as the run reaches it.

    The run goes on only when the next chunk is asked for, so what nodes print
    interleaves with the chunks as the steps happen. The runner and the modes
    are checked at the call, before the first chunk is asked for.
    """
    runner = _runner("stream")
    stream_modes(stream_mode)
    return _stream_with(runner, chunks)


def _stream_with(runner: _Runner, chunks: Callable[[], AsyncGenerator[Any, None]]) -> Iterator[Any]:
    with runner:
        agen = chunks()
        try:
            while True:
                try:
                    item = runner.run(_as_sync_form(next_item(agen)))
                except StopAsyncIteration:
                    return
                yield item
        finally:
            runner.run(agen.aclose())
