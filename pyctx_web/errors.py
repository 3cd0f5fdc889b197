"""The exceptions pyctx_web raises.

::

    PyctxError(Exception)                 base of every error the package raises
     +-- ContextMissingError(LookupError) a value was required outside the scope that provides it
     +-- JsUnavailableError(RuntimeError) a JavaScript-only call outside Pyodide or a browser
     +-- CallbackConsumedError(RuntimeError) JavaScript called a used-up callback

Control-flow signals that must not be swallowed by ``except Exception`` (such as
the graph's ``GraphInterrupt``) derive from ``BaseException`` on purpose and
are defined beside the code that raises them.
"""

from __future__ import annotations

__all__ = [
    "CallbackConsumedError",
    "ContextMissingError",
    "JsUnavailableError",
    "PyctxError",
]


class PyctxError(Exception):
    """Base class of every error pyctx_web raises."""


class ContextMissingError(PyctxError, LookupError):
    """A value was required but no enclosing scope provides it.

    ``operation`` names what needed the value and ``source`` where it was
    looked up (a storage name, "graph run", ...).
    """

    def __init__(self, message: str, *, operation: str = "", source: str = "") -> None:
        super().__init__(message)
        self.operation = operation
        self.source = source


class JsUnavailableError(PyctxError, RuntimeError):
    """A call needs the JavaScript runtime: Pyodide, or a browser for browser-only APIs."""


class CallbackConsumedError(PyctxError, RuntimeError):
    """JavaScript called a callback that is used up: a ``once=True`` callback or a destroyed one."""
