"""Public homes of names defined in private modules: :func:`publish`.

A class or function is often defined in a private module (where the layers
allow it) and imported by users from a public one. :func:`publish` makes the
public module its ``__module__``, as reprs, docs and pickling show it. A class's
annotations are resolved where they were written: ``typing.get_type_hints``
looks a class's annotation strings up in the namespace of its ``__module__``,
which does not hold the names a private module's annotations use. A function's
are left as they are: they are looked up in its ``__globals__``, which stay
those of its defining module.

On Python 3.14 and later a class's annotations are resolved when first asked for
(its ``__annotate__``), not when it is published: importing pyctx_web in Pyodide
evaluates none of them. (A class written without ``from __future__ import
annotations`` has an ``__annotate__`` of the compiler's that evaluates in its own
module already.) Before 3.14 they are resolved at once.
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Any, Final

__all__ = ["publish"]

_LAZY: Final = sys.version_info >= (3, 14)
"""Whether a class can resolve its annotations when first asked for (``__annotate__``)."""

# annotationlib.Format's values, without importing annotationlib to name them.
_VALUE: Final = 1
_FORWARDREF: Final = 3
_STRING: Final = 4


def publish(module: str, *objects: Any) -> None:
    """Make ``module`` the ``__module__`` of each of ``objects``; a class's annotations resolved.

    Call it in the defining module, after the objects (and any class they
    derive from) exist; a name a class's annotation uses must be importable
    there at run time, not only under ``TYPE_CHECKING``.
    """
    for obj in objects:
        if isinstance(obj, type):
            _resolve_where_written(obj)
        obj.__module__ = module


def _resolve_where_written(cls: type) -> None:
    written = cls.__dict__.get("__annotations__")  # noqa: RUF063 (inspect loads too much at import)
    if _LAZY:
        # A module without ``from __future__ import annotations`` gave the class an
        # __annotate__ that evaluates in that module already: nothing to do for it.
        if isinstance(written, dict) and written:
            del cls.__annotations__
            cls.__annotate__ = _Annotations(written, cls.__module__)  # type: ignore[attr-defined]
        return
    if written:
        hints = typing.get_type_hints(cls, include_extras=True)
        cls.__annotations__ = {name: hints[name] for name in written}


class _Annotations:
    """A class's ``__annotate__``: its own annotations as written, resolved in the module
    that wrote them when first asked for in a resolved form."""

    __slots__ = ("module", "resolved", "written")

    def __init__(self, written: dict[str, Any], module: str) -> None:
        self.written = written
        self.module = module
        self.resolved: dict[str, Any] | None = None

    def __call__(self, format: int) -> dict[str, Any]:
        if format == _STRING:
            return dict(self.written)
        if format not in (_VALUE, _FORWARDREF):
            raise NotImplementedError
        if self.resolved is None:
            # A function of the defining module carrying the annotations: get_type_hints
            # evaluates them in its globals, as it would the class's in its own module.
            carrier = types.FunctionType(_carrier.__code__, vars(sys.modules[self.module]))
            carrier.__annotations__ = dict(self.written)
            self.resolved = typing.get_type_hints(carrier, include_extras=True)
        return dict(self.resolved)


def _carrier() -> None:
    """The code of the functions :class:`_Annotations` resolves annotations through."""
