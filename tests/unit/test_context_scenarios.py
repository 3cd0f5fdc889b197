"""The context-store scenarios of tests/scenarios/context_scenarios.py, run on CPython."""

from __future__ import annotations

import ast
import asyncio
import contextvars
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCENARIO_FILE = Path(__file__).resolve().parents[1] / "scenarios" / "context_scenarios.py"


def _load_scenarios() -> ModuleType:
    """Import the scenario module from its file, whatever pytest's import mode."""
    name = "pyctx_web_context_scenarios"
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
    """Each scenario holds on CPython (sync in a fresh context, async under asyncio.run)."""
    scenario = getattr(scenarios, name)
    if inspect.iscoroutinefunction(scenario):
        asyncio.run(scenario())
    else:
        contextvars.copy_context().run(scenario)


def test_every_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every scenario has a docstring of one sentence and there are scenarios to run."""
    assert len(SCENARIO_NAMES) >= 50
    for name in SCENARIO_NAMES:
        doc = inspect.getdoc(getattr(scenarios, name))
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
