"""contain()/release(): opt-in patch of ``pyodide.ffi.create_proxy``/``create_once_callable``."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextvars import Context, copy_context
from types import CoroutineType
from typing import Any, final

from pyctx_web._homes import publish
from pyctx_web.context import ContextCoroutine
from pyctx_web.jsbridge._core import require_pyodide

__all__ = ["contain", "is_contained", "release"]


@final
class _Contained:
    """A callable that runs ``fn`` in a fresh copy of the context captured at construction."""

    __slots__ = ("__wrapped__", "_context")

    def __init__(self, fn: Callable[..., Any], context: Context) -> None:
        self.__wrapped__ = fn
        self._context = context

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        context = self._context.copy()
        result = context.run(self.__wrapped__, *args, **kwargs)
        if type(result) is CoroutineType or isinstance(result, Coroutine):
            return ContextCoroutine(result, context)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__wrapped__, name)

    def __repr__(self) -> str:
        return f"<contained {self.__wrapped__!r}>"


_originals: dict[str, Callable[..., Any]] = {}


def _contain_arg(obj: Any) -> Any:
    from pyodide.ffi import JsProxy

    if callable(obj) and not isinstance(obj, (_Contained, JsProxy)):
        return _Contained(obj, copy_context())
    return obj


def is_contained() -> bool:
    """Whether :func:`contain` is in effect."""
    return bool(_originals)


def contain() -> None:
    """Make every Python callable handed to JavaScript through ``pyodide.ffi`` run in its context.

    Replaces ``pyodide.ffi.create_proxy`` and ``pyodide.ffi.create_once_callable``
    with versions that wrap a callable so that each call runs in a fresh copy
    of the context current at the ``create_*`` call (other objects pass
    through). Code that looks the functions up on ``pyodide.ffi`` at call time
    (``pyodide.ffi.create_proxy(...)``, or ``from pyodide.ffi import
    create_proxy`` executed after this call) gets contained callbacks; a
    reference taken before :func:`contain` keeps the original. Exceptions keep
    propagating to JavaScript, as with the originals. Idempotent; undone by
    :func:`release`.
    """
    require_pyodide("contain()")
    if _originals:
        return
    import pyodide.ffi as ffi

    create_proxy = ffi.create_proxy
    create_once_callable = ffi.create_once_callable

    def contained_create_proxy(obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        return create_proxy(_contain_arg(obj), *args, **kwargs)

    def contained_create_once_callable(obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        return create_once_callable(_contain_arg(obj), *args, **kwargs)

    contained_create_proxy.__doc__ = create_proxy.__doc__
    contained_create_once_callable.__doc__ = create_once_callable.__doc__
    _originals["create_proxy"] = create_proxy
    _originals["create_once_callable"] = create_once_callable
    ffi.create_proxy = contained_create_proxy
    ffi.create_once_callable = contained_create_once_callable


def release() -> None:
    """Restore the original ``pyodide.ffi.create_proxy`` and ``create_once_callable``.

    Proxies created while contained stay contained. Idempotent.
    """
    require_pyodide("release()")
    if not _originals:
        return
    import pyodide.ffi as ffi

    ffi.create_proxy = _originals.pop("create_proxy")
    ffi.create_once_callable = _originals.pop("create_once_callable")


publish("pyctx_web.jsbridge", contain, is_contained, release)
