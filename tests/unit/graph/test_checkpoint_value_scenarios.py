"""Checkpoint value scenarios of tests/scenarios/checkpoint_value_scenarios.py, memory and SQLite.

The same module runs inside Pyodide (tests/pyodide/test_checkpoint_value_scenarios.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.scenario_support import docstring_problems, foreign_imports, load, scenario_names

scenarios = load("checkpoint_value_scenarios")
backends = load("checkpointer_backends")
SCENARIOS = scenario_names(scenarios)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_checkpoint_value_scenario(kind: str, name: str, tmp_path: Path) -> None:
    """Each checkpoint value scenario holds on CPython, with memory and with SQLite storage."""
    factory = backends.make_factory(kind, str(tmp_path))

    async def main() -> None:
        try:
            await getattr(scenarios, name)(factory)
        finally:
            await factory.aclose()

    asyncio.run(main())


def test_every_checkpoint_value_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every checkpoint value scenario has a one-sentence docstring, and there are scenarios."""
    assert len(SCENARIOS) >= 7
    assert docstring_problems(scenarios) == []


def test_checkpoint_value_scenarios_import_only_pyctx_web_and_the_standard_library() -> None:
    """The checkpoint value scenario module imports only pyctx_web and the standard library."""
    assert foreign_imports(scenarios) == set()
