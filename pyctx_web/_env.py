"""Where the package runs: the one guard around every ``js``/``pyodide`` import.

``IN_PYODIDE`` is true inside Pyodide (Emscripten), in a browser or in Node.
Modules that need the JavaScript runtime import ``js`` and ``pyodide`` only
behind this flag, so that the whole package imports on plain CPython.
"""

from __future__ import annotations

import sys

__all__ = ["IN_BROWSER", "IN_PYODIDE"]

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
