"""The message scenarios of tests/scenarios/message_scenarios.py inside Pyodide.

Pyodide has no ``langchain_core``: messages are dicts there without any switch.
The scenario that pauses runs on SQLite (Node and Chromium) and IndexedDB
(Chromium); the others take no storage. The same module runs on CPython
(tests/unit/graph/test_message_scenarios.py).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from tests.pyodide.scenario_runner import run_scenario, scenario_names
from tests.scenario_support import load

MODULE = "message_scenarios"
SCENARIOS = scenario_names(MODULE)


def _cases() -> list[object]:
    cases: list[object] = []
    for name in SCENARIOS:
        takes_storage = bool(inspect.signature(getattr(load(MODULE), name)).parameters)
        backends = ("sqlite", "indexeddb") if takes_storage else (None,)
        cases.extend(
            pytest.param(backend, name, id=f"{backend}-{name}" if backend else name)
            for backend in backends
        )
    return cases


@pytest.mark.parametrize(("backend", "name"), _cases())
def test_message_scenario(pyctx_module: Any, backend: str | None, name: str) -> None:
    """Each message scenario holds in Pyodide; the pausing one on SQLite, and on IndexedDB."""
    if backend == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    run_scenario(pyctx_module, MODULE, name, backend=backend)
