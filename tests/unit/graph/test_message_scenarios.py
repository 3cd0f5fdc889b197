"""The message scenarios of tests/scenarios/message_scenarios.py on CPython, with dict messages.

``langchain_core`` is installed for the differential tier, and where it is
importable ``add_messages`` gives LangChain message objects. The scenarios are
about the dict form (what Pyodide has), so each runs with
:mod:`pyctx_web.graph.message`'s cached look-up of ``langchain_core`` set to
"not importable": the one switch the module reads, in this process, undone
after the test. The import guard itself is checked in a fresh interpreter by
tests/unit/graph/test_message.py. The same module runs inside Pyodide
(tests/pyodide/test_message_scenarios.py).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from pathlib import Path

import pytest

from pyctx_web.graph import message
from tests.scenario_support import docstring_problems, foreign_imports, load, scenario_names

scenarios = load("message_scenarios")
backends = load("checkpointer_backends")
SCENARIOS = scenario_names(scenarios)


def _takes_storage(name: str) -> bool:
    return bool(inspect.signature(getattr(scenarios, name)).parameters)


def _cases() -> list[object]:
    cases: list[object] = []
    for name in SCENARIOS:
        kinds = ("memory", "sqlite") if _takes_storage(name) else (None,)
        cases.extend(
            pytest.param(kind, name, id=f"{kind}-{name}" if kind else name) for kind in kinds
        )
    return cases


@pytest.fixture(autouse=True)
def dict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as where ``langchain_core`` is not importable: messages are dicts."""
    monkeypatch.setattr(message, "_langchain", None)


@pytest.mark.parametrize(("kind", "name"), _cases())
def test_message_scenario(kind: str | None, name: str, tmp_path: Path) -> None:
    """Each message scenario holds on CPython; those with a storage on memory and SQLite."""
    scenario = getattr(scenarios, name)
    if kind is None:
        if inspect.iscoroutinefunction(scenario):
            asyncio.run(scenario())
        else:
            contextvars.copy_context().run(scenario)
        return
    factory = backends.make_factory(kind, str(tmp_path))

    async def main() -> None:
        try:
            await scenario(factory)
        finally:
            await factory.aclose()

    asyncio.run(main())


def test_every_message_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every message scenario has a one-sentence docstring, and there are scenarios to run."""
    assert len(SCENARIOS) >= 10
    assert docstring_problems(scenarios) == []


def test_message_scenarios_import_only_pyctx_web_and_the_standard_library() -> None:
    """The message scenario module imports only pyctx_web and the standard library."""
    assert foreign_imports(scenarios) == set()
