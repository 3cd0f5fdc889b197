"""The functional API, as ``langgraph.func``: ``@entrypoint`` and ``@task``.

An entrypoint is a workflow written as one function; it runs like a compiled
graph (``invoke``, ``stream``, ``get_state``...) with a single node named after
the function. Inside it, each call of a ``@task`` function returns a
:class:`TaskFuture`; the results of finished tasks are saved with the thread, so
when the entrypoint runs again after an ``interrupt()`` they are returned, not
run again. ``previous`` is what the thread's last run returned (or saved with
:class:`entrypoint.final`).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Generator
from contextvars import copy_context
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pyctx_web.errors import ArgumentTypeError, UsageError
from pyctx_web.graph._engine.frames import current_run, current_task
from pyctx_web.graph._engine.values import RetryPolicy
from pyctx_web.graph._functional import FunctionalGraph, entry_graph
from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["TaskFuture", "entrypoint", "task"]

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")


class TaskFuture(Generic[T]):
    """The result of a ``@task`` call: ``.result()`` or ``await`` it."""

    __slots__ = ("_future", "_value")

    def __init__(self, value: Any = None, future: asyncio.Future[T] | None = None) -> None:
        self._value = value
        self._future = future

    def done(self) -> bool:
        """Whether the task has finished."""
        return self._future is None or self._future.done()

    def result(self) -> T:
        """The task's result; for an async task, once it has finished (else ``await`` it)."""
        if self._future is None:
            return self._value  # type: ignore[no-any-return]
        if not self._future.done():
            raise UsageError("the task has not finished: await it in an async entrypoint")
        return self._future.result()

    def __await__(self) -> Generator[Any, None, T]:
        if self._future is None:
            return self._value  # type: ignore[no-any-return]
        return (yield from self._future.__await__())


def _retried(policy: RetryPolicy | None, call: Callable[[], T]) -> T:
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except Exception as exc:
            if policy is None or attempt >= policy.max_attempts or not policy.should_retry(exc):
                raise
            time.sleep(policy.delay(attempt))


async def _aretried(policy: RetryPolicy | None, call: Callable[[], Awaitable[T]]) -> T:
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call()
        except Exception as exc:
            if policy is None or attempt >= policy.max_attempts or not policy.should_retry(exc):
                raise
            await asyncio.sleep(policy.delay(attempt))


class _Task(Generic[T]):
    """A function decorated with ``@task``."""

    def __init__(self, fn: Callable[..., Any], name: str, retry: RetryPolicy | None) -> None:
        self.fn = fn
        self.name = name
        self.retry = retry
        self.is_async = inspect.iscoroutinefunction(fn)

    def __repr__(self) -> str:
        return f"<task {self.name!r}>"

    def __call__(self, *args: Any, **kwargs: Any) -> TaskFuture[T]:
        frame = current_task.get_store()
        if frame is None:
            # Outside a workflow a task is a plain call.
            return self._run_now(args, kwargs, None)
        index = frame.task_calls
        frame.task_calls += 1
        if index in frame.task_results:
            return TaskFuture(frame.task_results[index])
        return self._run_now(args, kwargs, (frame.task_results, index))

    def _done(self, value: Any, slot: tuple[dict[int, Any], int] | None) -> None:
        if slot is not None:
            slot[0][slot[1]] = value
            run = current_run.get_store()
            if run is not None:
                run.emit("updates", {self.name: value})

    def _run_now(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], slot: tuple[dict[int, Any], int] | None
    ) -> TaskFuture[T]:
        if not self.is_async:
            value = _retried(self.retry, lambda: self.fn(*args, **kwargs))
            self._done(value, slot)
            return TaskFuture(value)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError(
                f"task {self.name!r} is async: call it from an async entrypoint"
            ) from None

        async def run() -> T:
            value: T = await _aretried(self.retry, lambda: self.fn(*args, **kwargs))
            self._done(value, slot)
            return value

        return TaskFuture(future=loop.create_task(run(), context=copy_context()))


def task(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | None = None,
) -> Any:
    """Make ``fn`` a task of the functional API: ``@task`` or ``@task(name=..., retry_policy=...)``.

    Called inside an entrypoint it returns a :class:`TaskFuture`; its result is
    saved, so a rerun of the entrypoint (after an interrupt) does not run it again.
    """

    def wrap(f: Callable[..., Any]) -> _Task[Any]:
        if not callable(f):
            raise ArgumentTypeError(f"@task decorates a function, not {f!r}")
        return _Task(f, name or str(getattr(f, "__name__", "task")), retry_policy)

    return wrap if fn is None else wrap(fn)


@dataclass(frozen=True, slots=True)
class _Final(Generic[R, S]):
    """What an entrypoint returns when the value saved for ``previous`` differs."""

    value: R
    """What the run returns."""
    save: S
    """What the next run of the thread receives as ``previous``."""


class entrypoint:
    """Make a function a workflow: ``@entrypoint(checkpointer=InMemorySaver())``.

    The function takes the input as its first parameter and may ask for
    ``previous``, ``runtime``, ``config``, ``writer`` or ``store`` by name. The
    result runs like a compiled graph. Return ``entrypoint.final(value=...,
    save=...)`` to save something else than what the run returns.
    """

    final = _Final

    def __init__(
        self,
        checkpointer: Checkpointer | None = None,
        store: Any = None,
        cache: Any = None,
        context_schema: type | None = None,
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        if store is not None or cache is not None:
            raise ArgumentTypeError("entrypoint() store and cache are not supported")
        self.checkpointer = checkpointer
        self.context_schema = context_schema
        self.retry_policy = retry_policy

    def __call__(self, fn: Callable[..., Any]) -> FunctionalGraph:
        if not callable(fn):
            raise ArgumentTypeError(f"@entrypoint decorates a function, not {fn!r}")
        return entry_graph(
            fn,
            checkpointer=self.checkpointer,
            context_schema=self.context_schema,
            retry_policy=self.retry_policy,
            final_type=_Final,
        )
