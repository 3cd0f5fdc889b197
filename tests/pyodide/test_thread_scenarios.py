"""One run per thread inside Pyodide, on SQLite and on IndexedDB.

SQLite runs in Node and Chromium, IndexedDB in Chromium; the scenarios are
those of tests/scenarios/thread_scenarios.py, also run on CPython.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.pyodide.scenario_runner import run_scenario, scenario_names

MODULE = "thread_scenarios"
SCENARIOS = scenario_names(MODULE)


@pytest.mark.parametrize("backend", ["sqlite", "indexeddb"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_graph_scenario(pyctx_module: Any, backend: str, name: str) -> None:
    """Each thread scenario holds in Pyodide on SQLite, and on IndexedDB in Chromium."""
    if backend == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    run_scenario(pyctx_module, MODULE, name, backend=backend)
