"""Fault-injection scenarios of tests/scenarios/fault_scenarios.py on CPython, memory and SQLite.

The same module runs inside Pyodide (tests/pyodide/test_fault_scenarios.py). The
scenarios named in its ``BUGS`` show bugs of the package and fail until they are fixed.
"""

from __future__ import annotations

import asyncio
from collections import Counter
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

scenarios = load("fault_scenarios")
backends = load("checkpointer_backends")
SCENARIOS = scenario_names(scenarios)
PER_FAULT = [name for name in SCENARIOS if "each_operation" in name]

BUGS = scenarios.BUGS


@pytest.mark.parametrize(("kind", "name"), storage_cases(scenarios))
def test_fault_scenario(kind: str, name: str, tmp_path: Path) -> None:
    """Each fault scenario holds on CPython, with memory and with SQLite storage."""
    run_on_storage(scenarios, name, kind, tmp_path)


def test_every_fault_and_operation_has_a_row_saying_what_it_left() -> None:
    """The fault table has one row per fault kind, durability and operation of the clean run."""
    factory = backends.make_factory("memory", "")
    scenarios.REPORT.clear()

    async def main() -> dict[str, int]:
        for name in PER_FAULT:
            await getattr(scenarios, name)(backends.make_factory("memory", ""))
        return {d: len((await scenarios.clean_run(factory, d)).ops) for d in scenarios.DURABILITIES}

    ops = asyncio.run(main())
    rows = list(scenarios.REPORT)
    faults = ("fail_before", "fail_after", "cancel_before", "cancel_after")
    kinds = (*faults, "pause_release", "pause_cancel")
    seen = Counter((row["fault"], row["durability"]) for row in rows)
    assert seen == Counter({(k, d): n for k in kinds for d, n in ops.items()})
    table = scenarios.fault_table(rows).splitlines()
    assert len(table) == 2 + len(rows)
    assert all(row["thread"] and row["caller_saw"] for row in rows)
    # Only one case is broken by a bug in the package (the others are scenarios of their own).
    assert [row["tid"] for row in rows if row.get("known_bug")] == []


def test_every_fault_scenario_states_its_behaviour_in_one_sentence() -> None:
    """Every fault scenario has a one-sentence docstring, and there are scenarios to run."""
    assert len(PER_FAULT) == 6
    assert set(BUGS) <= set(SCENARIOS)
    assert docstring_problems(scenarios) == []


def test_fault_scenarios_import_only_pyctx_web_and_the_standard_library() -> None:
    """The fault scenario module imports only pyctx_web and the standard library."""
    assert foreign_imports(scenarios) == set()
