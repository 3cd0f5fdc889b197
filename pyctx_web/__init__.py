"""pyctx_web: context propagation and human-in-the-loop graphs for Python in the browser.

The context store (:class:`AsyncLocalStorage`, :class:`Variable`,
:class:`Snapshot`) and the :class:`ExecutionContext` work on CPython >= 3.11 and
inside Pyodide. :mod:`pyctx_web.jsbridge` carries the context across the
JavaScript boundary and :mod:`pyctx_web.graph` runs interruptible graphs.
"""

from pyctx_web._env import IN_BROWSER, IN_PYODIDE
from pyctx_web.context import AsyncLocalStorage, ContextCoroutine, Snapshot, Variable
from pyctx_web.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    ContextMissingError,
    ImmutableError,
    PyctxError,
    UsageError,
)
from pyctx_web.execution import (
    ExecutionContext,
    current_execution_context,
    get_current_correlation_id,
    get_current_tenant_id,
    get_current_user_id,
    require_execution_context,
    with_execution_context,
)


def __getattr__(name: str) -> str:
    # __version__ is read from the package metadata on first use, not at import: in
    # Pyodide, importlib.metadata's lookup costs about a third of a second.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("pyctx-web")
        except PackageNotFoundError:  # a source tree that is not installed
            found = "0+unknown"
        globals()["__version__"] = found
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "IN_BROWSER",
    "IN_PYODIDE",
    "ArgumentTypeError",
    "ArgumentValueError",
    "AsyncLocalStorage",
    "ContextCoroutine",
    "ContextMissingError",
    "ExecutionContext",
    "ImmutableError",
    "PyctxError",
    "Snapshot",
    "UsageError",
    "Variable",
    "__version__",
    "current_execution_context",
    "get_current_correlation_id",
    "get_current_tenant_id",
    "get_current_user_id",
    "require_execution_context",
    "with_execution_context",
]
