"""The signature of a callable a user gives the graph (node, reducer, entrypoint, tool)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any, Final

__all__ = ["signature"]

_OPTIONS: Final[dict[str, Any]] = {}
if sys.version_info >= (3, 14):
    import annotationlib

    # Annotations are evaluated lazily: one naming what is not defined at run time
    # (an import under TYPE_CHECKING) must not make the callable unusable.
    _OPTIONS["annotation_format"] = annotationlib.Format.FORWARDREF


def signature(fn: Callable[..., Any]) -> inspect.Signature:
    """``inspect.signature(fn)``; on Python 3.14, undefined names in annotations stay references.

    Raises what :func:`inspect.signature` raises for callables without one
    (``TypeError``, ``ValueError``), never ``NameError``.
    """
    return inspect.signature(fn, **_OPTIONS)
