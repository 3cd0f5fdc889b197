"""Public homes of names defined in private modules: :func:`publish`.

A class or function is often defined in a private module (where the layers
allow it) and imported by users from a public one. :func:`publish` makes the
public module its ``__module__``, as reprs, docs and pickling show it. A class's
annotations are resolved first, where they were written: ``typing.get_type_hints``
looks a class's annotation strings up in the namespace of its ``__module__``,
which does not hold the names a private module's annotations use. A function's
are left as they are: they are looked up in its ``__globals__``, which stay
those of its defining module.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Mapping
from typing import Any

__all__ = ["publish"]


def publish(module: str, *objects: Any) -> None:
    """Make ``module`` the ``__module__`` of each of ``objects``; a class's annotations resolved.

    Call it in the defining module, after the objects (and any class they
    derive from) exist; a name a class's annotation uses must be importable
    there at run time, not only under ``TYPE_CHECKING``.
    """
    for obj in objects:
        own = _own_annotations(obj) if isinstance(obj, type) else None
        if own:
            hints = typing.get_type_hints(obj, include_extras=True)
            obj.__annotations__ = {name: hints[name] for name in own}
        obj.__module__ = module


def _own_annotations(cls: type) -> Mapping[str, Any]:
    """What ``cls`` itself annotates (not its bases), unresolved."""
    own = cls.__dict__.get("__annotations__")  # noqa: RUF063 (inspect loads too much at import)
    if own is None and sys.version_info >= (3, 14):
        # Python 3.14 keeps a class's annotations behind __annotate__.
        import annotationlib

        own = annotationlib.get_annotations(cls, format=annotationlib.Format.STRING)
    return own or {}
