"""The checkpointer contract of tests/scenarios/checkpointer_contract.py, for memory and SQLite."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.scenario_support import docstring_problems, foreign_imports, load, scenario_names

contract = load("checkpointer_contract")
backends = load("checkpointer_backends")
SCENARIOS = scenario_names(contract)


KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def _cases() -> list[object]:
    cases: list[object] = []
    for kind in ("memory", "sqlite"):
        for name in SCENARIOS:
            missing = contract.requirements(getattr(contract, name)) - backends.CAPABILITIES[kind]
            marks: list[pytest.MarkDecorator] = []
            if missing:
                marks.append(pytest.mark.skip(reason=backends.lacking(kind, missing)))
            if (kind, name) in KNOWN_FAILURES:
                marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[kind, name], strict=True))
            cases.append(pytest.param(kind, name, id=f"{kind}-{name}", marks=marks))
    return cases


@pytest.mark.parametrize(("kind", "name"), _cases())
def test_contract(kind: str, name: str, tmp_path: Path) -> None:
    """Each contract scenario holds for the in-memory and the SQLite checkpointer on CPython."""
    factory = backends.make_factory(kind, str(tmp_path))

    async def main() -> None:
        try:
            await getattr(contract, name)(factory)
        finally:
            await factory.aclose()

    asyncio.run(main())


def test_every_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every contract scenario has a one-sentence docstring, and there are scenarios to run."""
    assert len(SCENARIOS) >= 20
    assert docstring_problems(contract) == []


def test_scenario_modules_import_only_pyctx_web_and_the_standard_library() -> None:
    """The modules copied into Pyodide import only pyctx_web and the standard library."""
    assert foreign_imports(contract) == set()
    assert foreign_imports(backends) == {"pyodide"}
