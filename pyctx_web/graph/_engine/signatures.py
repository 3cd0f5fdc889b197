"""The signature of a callable a user gives the graph (node, reducer, entrypoint, tool)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any, Final, get_type_hints

__all__ = ["node_hints", "signature"]

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


_node_hints: list[Any] = [None, None]
"""The callable :func:`node_hints` last evaluated with ``fresh`` and its hints (a dict)."""


def node_hints(target: Callable[..., Any], *, fresh: bool = False, last: bool = False) -> Any:
    """``typing.get_type_hints(target)``, evaluated once per ``add_node``.

    ``add_node`` reads a node's hints three times (its injected parameters, its
    ``Command`` destinations, its state type); evaluating annotation strings is what
    costs at start. Its first reading passes ``fresh`` (evaluated, then kept), its last
    ``last`` (forgotten after). Nothing is kept across ``add_node`` calls, so a name an
    annotation refers to may be defined or rebound between them. Raises what
    ``get_type_hints`` raises; a failure is not kept.
    """
    if fresh or _node_hints[0] is not target:
        _node_hints[:] = [None, None]
        hints = get_type_hints(target)
        if fresh:
            _node_hints[:] = [target, hints]
    else:
        hints = _node_hints[1]
    if last:
        _node_hints[:] = [None, None]
    return hints
