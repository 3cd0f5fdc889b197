"""Runs benchmark modules in the current runtime and returns their figures as JSON.

The JSON is an object: ``clock_resolution`` (seconds, as :func:`stats.clock_resolution`
measured it in this runtime) and ``figures``.

The same driver runs on CPython (``asyncio.run``) and inside Pyodide (awaited on
the JavaScript event loop), so every runtime measures with the same code.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import stats


async def main(runtime: str, quick: bool, modules: list[str]) -> str:
    """Import each module, await its ``run(runtime, quick=...)`` and return all figures as JSON."""
    resolution = stats.clock_resolution()
    figures: list[dict[str, Any]] = []
    for name in modules:
        module = importlib.import_module(name)
        figures.extend(await module.run(runtime, quick=quick))
    return json.dumps({"runtime": runtime, "clock_resolution": resolution, "figures": figures})
