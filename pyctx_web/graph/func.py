"""The functional API, as ``langgraph.func``: ``@entrypoint`` and ``@task``.

An entrypoint is a workflow written as one function; it runs like a compiled
graph (``invoke``, ``stream``, ``get_state``...) with a single node named after
the function. ``previous`` is what the thread's last run returned (or saved
with :class:`entrypoint.final`).

A ``@task`` function called in an entrypoint, in a node of a ``StateGraph`` or
in another task returns a :class:`TaskFuture`. The results of the calls that
finished are saved with the paused (or failed) step, so when the node runs
again after an ``interrupt()`` they are returned, not run again; a call is known
by its position among the node's calls and its task's name. They are dropped
once the step completes. A call that raised is not saved (it runs again), and a
retry of the node (``retry_policy``) runs its calls again, as in LangGraph.
Outside a node or an entrypoint, a task is a plain call.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Generator
from contextlib import AbstractContextManager, nullcontext
from contextvars import copy_context
from typing import Any, Generic, TypeVar

from pyctx_web._records import record
from pyctx_web.context import AsyncLocalStorage
from pyctx_web.errors import ArgumentTypeError, UsageError
from pyctx_web.graph._engine.frames import TaskFrame, current_task
from pyctx_web.graph._engine.messages_mode import streaming_call
from pyctx_web.graph._engine.records import task_id
from pyctx_web.graph._engine.streams import emit_call, emit_call_result
from pyctx_web.graph._engine.task_config import call_config, running_call, task_config
from pyctx_web.graph._functional import FunctionalGraph, entry_graph
from pyctx_web.graph._values import RetryPolicy
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
            raise UsageError("the task has not finished: await it in an async node or entrypoint")
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


def _no_messages(value: Any) -> None:
    return None


@record(eq=False, slots=True)
class _Call:
    """One ``@task`` call in a node: where its result is saved, and the calls its body makes."""

    frame: TaskFrame
    """The node (or entrypoint) task the call belongs to."""
    key: str
    """Its position among the task's calls: ``"1"``, or ``"1.0"`` for the first call of call 1."""
    id: str
    """Its task id, as the ``tasks`` stream mode shows it."""
    name: str = ""
    """The task's name."""
    caller: _Call | None = None
    """The call whose body made it; ``None`` for a call in the node's own code."""
    calls: int = 0
    """Calls its body has made so far."""
    config: dict[str, Any] | None = None
    """The call's config, once asked for (:meth:`task_config`)."""

    def task_config(self) -> dict[str, Any]:
        """The config the call's body runs with (``get_config()`` there), made once."""
        made = self.config
        if made is None:
            caller = task_config(self.frame) if self.caller is None else self.caller.task_config()
            made = self.config = call_config(caller, self.name, self.id, self.key)
        return made


_running: AsyncLocalStorage[Any] = running_call
"""The ``@task`` call whose body runs (unset in the node's own code)."""


def _place(frame: TaskFrame, name: str) -> _Call:
    """The next call of ``frame``: a call in a task's body counts among that call's own."""
    parent = _running.get_store()
    if parent is not None and parent.frame is frame:
        key = f"{parent.key}.{parent.calls}"
        parent.calls += 1
    else:
        # Not reset when the node is retried, as in LangGraph: a retry runs the calls again.
        key = str(frame.task_calls)
        frame.task_calls += 1
        parent = None
    return _Call(frame, key, task_id(frame.task.id, "call", key, name), name, parent)


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
            # Outside a node or an entrypoint a task is a plain call.
            return self._run_now(args, kwargs, None)
        call = _place(frame, self.name)
        emit_call(frame.run, call.id, self.name, args, kwargs)
        saved = frame.task_results.get(call.key)
        # A result saved under another task's name is not this call's: the node changed.
        if saved is not None and saved[0] in (self.name, ""):
            return TaskFuture(saved[1])
        return self._run_now(args, kwargs, call)

    def _done(self, call: _Call | None, value: Any, error: BaseException | None) -> None:
        if call is None:
            return
        run = call.frame.run
        if error is None:
            call.frame.task_results[call.key] = (self.name, value)
            run.emit("updates", {self.name: value})
        emit_call_result(run, call.id, self.name, value, error)

    def _streaming(
        self, call: _Call | None, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> AbstractContextManager[Callable[[Any], None]]:
        """While the call runs, its messages stream as a task's (``stream_mode="messages"``)."""
        if call is None or not call.frame.run.listens("messages"):
            return nullcontext(_no_messages)
        given = {**{str(i): arg for i, arg in enumerate(args)}, **kwargs}
        return streaming_call(call.frame, self.name, call.id, call.key, given)

    def _run_now(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], call: _Call | None
    ) -> TaskFuture[T]:
        if not self.is_async:
            try:
                with self._streaming(call, args, kwargs) as stream_messages:
                    value = _retried(
                        self.retry, lambda: _running.run(call, self.fn, *args, **kwargs)
                    )
                    stream_messages(value)
            except Exception as exc:
                self._done(call, None, exc)
                raise
            self._done(call, value, None)
            return TaskFuture(value)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError(
                f"task {self.name!r} is async: call it from an async node or entrypoint"
            ) from None

        async def run() -> T:
            try:
                with self._streaming(call, args, kwargs) as stream_messages:
                    value: T = await _aretried(
                        self.retry, lambda: _running.run(call, self.fn, *args, **kwargs)
                    )
                    stream_messages(value)
            except Exception as exc:
                self._done(call, None, exc)
                raise
            self._done(call, value, None)
            return value

        return TaskFuture(future=loop.create_task(run(), context=copy_context()))


def task(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | None = None,
) -> Any:
    """Make ``fn`` a task of the functional API: ``@task`` or ``@task(name=..., retry_policy=...)``.

    Called inside an entrypoint or a node it returns a :class:`TaskFuture`; its
    result is saved, so a rerun of the node (after an interrupt) does not run it again.
    """

    def wrap(f: Callable[..., Any]) -> _Task[Any]:
        if not callable(f):
            raise ArgumentTypeError(f"@task decorates a function, not {f!r}")
        return _Task(f, name or str(getattr(f, "__name__", "task")), retry_policy)

    return wrap if fn is None else wrap(fn)


@record(frozen=True, slots=True)
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
        if cache is not None:
            raise ArgumentTypeError("entrypoint() cache is not supported")
        self.checkpointer = checkpointer
        self.store = store
        self.context_schema = context_schema
        self.retry_policy = retry_policy

    def __call__(self, fn: Callable[..., Any]) -> FunctionalGraph:
        if not callable(fn):
            raise ArgumentTypeError(f"@entrypoint decorates a function, not {fn!r}")
        return entry_graph(
            fn,
            checkpointer=self.checkpointer,
            store=self.store,
            context_schema=self.context_schema,
            retry_policy=self.retry_policy,
            final_type=_Final,
        )
