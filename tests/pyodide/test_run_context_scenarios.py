"""The run-context scenarios of tests/scenarios/run_context_scenarios.py, run inside Pyodide."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pyodide.scenario_runner import run_scenario, scenario_names

MODULE = "run_context_scenarios"
SCENARIO_NAMES = scenario_names(MODULE)


@pytest.mark.parametrize("name", SCENARIO_NAMES, ids=SCENARIO_NAMES)
def test_scenario_in_pyodide(pyctx_module: Any, name: str) -> None:
    """Each run-context scenario holds inside Pyodide, on the WebLoop of Node or Chromium."""
    run_scenario(pyctx_module, MODULE, name)
