"""Checkpoint value scenarios inside Pyodide: SQLite in Node and Chromium, IndexedDB in Chromium.

The scenarios are those of tests/scenarios/checkpoint_value_scenarios.py, also run on CPython.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.pyodide.scenario_runner import run_scenario, scenario_names

MODULE = "checkpoint_value_scenarios"
SCENARIOS = scenario_names(MODULE)


@pytest.mark.parametrize("backend", ["sqlite", "indexeddb"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_checkpoint_value_scenario(pyctx_module: Any, backend: str, name: str) -> None:
    """Each checkpoint value scenario holds in Pyodide on SQLite, and on IndexedDB in Chromium."""
    if backend == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    run_scenario(pyctx_module, MODULE, name, backend=backend)
