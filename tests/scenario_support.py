"""Load the scenario modules of tests/scenarios/ from their files, whatever the import mode.

The CPython runners of both tiers import the modules through ``load``; the checks
below are those every scenario module must pass to run in Pyodide as well.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"


def load(name: str) -> ModuleType:
    """Import ``tests/scenarios/<name>.py`` once, under the name ``pyctx_web_<name>``."""
    qualified = f"pyctx_web_{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    spec = importlib.util.spec_from_file_location(qualified, SCENARIO_DIR / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    spec.loader.exec_module(module)
    return module


def scenario_names(module: ModuleType) -> list[str]:
    """The module's ``scenario_*`` functions, in source order."""
    return [name for name in vars(module) if name.startswith("scenario_")]


def docstring_problems(module: ModuleType) -> list[str]:
    """Scenarios whose docstring is missing or is not one sentence on one line."""
    problems = []
    for name in scenario_names(module):
        doc = inspect.getdoc(getattr(module, name))
        if not doc or "\n" in doc or not doc.endswith("."):
            problems.append(name)
    return problems


def imports(module: ModuleType) -> set[str]:
    """Top-level packages the module imports, anywhere in its source."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    return imported


def foreign_imports(module: ModuleType) -> set[str]:
    """Top-level packages the module imports besides pyctx_web and the standard library."""
    return {name for name in imports(module) if name != "pyctx_web"} - set(sys.stdlib_module_names)


def storage_cases(module: ModuleType, kinds: tuple[str, ...] = ("memory", "sqlite")) -> list[Any]:
    """``(kind, name)`` parameters of every scenario of ``module`` on each storage ``kind``.

    A scenario whose ``requires`` names a capability the storage lacks is skipped;
    one named in the module's ``BUGS`` is a strict xfail with the bug as reason.
    """
    import pytest

    backends = load("checkpointer_backends")
    bugs: dict[str, str] = getattr(module, "BUGS", {})
    cases: list[Any] = []
    for kind in kinds:
        for name in scenario_names(module):
            needed: frozenset[str] = getattr(getattr(module, name), "requires", frozenset())
            missing = needed - backends.CAPABILITIES[kind]
            marks = [pytest.mark.skip(reason=backends.lacking(kind, missing))] if missing else []
            if name in bugs:
                marks.append(pytest.mark.xfail(strict=True, reason=bugs[name]))
            cases.append(pytest.param(kind, name, id=f"{kind}-{name}", marks=marks))
    return cases


def run_on_storage(module: ModuleType, name: str, kind: str, directory: Path) -> None:
    """Run scenario ``name`` of ``module`` on a fresh ``kind`` storage in ``directory``."""
    import asyncio

    factory = load("checkpointer_backends").make_factory(kind, str(directory))

    async def main() -> None:
        try:
            await getattr(module, name)(factory)
        finally:
            await factory.aclose()

    asyncio.run(main())
