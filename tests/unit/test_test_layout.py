"""The layout of the tests: each scenario module of tests/scenarios/ has one runner per tier.

A test module runs a scenario module when it names it (``load("<name>")``, an
import of ``tests.scenarios.<name>``, or the name as a string) or when it runs
every scenario module through ``tests.scenario_support.cases``.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from tests.scenario_support import PACKAGE, module_names

TESTS = Path(__file__).resolve().parents[1]
TIERS = ("unit", "pyodide")


def _imports_cases(node: ast.AST) -> bool:
    """Whether ``node`` imports ``cases``, the runners' list of every scenario."""
    return (
        isinstance(node, ast.ImportFrom)
        and node.module == "tests.scenario_support"
        and any(alias.name == "cases" for alias in node.names)
    )


def _runs(path: Path, scenario_modules: list[str]) -> set[str]:
    """The scenario modules the test module at ``path`` runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named: set[str] = set()
    for node in ast.walk(tree):
        if _imports_cases(node):
            return set(scenario_modules)
        if isinstance(node, ast.ImportFrom) and node.module:
            named.add(node.module.removeprefix(f"{PACKAGE}."))
            if node.module == PACKAGE:
                named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            named.update(alias.name.removeprefix(f"{PACKAGE}.") for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.add(node.value)
    return named & set(scenario_modules)


def runners(tier: str) -> dict[str, list[str]]:
    """Each scenario module, and the test modules of ``tier`` that run it."""
    scenario_modules = module_names()
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted((TESTS / tier).rglob("test_*.py")):
        for module in _runs(path, scenario_modules):
            found[module].append(str(path.relative_to(TESTS)))
    return dict(found)


@pytest.mark.parametrize("tier", TIERS)
def test_each_scenario_module_has_one_runner_per_tier(tier: str) -> None:
    """No scenario module is run by two test modules of one tier, and each is run by one."""
    found = runners(tier)
    assert {module: paths for module, paths in found.items() if len(paths) > 1} == {}
    assert sorted(found) == module_names()
