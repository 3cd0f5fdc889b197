"""Fault-injection scenarios inside Pyodide, on SQLite and on IndexedDB.

SQLite runs in Node and Chromium, IndexedDB in Chromium; the scenarios are those
of tests/scenarios/fault_scenarios.py, also run on CPython
(tests/unit/graph/test_fault_scenarios.py); those in the module's ``BUGS`` show
bugs of the package and fail until they are fixed.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.pyodide.scenario_runner import run_scenario, scenario_names
from tests.scenario_support import load

MODULE = "fault_scenarios"
SCENARIOS = scenario_names(MODULE)
BUGS: dict[str, str] = load(MODULE).BUGS


def _names() -> list[object]:
    return [
        pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=BUGS[name])])
        if name in BUGS
        else name
        for name in SCENARIOS
    ]


@pytest.mark.parametrize("backend", ["sqlite", "indexeddb"])
@pytest.mark.parametrize("name", _names())
def test_fault_scenario(pyctx_module: Any, backend: str, name: str) -> None:
    """Each fault scenario holds in Pyodide on SQLite, and on IndexedDB in Chromium."""
    if backend == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    run_scenario(pyctx_module, MODULE, name, backend=backend)
