"""pyctx_web: context propagation and human-in-the-loop graphs for Python in the browser.

The context store (:class:`AsyncLocalStorage`, :class:`Variable`,
:class:`Snapshot`) and the :class:`ExecutionContext` work on CPython >= 3.11 and
inside Pyodide. :mod:`pyctx_web.jsbridge` carries the context across the
JavaScript boundary and :mod:`pyctx_web.graph` runs interruptible graphs.
"""

from pyctx_web._env import IN_BROWSER, IN_PYODIDE, after_restore
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

__version__ = "0.1.0"
"""The distribution's version (pyproject.toml reads it from here at build time)."""

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
    "after_restore",
    "current_execution_context",
    "get_current_correlation_id",
    "get_current_tenant_id",
    "get_current_user_id",
    "require_execution_context",
    "with_execution_context",
]
