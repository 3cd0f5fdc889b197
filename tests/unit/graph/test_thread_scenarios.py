"""One-run-per-thread scenarios of tests/scenarios/thread_scenarios.py on CPython: memory, SQLite.

The same module runs inside Pyodide (tests/pyodide/test_thread_scenarios.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.scenario_support import docstring_problems, foreign_imports, load, scenario_names

scenarios = load("thread_scenarios")
backends = load("checkpointer_backends")
SCENARIOS = scenario_names(scenarios)


def _cases() -> list[object]:
    cases: list[object] = []
    for kind in ("memory", "sqlite"):
        for name in SCENARIOS:
            needed: frozenset[str] = getattr(getattr(scenarios, name), "requires", frozenset())
            missing = needed - backends.CAPABILITIES[kind]
            marks = [pytest.mark.skip(reason=backends.lacking(kind, missing))] if missing else []
            cases.append(pytest.param(kind, name, id=f"{kind}-{name}", marks=marks))
    return cases


@pytest.mark.parametrize(("kind", "name"), _cases())
def test_graph_scenario(kind: str, name: str, tmp_path: Path) -> None:
    """Each thread scenario holds on CPython, with memory and with SQLite storage."""
    factory = backends.make_factory(kind, str(tmp_path))

    async def main() -> None:
        try:
            await getattr(scenarios, name)(factory)
        finally:
            await factory.aclose()

    asyncio.run(main())


def test_every_graph_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every thread scenario has a one-sentence docstring, and there are scenarios to run."""
    assert len(SCENARIOS) >= 4
    assert docstring_problems(scenarios) == []


def test_thread_scenarios_import_only_pyctx_web_and_the_standard_library() -> None:
    """The thread scenario module imports only pyctx_web and the standard library."""
    assert foreign_imports(scenarios) == set()
