"""Every scenario of every module of tests/scenarios/, run inside Pyodide (Node and Chromium).

Scenarios taking storage run on SQLite, and on IndexedDB in Chromium (Node has
none); see tests/scenario_support.py for what is skipped or expected to fail. The
host sends the scenario's module and the modules of tests/scenarios/ it imports,
base64-encoded, with the scenario's name and storage. Pyodide writes them under
the package ``tests.scenarios`` of its file system and imports them once per
source version. Async scenarios are awaited in a task of their own on the
WebLoop (so each gets a fresh context), sync ones run in a copy of the current
context. The same scenarios run on CPython (tests/unit/test_scenarios.py).
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.scenario_support import SCENARIO_DIR, Case, cases, load, scenario_imports

STORAGES = ("sqlite", "indexeddb")
"""The storages of this tier (see tests/scenarios/checkpointer_backends.py)."""

_RUNNER = """
import base64 as _b64
import json as _json

async def _pyctx_run_scenario(payload):
    import asyncio
    import contextvars
    import hashlib
    import importlib
    import inspect
    import sys
    import uuid
    from pathlib import Path

    root = Path("/tmp/pyctx_scenarios")
    package = root / "tests" / "scenarios"
    package.mkdir(parents=True, exist_ok=True)
    (root / "tests" / "__init__.py").touch()
    (package / "__init__.py").touch()
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    stale = False
    for name, text in payload["modules"].items():
        digest = hashlib.sha256(text.encode()).hexdigest()
        module = sys.modules.get(f"tests.scenarios.{name}")
        if module is None or getattr(module, "__source_digest__", None) != digest:
            (package / f"{name}.py").write_text(text, encoding="utf-8")
            stale = stale or module is not None
    if stale:  # a changed source: import every module of the package again
        for loaded in [m for m in sys.modules if m.startswith("tests.scenarios.")]:
            del sys.modules[loaded]
    importlib.invalidate_caches()
    for name, text in payload["modules"].items():
        module = importlib.import_module(f"tests.scenarios.{name}")
        module.__source_digest__ = hashlib.sha256(text.encode()).hexdigest()
    scenario = getattr(sys.modules[f"tests.scenarios.{payload['module']}"], payload["name"])
    kind = payload["backend"]
    if kind is None:
        if inspect.iscoroutinefunction(scenario):
            await asyncio.ensure_future(scenario())
        else:
            contextvars.copy_context().run(scenario)
        return
    backends = sys.modules["tests.scenarios.checkpointer_backends"]
    if kind == "sqlite":
        place = Path("/tmp/pyctx_storage") / uuid.uuid4().hex
        place.mkdir(parents=True)
        place = str(place)
    else:
        place = f"pyctx_scenario_{uuid.uuid4().hex}"
    factory = backends.make_factory(kind, place)
    try:
        await asyncio.ensure_future(scenario(factory))
    finally:
        await factory.aclose()

await _pyctx_run_scenario(_json.loads(_b64.b64decode("%s").decode()))
del _pyctx_run_scenario
"""


def _shipped(case: Case) -> list[str]:
    """The modules of tests/scenarios/ the case needs, those it imports first."""
    needed = ["checkpointer_backends"] if case.kind else []
    for name in [*needed, case.module]:
        for dependency in scenario_imports(load(name)):
            if dependency not in needed:
                needed.insert(0, dependency)
    return [*dict.fromkeys([*needed, case.module])]


@pytest.mark.parametrize("case", cases(STORAGES, skip_pyodide_only=False))
def test_scenario(pyctx_module: Any, case: Case) -> None:
    """Each scenario holds inside Pyodide, once per storage when it takes one."""
    if case.kind == "indexeddb" and pyctx_module.browser == "node":
        pytest.skip("Node has no IndexedDB")
    modules = {m: (SCENARIO_DIR / f"{m}.py").read_text(encoding="utf-8") for m in _shipped(case)}
    payload = {"modules": modules, "module": case.module, "name": case.name, "backend": case.kind}
    encoded = base64.b64encode(json.dumps(payload).encode()).decode("ascii")
    pyctx_module.run_async(_RUNNER % encoded)
