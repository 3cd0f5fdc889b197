"""Where the package runs: the one guard around every ``js``/``pyodide`` import.

``IN_PYODIDE`` is true inside Pyodide (Emscripten), in a browser or in Node.
Modules that need the JavaScript runtime import ``js`` and ``pyodide`` only
behind this flag, so that the whole package imports on plain CPython.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from pyctx_web._homes import publish

__all__ = ["IN_BROWSER", "IN_PYODIDE", "after_restore", "on_restore"]

IN_PYODIDE: bool = sys.platform == "emscripten"
"""True when running inside Pyodide."""


def _detect_browser() -> bool:
    if not IN_PYODIDE:
        return False
    import js  # only reachable inside Pyodide

    # Node has `process.versions.node`; browsers and their workers do not.
    process = getattr(js, "process", None)
    versions = getattr(process, "versions", None) if process is not None else None
    return getattr(versions, "node", None) is None


IN_BROWSER: bool = _detect_browser()
"""True inside Pyodide in a browser page or worker (not in Node)."""


_restore_hooks: list[Callable[[], None]] = []


def on_restore(hook: Callable[[], None]) -> None:
    """Have :func:`after_restore` call ``hook``: for state a module draws once per process,
    such as a random seed. Modules call it once, at import.
    """
    _restore_hooks.append(hook)


def after_restore() -> None:
    """Give an interpreter restored from a memory snapshot its own random state.

    Call it once, first thing, in a Pyodide started from a snapshot that had already
    imported pyctx_web (``loadPyctxWeb`` does). Every copy restored from one snapshot
    would otherwise repeat the snapshot's random draws: the random part of checkpoint
    ids and the ``random`` module's sequence are seeded afresh.
    """
    module = sys.modules.get("random")
    if module is not None:
        module.seed()
    for hook in _restore_hooks:
        hook()


publish("pyctx_web", after_restore)
