"""The demo's Python app (demo/app) is a folder of top-level modules, as the worker loads them.

Its graph imports LangGraph's names, which are pyctx_web's in the worker
(``install_as_langgraph``, which ``worker_main`` calls). Here the app is imported once with
those names registered, then the registration is undone, so that the rest of the test
session imports pyctx_web's modules as they are (the app keeps what it imported).
``api.py`` drives the worker's server as the page's client does.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path
from typing import Any

APP = Path(__file__).resolve().parents[3] / "demo" / "app"
APP_MODULES = ("worker_main", "assistant", "actions", "approval", "messages", "models", "observe")


def _module_attributes() -> dict[str, dict[str, Any]]:
    return {
        name: dict(vars(module))
        for name, module in list(sys.modules.items())
        if name.startswith("pyctx_web") and isinstance(module, types.ModuleType)
    }


def _undo_registration(before: dict[str, dict[str, Any]], meta_path: list[Any]) -> None:
    """Forget LangGraph's names and the submodule attributes registering them set."""
    for name in [n for n in sys.modules if n == "langgraph" or n.startswith("langgraph.")]:
        del sys.modules[name]
    # Only the finders of LangGraph's names go: pyctx_web's others (one waits for
    # langchain_core to register Command as its tool output) stay.
    sys.meta_path[:] = [
        finder
        for finder in sys.meta_path
        if finder in meta_path
        or type(finder).__module__ not in ("pyctx_web.graph._lazy_alias", "pyctx_web.graph._addons")
    ]
    for name, module in list(sys.modules.items()):
        if not name.startswith("pyctx_web") or not isinstance(module, types.ModuleType):
            continue
        kept = before.get(name, {})
        for key, value in list(vars(module).items()):
            if not isinstance(value, types.ModuleType) or value.__name__ == f"{name}.{key}":
                continue
            if key in kept:
                setattr(module, key, kept[key])
            elif value.__name__.startswith("pyctx_web.") and f"{name}.{key}" != value.__name__:
                # A submodule attribute the registration set (say checkpoint.memory = the
                # LangGraph-named saver module): the real submodule, when imported, takes it.
                real = sys.modules.get(f"{name}.{key}")
                if real is not None:
                    setattr(module, key, real)
                elif key not in kept and _set_by_registration(value):
                    delattr(module, key)


def _set_by_registration(module: types.ModuleType) -> bool:
    from pyctx_web.graph._alias import LANGGRAPH_MODULES

    return module.__name__ in LANGGRAPH_MODULES.values()


if str(APP) not in sys.path:
    sys.path.insert(0, str(APP))
if "worker_main" not in sys.modules:
    _before, _meta_path = _module_attributes(), list(sys.meta_path)
    for _name in APP_MODULES:
        importlib.import_module(_name)
    _undo_registration(_before, _meta_path)
