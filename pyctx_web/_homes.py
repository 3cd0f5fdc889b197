"""Public homes of names defined in private modules: :func:`publish`.

A class or function is often defined in a private module (where the layers
allow it) and imported by users from a public one. :func:`publish` makes the
public module its ``__module__``, as reprs, docs and pickling show it, after
resolving its annotations where they were written: ``typing.get_type_hints``
looks annotation strings up in the namespace of ``__module__``, which does not
hold the names a private module's annotations use.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Mapping
from typing import Any

__all__ = ["publish"]


def publish(module: str, *objects: Any) -> None:
    """Make ``module`` the ``__module__`` of each of ``objects``, their annotations resolved.

    Call it in the defining module, after the objects (and any class they
    derive from) exist; a name an annotation uses must be importable there at
    run time, not only under ``TYPE_CHECKING``.
    """
    for obj in objects:
        own = _own_annotations(obj)
        if own:
            hints = typing.get_type_hints(obj, include_extras=True)
            obj.__annotations__ = {name: hints[name] for name in own}
        obj.__module__ = module


def _own_annotations(obj: Any) -> Mapping[str, Any]:
    """What ``obj`` itself annotates (a class: not its bases), unresolved."""
    if not isinstance(obj, type):
        return getattr(obj, "__annotations__", None) or {}
    own = obj.__dict__.get("__annotations__")  # noqa: RUF063 (inspect loads too much at import)
    if own is None and sys.version_info >= (3, 14):
        # Python 3.14 keeps a class's annotations behind __annotate__.
        import annotationlib

        own = annotationlib.get_annotations(obj, format=annotationlib.Format.STRING)
    return own or {}
