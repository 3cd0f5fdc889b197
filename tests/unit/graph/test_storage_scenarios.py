"""The storage scenario modules of tests/scenarios/ on CPython, each on memory and SQLite.

graph_scenarios (graph acceptance), thread_scenarios (one run per thread) and
checkpoint_value_scenarios (values checkpoints hold or refuse). The same modules
run inside Pyodide (tests/pyodide/test_storage_scenarios.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenario_support import (
    docstring_problems,
    foreign_imports,
    load,
    run_on_storage,
    scenario_names,
    storage_cases,
)

# Each module, and how many scenarios it has at least (a guard against losing them).
MODULES = {"graph_scenarios": 12, "thread_scenarios": 4, "checkpoint_value_scenarios": 7}


def _cases() -> list[object]:
    cases: list[object] = []
    for module in MODULES:
        for case in storage_cases(load(module)):
            kind, name = case.values
            cases.append(
                pytest.param(module, kind, name, id=f"{module}-{case.id}", marks=case.marks)
            )
    return cases


@pytest.mark.parametrize(("module", "kind", "name"), _cases())
def test_storage_scenario(module: str, kind: str, name: str, tmp_path: Path) -> None:
    """Each scenario of each storage scenario module holds on CPython, on memory and SQLite."""
    run_on_storage(load(module), name, kind, tmp_path)


@pytest.mark.parametrize("module", MODULES)
def test_every_scenario_states_its_behaviour_in_one_sentence(module: str) -> None:
    """Every scenario of the module has a one-sentence docstring, and none went missing."""
    scenarios = load(module)
    assert len(scenario_names(scenarios)) >= MODULES[module]
    assert docstring_problems(scenarios) == []


@pytest.mark.parametrize("module", MODULES)
def test_scenario_modules_import_only_pyctx_web_and_the_standard_library(module: str) -> None:
    """The scenario module imports only pyctx_web and the standard library."""
    assert foreign_imports(load(module)) == set()
