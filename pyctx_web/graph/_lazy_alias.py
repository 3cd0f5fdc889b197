"""LangGraph names whose pyctx_web module is imported only when first imported by that name.

``install_as_langgraph()`` registers most modules at once; ``langgraph.prebuilt`` needs
``langchain-core``, which pyctx_web does not depend on, so it is found here, by a meta
path finder, when code imports it: a program that never imports it never needs
``langchain-core``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["LazyAliasFinder", "admit_lazy_aliases"]


class LazyAliasFinder:
    """Finds a LangGraph name of ``aliases`` and loads the pyctx_web module behind it.

    (A meta path finder and loader by protocol: importlib.abc would cost its imports.)
    """

    def __init__(self, aliases: Mapping[str, str]) -> None:
        self.aliases = dict(aliases)
        self._specs: dict[str, ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """A spec loading pyctx_web's module for a LangGraph name of ``aliases``; else None."""
        if fullname not in self.aliases:
            return None
        return ModuleSpec(fullname, self)  # type: ignore[arg-type]  # a loader by protocol

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        """pyctx_web's module itself (imported now), which the import system registers."""
        module = importlib.import_module(self.aliases[spec.name])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Give the module back its own spec (the import system set the alias's)."""
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)
        if module.__spec__ is not None and module.__spec__.submodule_search_locations is not None:
            module.__path__ = list(module.__spec__.submodule_search_locations)


def admit_lazy_aliases(aliases: Mapping[str, str]) -> None:
    """Let ``aliases`` (LangGraph name: pyctx_web module) be imported by their LangGraph name."""
    if not any(isinstance(finder, LazyAliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, LazyAliasFinder(aliases))
