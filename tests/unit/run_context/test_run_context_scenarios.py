"""The run-context scenarios of tests/scenarios/run_context_scenarios.py, run on CPython."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from tests.scenario_support import (
    docstring_problems,
    foreign_imports,
    imports,
    load,
    scenario_names,
)

scenarios = load("run_context_scenarios")
SCENARIO_NAMES = scenario_names(scenarios)


@pytest.mark.parametrize("name", SCENARIO_NAMES, ids=SCENARIO_NAMES)
def test_scenario(name: str) -> None:
    """Each run-context scenario holds on CPython under asyncio.run."""
    scenario = getattr(scenarios, name)
    if getattr(scenario, "pyodide_only", False):
        pytest.skip("needs JavaScript: runs in tests/pyodide/test_run_context_scenarios.py")
    asyncio.run(scenario())


def test_every_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every scenario is a coroutine function with a one-sentence docstring."""
    assert len(SCENARIO_NAMES) >= 6
    not_async = [
        n for n in SCENARIO_NAMES if not inspect.iscoroutinefunction(getattr(scenarios, n))
    ]
    assert not_async == []
    assert docstring_problems(scenarios) == []


def test_scenario_module_imports_only_pyctx_web_and_the_standard_library() -> None:
    """The scenario module imports only pyctx_web and the standard library (it runs in Pyodide)."""
    assert "pyctx_web" in imports(scenarios)
    assert foreign_imports(scenarios) == set()
