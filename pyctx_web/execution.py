"""The immutable execution context of an operation: tenant, user, correlation id and more.

One :class:`~pyctx_web.context.AsyncLocalStorage` holds the current
:class:`ExecutionContext`. Service code reads it with
:func:`current_execution_context` or :func:`require_execution_context` without
having it passed down; :func:`with_execution_context` sets it for a block.
Because the value is immutable, a change (``plus``) made in one operation is
never seen by another.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar, final

from pyctx_web.context import AsyncLocalStorage
from pyctx_web.errors import ArgumentTypeError, ImmutableError

__all__ = [
    "ExecutionContext",
    "current_execution_context",
    "execution_context_storage",
    "get_current_correlation_id",
    "get_current_tenant_id",
    "get_current_user_id",
    "require_execution_context",
    "with_execution_context",
]

V = TypeVar("V")

_IMMUTABLE = "ExecutionContext is immutable; use plus() or plus_all() to derive a new one"


@final
class ExecutionContext(Mapping[str, Any]):
    """An immutable mapping of string keys to values, compared by value.

    The well-known keys ``"tenant_id"``, ``"user_id"`` and ``"correlation_id"``
    have properties. The mapping is copied at construction; the values
    themselves are not frozen, so keep them immutable (str, numbers, tuples).
    """

    __slots__ = ("_values",)

    _values: dict[str, Any]

    def __init__(self, values: Mapping[str, Any] | None = None, /) -> None:
        data = dict(values) if values is not None else {}
        for key in data:
            if not isinstance(key, str):
                raise ArgumentTypeError(
                    f"ExecutionContext keys must be str, not {type(key).__name__!r} ({key!r})"
                )
        object.__setattr__(self, "_values", data)

    @classmethod
    def of(cls, mapping: Mapping[str, Any] | None = None, /, **values: Any) -> ExecutionContext:
        """Build a context from a mapping and/or keywords (keywords win on a clash)."""
        if mapping is not None and not isinstance(mapping, Mapping):
            raise ArgumentTypeError(
                f"ExecutionContext.of() argument must be a mapping, not {type(mapping).__name__!r}"
            )
        merged = dict(mapping) if mapping is not None else {}
        merged.update(values)
        return cls(merged)

    # Mapping protocol
    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def get(self, key: str, default: Any = None) -> Any:
        """Return the value of ``key``, or ``default`` when absent."""
        return self._values.get(key, default)

    def get_as(self, key: str, type_: type[V]) -> V | None:
        """Return the value of ``key`` when it is an instance of ``type_``, else ``None``."""
        value = self._values.get(key)
        return value if isinstance(value, type_) else None

    @property
    def tenant_id(self) -> str | None:
        """The value of ``"tenant_id"`` when it is a str, else ``None``."""
        return self.get_as("tenant_id", str)

    @property
    def user_id(self) -> str | None:
        """The value of ``"user_id"`` when it is a str, else ``None``."""
        return self.get_as("user_id", str)

    @property
    def correlation_id(self) -> str | None:
        """The value of ``"correlation_id"`` when it is a str, else ``None``."""
        return self.get_as("correlation_id", str)

    def plus(self, key: str, value: Any) -> ExecutionContext:
        """Return a new context with ``key`` set to ``value``; this one is unchanged."""
        return ExecutionContext({**self._values, key: value})

    def plus_all(self, mapping: Mapping[str, Any]) -> ExecutionContext:
        """Return a new context with every item of ``mapping`` set; this one is unchanged."""
        if not isinstance(mapping, Mapping):
            raise ArgumentTypeError(
                f"plus_all() argument must be a mapping, not {type(mapping).__name__!r}"
            )
        return ExecutionContext({**self._values, **mapping})

    def to_dict(self) -> dict[str, Any]:
        """Return a new plain dict of the values."""
        return dict(self._values)

    # Value semantics
    def __eq__(self, other: object) -> bool:
        if isinstance(other, ExecutionContext):
            return self._values == other._values
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._values.items()))

    def __repr__(self) -> str:
        return f"ExecutionContext({self._values!r})"

    # Immutability: every mutation path says what to use instead.
    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise ImmutableError(_IMMUTABLE)

    def __delattr__(self, name: str) -> NoReturn:
        raise ImmutableError(_IMMUTABLE)

    def __setitem__(self, key: str, value: Any) -> NoReturn:
        raise ImmutableError(_IMMUTABLE)

    def __delitem__(self, key: str) -> NoReturn:
        raise ImmutableError(_IMMUTABLE)

    def __reduce__(self) -> tuple[type[ExecutionContext], tuple[dict[str, Any]]]:
        return (ExecutionContext, (dict(self._values),))


execution_context_storage: AsyncLocalStorage[ExecutionContext] = AsyncLocalStorage(
    name="execution_context"
)
"""The storage that holds the current :class:`ExecutionContext`."""


def current_execution_context() -> ExecutionContext | None:
    """Return the current execution context, or ``None`` outside any."""
    return execution_context_storage.get_store()


def require_execution_context() -> ExecutionContext:
    """Return the current execution context; raise ``ContextMissingError`` outside any."""
    return execution_context_storage.require_store("require_execution_context()")


@contextmanager
def with_execution_context(
    ctx_or_mapping: ExecutionContext | Mapping[str, Any] | None = None, /, **values: Any
) -> Iterator[ExecutionContext]:
    """Set the execution context for the body of a ``with`` block; yield it.

    An :class:`ExecutionContext` replaces the current one (keywords are then
    added to it); a plain mapping or keywords merge onto the current one. The
    previous context comes back on exit, also when the body raises.
    """
    if isinstance(ctx_or_mapping, ExecutionContext):
        new = ctx_or_mapping.plus_all(values) if values else ctx_or_mapping
    elif ctx_or_mapping is None or isinstance(ctx_or_mapping, Mapping):
        base = execution_context_storage.get_store() or ExecutionContext()
        new = base.plus_all({**(ctx_or_mapping or {}), **values})
    else:
        raise ArgumentTypeError(
            "with_execution_context() argument must be an ExecutionContext or a mapping, "
            f"not {type(ctx_or_mapping).__name__!r}"
        )
    with execution_context_storage.scope(new):
        yield new


def get_current_tenant_id() -> str | None:
    """The current tenant id, or ``None``."""
    ctx = execution_context_storage.get_store()
    return ctx.tenant_id if ctx is not None else None


def get_current_user_id() -> str | None:
    """The current user id, or ``None``."""
    ctx = execution_context_storage.get_store()
    return ctx.user_id if ctx is not None else None


def get_current_correlation_id() -> str | None:
    """The current correlation id, or ``None``."""
    ctx = execution_context_storage.get_store()
    return ctx.correlation_id if ctx is not None else None
