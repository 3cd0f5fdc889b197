"""Every scenario of every module of tests/scenarios/, run on CPython.

Scenarios taking storage run on the in-memory and the SQLite storage (see
tests/scenario_support.py for what is skipped or expected to fail). Sync
scenarios run in a copy of the current context, async ones under
``asyncio.run``. Modules that set ``DICT_MESSAGES`` run as where
``langchain_core`` is not importable: :mod:`pyctx_web.graph.message`'s cached
look-up of it is set to "not importable" for the test (``langchain_core`` is
installed here for the differential tier; the import guard itself is checked in
a fresh interpreter by tests/unit/graph/test_message.py). The same scenarios run
inside Pyodide (tests/pyodide/test_scenarios.py).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from pathlib import Path

import pytest

from pyctx_web.graph import message
from tests.scenario_support import (
    Case,
    cases,
    docstring_problems,
    foreign_imports,
    load,
    module_names,
    scenario_names,
)

STORAGES = ("memory", "sqlite")
"""The storages of this tier (see tests/scenarios/checkpointer_backends.py)."""

MINIMUM = {
    "cancel_scenarios": 13,
    "checkpoint_value_scenarios": 7,
    "checkpointer_contract": 20,
    "context_scenarios": 50,
    "fault_scenarios": 7,
    "graph_scenarios": 12,
    "message_scenarios": 10,
    "run_context_scenarios": 5,
    "thread_scenarios": 4,
}
"""How many scenarios each module has at least: a guard against losing some."""

SUPPORT_IMPORTS = {"common": set(), "checkpointer_backends": {"pyodide"}}
"""The modules of tests/scenarios/ without scenarios, and what they import besides
pyctx_web, the scenario modules and the standard library."""


@pytest.mark.parametrize("case", cases(STORAGES, skip_pyodide_only=True))
def test_scenario(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each scenario holds on CPython, once per storage when it takes one."""
    module = load(case.module)
    if getattr(module, "DICT_MESSAGES", False):
        monkeypatch.setattr(message, "_langchain", None)
    scenario = getattr(module, case.name)
    if case.kind is None:
        if inspect.iscoroutinefunction(scenario):
            asyncio.run(scenario())
        else:
            contextvars.copy_context().run(scenario)
        return
    factory = load("checkpointer_backends").make_factory(case.kind, str(tmp_path))

    async def main() -> None:
        try:
            await scenario(factory)
        finally:
            await factory.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("name", module_names())
def test_every_scenario_states_its_behaviour_in_one_sentence(name: str) -> None:
    """Every scenario of the module has a one-sentence docstring, and none went missing."""
    module = load(name)
    assert len(scenario_names(module)) >= MINIMUM.get(name, 1)
    assert docstring_problems(module) == []
    assert set(getattr(module, "BUGS", {})) <= set(scenario_names(module))


@pytest.mark.parametrize("name", module_names())
def test_scenario_module_imports_only_pyctx_web_and_the_standard_library(name: str) -> None:
    """The scenario module imports only pyctx_web, tests/scenarios/ and the standard library."""
    module = load(name)
    assert foreign_imports(module) == set()


def test_support_modules_import_only_pyctx_web_and_the_standard_library() -> None:
    """The support modules import only pyctx_web, the standard library and Pyodide's modules."""
    found = {name: foreign_imports(load(name)) for name in SUPPORT_IMPORTS}
    assert found == SUPPORT_IMPORTS
    assert set(SUPPORT_IMPORTS).isdisjoint(module_names())
