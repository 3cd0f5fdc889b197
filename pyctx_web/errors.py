"""The exceptions pyctx_web raises.

::

    PyctxError(Exception)                 base of every error the package raises
     +-- ContextMissingError(LookupError) a value was required outside the scope that provides it
     +-- ArgumentTypeError(TypeError)     an argument of the wrong type
     +-- ArgumentValueError(ValueError)   an argument of the right type with a wrong value
     +-- JsonLimitError(ValueError)       JSON text too large or too deep to parse safely
     +-- ImmutableError(TypeError)        a change to an immutable value
     +-- UsageError(RuntimeError)         an object used in a way it does not allow
     +-- JsUnavailableError(RuntimeError) a JavaScript-only call outside Pyodide or a browser
     +-- CallbackConsumedError(RuntimeError) JavaScript called a used-up callback

Control-flow signals that must not be swallowed by ``except Exception`` (such as
the graph's ``GraphInterrupt``) derive from ``BaseException`` on purpose and
are defined beside the code that raises them.
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "ArgumentValueError",
    "CallbackConsumedError",
    "ContextMissingError",
    "ImmutableError",
    "JsUnavailableError",
    "JsonLimitError",
    "PyctxError",
    "UsageError",
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


class ArgumentTypeError(PyctxError, TypeError):
    """An argument has the wrong type; raised where CPython would raise ``TypeError``."""


class ArgumentValueError(PyctxError, ValueError):
    """An argument has the right type but a wrong value, as CPython's ``ValueError``."""


class ImmutableError(PyctxError, TypeError):
    """A change to an immutable value; the message names what to use instead."""


class UsageError(PyctxError, RuntimeError):
    """An object was used in a way it does not allow (a scope entered twice, ...)."""


class JsonLimitError(PyctxError, ValueError):
    """JSON text from outside was refused unparsed: longer or more deeply nested than its limit.

    ``source`` says what the text was, ``kind`` which limit it broke
    (``"characters"``, ``"depth"``, or ``"stack"`` when the caller's stack left
    no room for a depth within the limit) and ``limit`` that limit. Parsing it
    could have exhausted Pyodide's stack (a fatal error, not an exception) or its memory.
    """

    def __init__(self, source: str, *, kind: str, limit: int, found: int = 0) -> None:
        if kind == "characters":
            problem = f"is {found:,} characters long, over the limit of {limit:,}"
        elif kind == "depth":
            problem = f"nests deeper than {limit} levels"
        else:
            problem = "nests too deeply for the stack left to parse it"
        super().__init__(f"{source} {problem}; it was not parsed")
        self.source = source
        self.kind = kind
        self.limit = limit
