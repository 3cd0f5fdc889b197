"""The storage scenario modules of tests/scenarios/ inside Pyodide, on SQLite and IndexedDB.

graph_scenarios (graph acceptance), thread_scenarios (one run per thread) and
checkpoint_value_scenarios (values checkpoints hold or refuse), also run on
CPython (tests/unit/graph/test_storage_scenarios.py). SQLite runs in Node and
Chromium, IndexedDB in Chromium.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.pyodide.scenario_runner import run_scenario, scenario_names

MODULES = ("graph_scenarios", "thread_scenarios", "checkpoint_value_scenarios")
CASES = [
    pytest.param(module, name, id=f"{module}-{name}")
    for module in MODULES
    for name in scenario_names(module)
]


@pytest.mark.parametrize("backend", ["sqlite", "indexeddb"])
@pytest.mark.parametrize(("module", "name"), CASES)
def test_storage_scenario(pyctx_module: Any, backend: str, module: str, name: str) -> None:
    """Each storage scenario holds in Pyodide on SQLite, and on IndexedDB in Chromium."""
    if backend == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    run_scenario(pyctx_module, module, name, backend=backend)
