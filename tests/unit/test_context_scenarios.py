"""The context-store scenarios of tests/scenarios/context_scenarios.py, run on CPython."""

from __future__ import annotations

import asyncio
import contextvars
import inspect

import pytest

from tests.scenario_support import (
    docstring_problems,
    foreign_imports,
    imports,
    load,
    scenario_names,
)

scenarios = load("context_scenarios")
SCENARIO_NAMES = scenario_names(scenarios)


@pytest.mark.parametrize("name", SCENARIO_NAMES, ids=SCENARIO_NAMES)
def test_scenario(name: str) -> None:
    """Each scenario holds on CPython (sync in a fresh context, async under asyncio.run)."""
    scenario = getattr(scenarios, name)
    if inspect.iscoroutinefunction(scenario):
        asyncio.run(scenario())
    else:
        contextvars.copy_context().run(scenario)


def test_every_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every scenario has a docstring of one sentence and there are scenarios to run."""
    assert len(SCENARIO_NAMES) >= 50
    assert docstring_problems(scenarios) == []


def test_scenario_module_imports_only_pyctx_web_and_the_standard_library() -> None:
    """The scenario module imports only pyctx_web and the standard library (it runs in Pyodide)."""
    assert "pyctx_web" in imports(scenarios)
    assert foreign_imports(scenarios) == set()
