"""Find the scenarios of tests/scenarios/ and say how each is run, for the runner of each tier.

A scenario module is a module of tests/scenarios/ that defines ``scenario_*``
functions; modules without any (``common``, ``checkpointer_backends``) support
them. A scenario taking no argument runs once; one taking a checkpointer factory
runs once per storage of the tier. Its marks (see tests/scenarios/common.py) and
its module's ``BUGS`` make a case skipped or a strict xfail. The runners are
tests/unit/test_scenarios.py (CPython) and tests/pyodide/test_scenarios.py: adding a
scenario module needs no runner of its own.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"
PACKAGE = "tests.scenarios"


def module_names() -> list[str]:
    """The scenario modules of tests/scenarios/, by name, sorted."""
    return sorted(path.stem for path in SCENARIO_DIR.glob("*.py") if _defines_scenarios(path))


def _defines_scenarios(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("scenario_")
        for node in tree.body
    )


def load(name: str) -> ModuleType:
    """The module ``tests/scenarios/<name>.py``."""
    return importlib.import_module(f"{PACKAGE}.{name}")


def scenario_names(module: ModuleType) -> list[str]:
    """The module's ``scenario_*`` functions, in source order."""
    return [name for name in vars(module) if name.startswith("scenario_")]


def takes_storage(scenario: Any) -> bool:
    """Whether the scenario takes a checkpointer factory (its one parameter)."""
    return bool(inspect.signature(scenario).parameters)


@dataclass(frozen=True)
class Case:
    """One run of one scenario: on a storage ``kind``, or on none."""

    module: str
    name: str
    kind: str | None

    @property
    def id(self) -> str:
        """The test id: module, storage when there is one, scenario."""
        parts = (self.module, self.kind, self.name) if self.kind else (self.module, self.name)
        return "-".join(parts)


def cases(kinds: tuple[str, ...], skip_pyodide_only: bool) -> list[Any]:
    """A pytest parameter for each run of each scenario of every scenario module.

    Scenarios taking storage run once per storage in ``kinds``; a storage lacking
    what a scenario ``requires`` skips it. ``pyodide_only`` scenarios are skipped
    when ``skip_pyodide_only``. A scenario named in its module's ``BUGS`` is a
    strict xfail with the bug as reason.
    """
    import pytest

    capabilities: dict[str, frozenset[str]] = load("checkpointer_backends").CAPABILITIES
    params: list[Any] = []
    for module_name in module_names():
        module = load(module_name)
        bugs: dict[str, str] = getattr(module, "BUGS", {})
        for name in scenario_names(module):
            scenario = getattr(module, name)
            needed: frozenset[str] = getattr(scenario, "requires", frozenset())
            for kind in kinds if takes_storage(scenario) else (None,):
                marks: list[Any] = []
                missing = needed - capabilities[kind] if kind else frozenset()
                if missing:
                    reason = load("checkpointer_backends").lacking(kind, missing)
                    marks.append(pytest.mark.skip(reason=reason))
                if skip_pyodide_only and getattr(scenario, "pyodide_only", False):
                    marks.append(pytest.mark.skip(reason="needs JavaScript: runs in Pyodide"))
                if name in bugs:
                    marks.append(pytest.mark.xfail(strict=True, reason=bugs[name]))
                case = Case(module_name, name, kind)
                params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def docstring_problems(module: ModuleType) -> list[str]:
    """Scenarios whose docstring is missing or is not one sentence on one line."""
    problems = []
    for name in scenario_names(module):
        doc = inspect.getdoc(getattr(module, name))
        if not doc or "\n" in doc or not doc.endswith("."):
            problems.append(name)
    return problems


def imports(module: ModuleType) -> set[str]:
    """Modules the module imports, anywhere in its source: top-level packages, but the
    scenario package's modules by their full name."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return {n if n.startswith(f"{PACKAGE}.") else n.split(".")[0] for n in names}


def scenario_imports(module: ModuleType) -> list[str]:
    """The modules of tests/scenarios/ the module imports, by name."""
    prefix = f"{PACKAGE}."
    return sorted(n.removeprefix(prefix) for n in imports(module) if n.startswith(prefix))


def foreign_imports(module: ModuleType) -> set[str]:
    """What the module imports besides pyctx_web, tests/scenarios/ and the standard library."""
    ours = {"pyctx_web", *(f"{PACKAGE}.{name}" for name in scenario_imports(module))}
    return imports(module) - ours - set(sys.stdlib_module_names)
