"""The run-context scenarios of tests/scenarios/run_context_scenarios.py, run on CPython."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCENARIO_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "run_context_scenarios.py"


def _load_scenarios() -> ModuleType:
    """Import the scenario module from its file, whatever pytest's import mode."""
    name = "pyctx_web_run_context_scenarios"
    spec = importlib.util.spec_from_file_location(name, SCENARIO_FILE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


scenarios = _load_scenarios()
SCENARIO_NAMES = [name for name in vars(scenarios) if name.startswith("scenario_")]


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
    for name in SCENARIO_NAMES:
        scenario = getattr(scenarios, name)
        assert inspect.iscoroutinefunction(scenario), f"{name} is not async"
        doc = inspect.getdoc(scenario)
        assert doc, f"{name} has no docstring"
        assert "\n" not in doc, f"{name}: the docstring is more than one line"
        assert doc.endswith("."), f"{name}: the docstring is not one sentence"


def test_scenario_module_imports_only_pyctx_web_and_the_standard_library() -> None:
    """The scenario module imports only pyctx_web and the standard library (it runs in Pyodide)."""
    tree = ast.parse(SCENARIO_FILE.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    foreign = {name for name in imported if name != "pyctx_web"} - set(sys.stdlib_module_names)
    assert "pyctx_web" in imported
    assert not foreign, f"non-standard imports: {sorted(foreign)}"
