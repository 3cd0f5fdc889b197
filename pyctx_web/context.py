"""Async-local storage on :mod:`contextvars`: Node's ``AsyncLocalStorage``, TC39 ``AsyncContext``.

Every :class:`AsyncLocalStorage` and every :class:`Variable` owns exactly one
:class:`contextvars.ContextVar`. There is no registry: a storage that nobody
references is freed with its variable.

Where a value set with ``run`` (or ``scope``, ``enter_with``) is visible:

* in the synchronous code ``fn`` runs, and everything it calls;
* after every ``await`` of a coroutine started by ``run`` (asyncio sleeps,
  awaited JavaScript promises, other tasks), because such a coroutine runs each
  of its steps in a context of its own;
* in every task, ``loop.call_soon``/``call_later`` callback and
  ``PyodideFuture.then`` reaction created while it is set (they copy the
  context at creation time);
* in callables wrapped by :meth:`AsyncLocalStorage.bind`,
  :meth:`AsyncLocalStorage.snapshot` or :class:`Snapshot` while it is set, and
  in JavaScript callbacks registered through :mod:`pyctx_web.jsbridge`.

It is not visible in the caller once ``run`` returns or raises, in other tasks,
or in callbacks that JavaScript invokes on Python callables handed over raw
(see :mod:`pyctx_web.jsbridge`).

Where Python differs from Node: a coroutine awaited directly shares its caller's
context, so ``enter_with`` inside ``await helper()`` is seen by the caller after
the ``await`` returns. In Node every ``async`` function call gets its own frame::

    async def helper() -> None:
        als.enter_with("inner")

    async def caller() -> None:
        await helper()
        als.get_store()          # "inner" in Python; the caller's store in Node

    # Use run() (or a task) to give the callee its own context:
    async def caller_isolated() -> None:
        await als.run("inner", some_coroutine_function)
        als.get_store()          # unchanged
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterator
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from contextvars import Context, ContextVar, Token, copy_context
from types import CoroutineType, GeneratorType, TracebackType
from typing import Any, Final, Generic, ParamSpec, TypeGuard, TypeVar, cast, final

from pyctx_web.errors import ArgumentTypeError, ContextMissingError, UsageError

__all__ = [
    "AsyncLocalStorage",
    "ContextCoroutine",
    "Snapshot",
    "Variable",
    "is_awaitable",
    "is_coroutine",
]

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")


@final
class ContextCoroutine(Coroutine[Any, Any, R]):
    """A coroutine whose every step runs inside one :class:`contextvars.Context`.

    ``run``, ``exit``, ``bind`` and friends return one when the function they
    call returns a coroutine. ``await``, ``asyncio.create_task`` and
    ``asyncio.gather`` accept it. Whatever the wrapped coroutine sets in the
    context stays in its own context; the caller never sees it.
    """

    __slots__ = ("_context", "_coro", "_enter", "_step")

    def __init__(self, coro: Coroutine[Any, Any, R], context: Context) -> None:
        self._coro = coro
        self._context = context
        # Bound once: every step of the coroutine goes through these two.
        self._enter = context.run
        self._step = coro.send

    def send(self, value: Any, /) -> Any:
        """Resume the wrapped coroutine with ``value`` inside the bound context."""
        return self._enter(self._step, value)

    def throw(
        self,
        typ: type[BaseException] | BaseException,
        val: object = None,
        tb: TracebackType | None = None,
        /,
    ) -> Any:
        """Raise an exception inside the wrapped coroutine, in the bound context."""
        if val is None and tb is None:
            return self._context.run(self._coro.throw, typ)
        return self._context.run(self._coro.throw, typ, val, tb)

    def close(self) -> None:
        """Close the wrapped coroutine; its ``finally`` blocks run in the bound context."""
        self._context.run(self._coro.close)

    def __next__(self) -> Any:
        return self._enter(self._step, None)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __await__(self) -> Generator[Any, None, R]:
        return self  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<ContextCoroutine {self._coro!r}>"


_PLAIN_RESULTS: Final = frozenset({type(None), bool, int, float, str, bytes, tuple, list, dict})
_CO_ITERABLE_COROUTINE: Final = 0x100
"""The code flag of a generator made awaitable by ``types.coroutine``."""


def is_awaitable(value: object) -> TypeGuard[Awaitable[Any]]:
    """``inspect.isawaitable``, answered at once for the plain values most functions return."""
    value_type = type(value)
    if value_type is CoroutineType:
        return True
    if value_type in _PLAIN_RESULTS:
        return False
    # inspect.isawaitable's test, without importing inspect (costly on CPython).
    if value_type is GeneratorType:
        return bool(value.gi_code.co_flags & _CO_ITERABLE_COROUTINE)  # type: ignore[attr-defined]
    return isinstance(value, Awaitable)


def is_coroutine(value: object) -> bool:
    """True for coroutines; cheap for the plain values most calls return."""
    value_type = type(value)
    # isinstance() against the Coroutine ABC costs several times a type check, so it
    # is asked only of objects that are awaitable at all.
    return (
        value_type is CoroutineType
        or value_type is ContextCoroutine
        or (hasattr(value_type, "__await__") and isinstance(value, Coroutine))
    )


def _call_in(context: Context, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    """Call ``fn`` in ``context``; a returned coroutine keeps running in it."""
    result = context.run(fn, *args, **kwargs)
    if is_coroutine(result):
        return ContextCoroutine(result, context)
    return result


class Variable(Generic[T]):
    """A value that follows the logical flow of execution (TC39 ``AsyncContext.Variable``).

    ``get()`` returns the value of the innermost enclosing :meth:`run`, or
    ``default`` outside any. For where a value is visible, see the module
    docstring.

    ``get`` is the bound ``ContextVar.get`` of the variable itself, so reading
    costs what a raw ``ContextVar`` read costs.
    """

    __slots__ = ("__weakref__", "_default", "_var", "get", "name")

    name: str
    """The name given at construction, for messages and debugging."""
    get: Callable[[], T | None]
    """Return the current value, or the default outside any run."""

    def __init__(self, name: str = "", default: T | None = None) -> None:
        self.name = name
        self._default = default
        self._var: ContextVar[T | None] = ContextVar(name or type(self).__name__, default=default)
        self.get = self._var.get

    def run(self, value: T | None, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call ``fn(*args, **kwargs)`` with this variable set to ``value``; return its result.

        On return or on error only this variable is restored; whatever else
        ``fn`` changed in the context stays, as with any synchronous call. When
        ``fn`` returns a coroutine, a :class:`ContextCoroutine` is returned that
        runs the whole coroutine with ``value`` set, in a context of its own.
        """
        var = self._var
        token = var.set(value)
        try:
            result = fn(*args, **kwargs)
            # is_coroutine() inlined: this is the hot path of every run().
            result_type = type(result)
            if (
                result_type is CoroutineType
                or result_type is ContextCoroutine
                or (hasattr(result_type, "__await__") and isinstance(result, Coroutine))
            ):
                coro = cast(Coroutine[Any, Any, Any], result)
                return cast(R, ContextCoroutine(coro, copy_context()))
            return result
        finally:
            var.reset(token)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class _Scope(AbstractContextManager[None], AbstractAsyncContextManager[None]):
    """Sets a variable on enter and restores it on exit, also on error."""

    __slots__ = ("_token", "_value", "_var")

    def __init__(self, var: ContextVar[Any], value: Any) -> None:
        self._var = var
        self._value = value
        self._token: Token[Any] | None = None

    def __enter__(self) -> None:
        if self._token is not None:
            raise UsageError("this scope is already entered; create a new one with scope()")
        self._token = self._var.set(self._value)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        token, self._token = self._token, None
        if token is not None:
            self._var.reset(token)

    async def __aenter__(self) -> None:
        self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)


