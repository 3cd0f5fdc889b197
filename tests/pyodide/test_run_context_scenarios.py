"""The run-context scenarios of tests/scenarios/run_context_scenarios.py, run inside Pyodide."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide  # type: ignore[import-untyped]

SCENARIO_FILE = Path(__file__).resolve().parents[1] / "scenarios" / "run_context_scenarios.py"
SCENARIO_SOURCE = SCENARIO_FILE.read_text(encoding="utf-8")
SCENARIO_NAMES = [
    node.name
    for node in ast.parse(SCENARIO_SOURCE).body
    if isinstance(node, ast.AsyncFunctionDef) and node.name.startswith("scenario_")
]


@run_in_pyodide
async def run_scenario(selenium: Any, source: str, name: str) -> None:
    """Load the scenario module from ``source`` (once per version) and await scenario ``name``."""
    import asyncio
    import hashlib
    import importlib.util
    import sys
    from pathlib import Path

    module_name = "run_context_scenarios"
    digest = hashlib.sha256(source.encode()).hexdigest()
    module = sys.modules.get(module_name)
    if module is None or getattr(module, "__source_digest__", None) != digest:
        path = Path("/tmp/pyctx_scenarios") / f"{module_name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        module.__source_digest__ = digest  # type: ignore[attr-defined]

    # A task of its own on the running WebLoop, so the scenario gets a fresh context.
    await asyncio.ensure_future(getattr(module, name)())


@pytest.mark.parametrize("name", SCENARIO_NAMES, ids=SCENARIO_NAMES)
def test_scenario_in_pyodide(pyctx_module: Any, name: str) -> None:
    """Each run-context scenario holds inside Pyodide, on the WebLoop of Node or Chromium."""
    run_scenario(pyctx_module, SCENARIO_SOURCE, name)
