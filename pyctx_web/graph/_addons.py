"""LangGraph's add-on distributions on top of pyctx_web, under ``install_as_langgraph()``.

LangGraph ships as several distributions sharing the ``langgraph`` folder: the
``langgraph`` distribution itself (the engine, with ``langgraph/pregel``) and
add-ons such as ``langgraph-prebuilt`` or ``langgraph-checkpoint-conformance``,
each a portion of the ``langgraph`` namespace package. pyctx_web stands in for
the first only: an add-on's modules still import from their own folders, while
the names pyctx_web registers stay pyctx_web's.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Collection, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["AddonFinder", "admit_addons", "langgraph_folders", "real_langgraph_at"]


def langgraph_folders() -> list[str]:
    """The ``langgraph`` folders on :data:`sys.path`, as the import system finds them.

    Call it before pyctx_web registers its own ``langgraph`` module. Empty when no
    distribution puts a ``langgraph`` folder on the path.
    """
    spec = importlib.util.find_spec("langgraph")
    if spec is None or spec.submodule_search_locations is None:
        return []
    return list(spec.submodule_search_locations)


def real_langgraph_at(folders: Sequence[str]) -> str | None:
    """Where a real LangGraph is among ``folders``, or None when they hold only add-ons.

    Real means: the ``langgraph`` distribution is installed, or a ``langgraph``
    folder holds LangGraph's engine (``pregel/``, as in a source checkout), or
    ``langgraph`` is a regular package (add-ons are namespace portions, never that).
    """
    if not folders:
        return None
    # Only when a langgraph folder exists: reading metadata imports zipfile, email...
    import importlib.metadata

    try:
        distribution = importlib.metadata.distribution("langgraph")
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        return str(distribution.locate_file("langgraph"))
    for folder in folders:
        if os.path.isdir(os.path.join(folder, "pregel")):
            return folder
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            return folder
    return None


class AddonFinder:
    """Finds an add-on's ``langgraph.X.Y`` module below a package pyctx_web registered.

    ``langgraph.checkpoint`` is pyctx_web's module, whose ``__path__`` is pyctx_web's
    own folder, so the import system alone would never find the add-on's
    ``langgraph/checkpoint/conformance``: this finder looks for it in the add-ons'
    ``langgraph`` folders. Names pyctx_web registers are never looked up here. (A
    meta path finder by protocol: importlib.abc would cost its imports at start-up.)
    """

    def __init__(self, folders: Sequence[str], registered: Collection[str]) -> None:
        self.folders = tuple(folders)
        self.registered = frozenset(registered)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        """The spec of an add-on module whose parent is a pyctx_web module; else None."""
        parent, _, _ = fullname.rpartition(".")
        if fullname in self.registered or parent not in self.registered:
            return None
        relative = parent.split(".")[1:]
        places = [os.path.join(folder, *relative) for folder in self.folders]
        return importlib.machinery.PathFinder.find_spec(fullname, places, target)


def admit_addons(package: ModuleType, folders: Sequence[str], registered: Collection[str]) -> None:
    """Let the add-ons in ``folders`` load on top of pyctx_web's ``langgraph`` ``package``."""
    if not folders:
        return
    package.__path__ = list(folders)
    if not any(isinstance(finder, AddonFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, AddonFinder(folders, registered))
