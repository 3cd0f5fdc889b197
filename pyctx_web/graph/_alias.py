"""``install_as_langgraph()``: let code written for LangGraph import pyctx_web's graph.

As ``pymysql.install_as_MySQLdb()`` does for MySQLdb, it registers pyctx_web's
modules in :data:`sys.modules` under LangGraph's names, so that
``from langgraph.graph import StateGraph`` and the like import pyctx_web.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Final

from pyctx_web._homes import publish
from pyctx_web.errors import UsageError
from pyctx_web.graph._addons import admit_addons, langgraph_folders, real_langgraph_at
from pyctx_web.graph._lazy_alias import admit_lazy_aliases

__all__ = ["LANGGRAPH_LAZY_MODULES", "LANGGRAPH_MODULES", "install_as_langgraph"]

LANGGRAPH_MODULES: Final = {
    "langgraph.graph": "pyctx_web.graph",
    "langgraph.graph.state": "pyctx_web.graph.state",
    "langgraph.graph.message": "pyctx_web.graph.message",
    "langgraph.constants": "pyctx_web.graph.constants",
    "langgraph.types": "pyctx_web.graph.types",
    "langgraph.errors": "pyctx_web.graph.errors",
    "langgraph.config": "pyctx_web.graph.config",
    "langgraph.runtime": "pyctx_web.graph.runtime",
    "langgraph.func": "pyctx_web.graph.func",
    "langgraph.checkpoint": "pyctx_web.graph.checkpoint",
    "langgraph.checkpoint.base": "pyctx_web.graph._lgsaver.base",
    "langgraph.checkpoint.base.id": "pyctx_web.graph._lgsaver.id",
    "langgraph.checkpoint.memory": "pyctx_web.graph._lgsaver.memory",
    "langgraph.checkpoint.serde": "pyctx_web.graph._lgsaver.serde",
    "langgraph.checkpoint.serde.base": "pyctx_web.graph._lgsaver.serde",
    "langgraph.checkpoint.serde.jsonplus": "pyctx_web.graph._lgsaver.jsonplus",
    "langgraph.checkpoint.serde.types": "pyctx_web.graph._lgsaver.serde",
    "langgraph.checkpoint.sqlite": "pyctx_web.graph._lgsaver.sqlite",
    "langgraph.checkpoint.sqlite.aio": "pyctx_web.graph._lgsaver.sqlite_aio",
    "langgraph.pregel": "pyctx_web.graph._lgsaver.pregel",
    "langgraph.pregel._checkpoint": "pyctx_web.graph._lgsaver.pregel",
    "langgraph.store": "pyctx_web.graph.store",
    "langgraph.store.base": "pyctx_web.graph.store.base",
    "langgraph.store.base.batch": "pyctx_web.graph.store.base.batch",
    "langgraph.store.base.embed": "pyctx_web.graph.store.base.embed",
    "langgraph.store.memory": "pyctx_web.graph.store.memory",
    "langgraph.store.sqlite": "pyctx_web.graph.store.sqlite",
}
"""Each LangGraph module name and the pyctx_web module registered under it."""

LANGGRAPH_LAZY_MODULES: Final = {
    "langgraph.prebuilt": "pyctx_web.graph.prebuilt",
    "langgraph.prebuilt.chat_agent_executor": "pyctx_web.graph.prebuilt.chat_agent_executor",
    "langgraph.prebuilt.interrupt": "pyctx_web.graph.prebuilt.interrupt",
    "langgraph.prebuilt.tool_node": "pyctx_web.graph.prebuilt.tool_node",
    "langgraph.prebuilt.tool_validator": "pyctx_web.graph.prebuilt.tool_validator",
    "langgraph.prebuilt._tool_call_stream": "pyctx_web.graph.prebuilt._tool_call_stream",
    "langgraph.prebuilt._tool_call_transformer": "pyctx_web.graph.prebuilt._tool_call_stream",
    "langgraph._internal": "pyctx_web.graph._internal",
    "langgraph._internal._runnable": "pyctx_web.graph._internal._runnable",
    "langgraph.cache": "pyctx_web.graph.cache",
    "langgraph.cache.base": "pyctx_web.graph.cache",
    "langgraph.channels": "pyctx_web.graph.channels",
    "langgraph.channels.ephemeral_value": "pyctx_web.graph.channels",
    "langgraph.channels.untracked_value": "pyctx_web.graph.channels",
    "langgraph.stream": "pyctx_web.graph.stream",
    "langgraph.stream._mux": "pyctx_web.graph.stream._mux",
    "langgraph.stream._types": "pyctx_web.graph.stream._types",
    "langgraph.stream.run_stream": "pyctx_web.graph.stream.run_stream",
    "langgraph.stream.stream_channel": "pyctx_web.graph.stream.stream_channel",
    "langgraph.stream.transformers": "pyctx_web.graph.stream.transformers",
    "langgraph.typing": "pyctx_web.graph.typing",
    "langgraph.warnings": "pyctx_web.graph.warnings",
}
"""LangGraph names of pyctx_web modules imported when first used: those that need
``langchain-core`` (``langgraph.prebuilt``) and those few programs import (LangChain's)."""


def _real_langgraph_installed(folders: list[str]) -> bool:
    package = sys.modules.get("langgraph")
    if package is not None:
        return getattr(package, "__pyctx_web__", False) is not True
    return real_langgraph_at(folders) is not None


def install_as_langgraph() -> None:
    """Register pyctx_web's graph modules under LangGraph's names in :data:`sys.modules`.

    Call it once, before the code that imports ``langgraph``. Calling it again
    does nothing. Raises :class:`~pyctx_web.errors.UsageError` when a real
    ``langgraph`` is importable: the two must not be mixed in one process.
    LangGraph's add-on distributions (``langgraph-prebuilt``,
    ``langgraph-checkpoint-conformance``...) may be installed: their modules load
    on top of pyctx_web's, which keep the names pyctx_web registers.
    """
    folders = [] if "langgraph" in sys.modules else langgraph_folders()
    if _real_langgraph_installed(folders):
        raise UsageError(
            "install_as_langgraph() refuses to shadow the real langgraph package, which is "
            "importable here; import langgraph itself, or uninstall it"
        )
    package = sys.modules.get("langgraph")
    if package is None:
        package = types.ModuleType("langgraph", "pyctx_web's graph, under LangGraph's names.")
        package.__path__ = []
        package.__pyctx_web__ = True  # type: ignore[attr-defined]
        sys.modules["langgraph"] = package
        admit_addons(package, folders, {"langgraph", *LANGGRAPH_MODULES, *LANGGRAPH_LAZY_MODULES})
        admit_lazy_aliases(LANGGRAPH_LAZY_MODULES)
    for name, target in LANGGRAPH_MODULES.items():
        module = importlib.import_module(target)
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        setattr(sys.modules[parent], child, module)


publish("pyctx_web.graph", install_as_langgraph)