class AsyncLocalStorage(Variable[T]):
    """A store that follows the logical flow of execution, like Node's ``AsyncLocalStorage``.

    ``get_store()`` returns the store of the innermost enclosing :meth:`run`,
    :meth:`scope` or :meth:`enter_with`, or ``default_value`` outside any (and
    inside :meth:`exit`, and after :meth:`disable`). For where a store is
    visible, see the module docstring.

    ``get_store`` is the bound ``ContextVar.get`` of the storage's own
    variable: reading the store costs what a raw ``ContextVar`` read costs.
    """

    __slots__ = ("get_store",)

    get_store: Callable[[], T | None]
    """Return the current store, or ``default_value`` outside any run."""

    def __init__(self, *, name: str = "", default_value: T | None = None) -> None:
        super().__init__(name, default_value)
        self.get_store = self._var.get

    @property
    def default_value(self) -> T | None:
        """What :meth:`get_store` returns outside any run."""
        return self._default

    def require_store(self, operation: str = "this operation") -> T:
        """Return the current store; raise :class:`ContextMissingError` outside any run.

        ``operation`` names what needed the store, for the message.
        """
        store = self._var.get()
        if store is None:
            raise ContextMissingError(
                f"{operation} requires a store, but it was called outside "
                f"{self._describe()}.run() (no store is set)",
                operation=operation,
                source=self.name,
            )
        return store

    def enter_with(self, store: T) -> None:
        """Set ``store`` for the rest of the current synchronous execution.

        It holds for what that execution schedules (tasks, callbacks) and, in a
        task, until the task ends or the store is changed again. It is not seen
        by a caller that awaits from another task; a coroutine awaited directly
        shares its caller's context (see the module docstring).
        """
        self._var.set(store)

    def exit(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call ``fn`` with no store (``get_store()`` returns ``default_value``); return its result.

        The store is restored when ``fn`` returns or raises. A coroutine
        returned by ``fn`` runs wholly without the store, in a context of its own.
        """
        # Variable.run, not self.run: a call with *args to a plain function is inlined by
        # the interpreter, one to a bound method recurses in C, which in Pyodide uses up
        # the JavaScript stack (a fatal error) long before the recursion limit.
        return Variable.run(self, self._default, fn, *args, **kwargs)

    def disable(self) -> None:
        """Make :meth:`get_store` return ``default_value`` until the next ``run`` or ``enter_with``.

        It acts on the current context only: other operations, and other
        storages, keep their stores. The storage drops its reference to the
        store of the current context, so the store can be freed.
        """
        self._var.set(self._default)

    def scope(self, store: T | None) -> _Scope:
        """A context manager that sets ``store`` for its body and restores the previous one.

        Works with ``with`` and ``async with``; the previous store comes back
        on exit, also when the body raises or is cancelled. ``None`` runs the
        body with no store, as :meth:`exit` does.
        """
        return _Scope(self._var, store)

    @staticmethod
    def bind(fn: Callable[P, R]) -> Callable[P, R]:
        """Return ``fn`` bound to the whole current context (every storage and ``ContextVar``).

        Each call runs in a fresh copy of the captured context: the bound
        function may call itself re-entrantly, and what one call sets is not
        seen by the next. A coroutine returned by ``fn`` runs in that copy.

        Each call enters the copy with ``Context.run``, a C-level call: in Pyodide,
        where those use the JavaScript stack, recursion through bound functions is
        good for a few hundred levels (``run`` and ``exit`` for thousands).
        """
        if not callable(fn):
            raise ArgumentTypeError(f"bind() argument must be callable, not {type(fn).__name__!r}")
        captured = copy_context()

        def bound(*args: P.args, **kwargs: P.kwargs) -> R:
            return cast(R, _call_in(captured.copy(), fn, args, kwargs))

        bound.__wrapped__ = fn  # type: ignore[attr-defined]
        bound.__name__ = getattr(fn, "__name__", "bound")
        bound.__qualname__ = getattr(fn, "__qualname__", bound.__name__)
        bound.__doc__ = getattr(fn, "__doc__", None)
        return bound

    @staticmethod
    def snapshot() -> Callable[..., Any]:
        """Capture the whole current context; return ``runner(fn, *args, **kwargs)``.

        The runner calls ``fn`` in a fresh copy of the captured context each time
        and returns its result (a :class:`ContextCoroutine` for a coroutine).
        """
        captured = copy_context()

        def runner(fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
            return cast(R, _call_in(captured.copy(), fn, args, kwargs))

        return runner

    def _describe(self) -> str:
        return f"AsyncLocalStorage {self.name!r}" if self.name else "AsyncLocalStorage"

    def __repr__(self) -> str:
        return f"<AsyncLocalStorage {self.name!r} store={self._var.get()!r}>"


@final
class Snapshot:
    """The values of every variable and storage at construction (TC39 ``AsyncContext.Snapshot``).

    :meth:`run` calls a function in a fresh copy of the captured context each
    time; nothing set inside one call is seen by the next or by the caller.
    """

    __slots__ = ("_context",)

    def __init__(self) -> None:
        self._context: Final[Context] = copy_context()

    def run(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call ``fn(*args, **kwargs)`` in the captured context; return its result."""
        return cast(R, _call_in(self._context.copy(), fn, args, kwargs))

    @staticmethod
    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        """Return ``fn`` bound to the current context; same as :meth:`AsyncLocalStorage.bind`."""
        return AsyncLocalStorage.bind(fn)
