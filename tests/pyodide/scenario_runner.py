"""Run the shared scenario modules of tests/scenarios/ inside Pyodide.

The host reads the modules' sources and sends them, base64-encoded, with the
name of a scenario and, for the scenarios that take a checkpointer factory, of a
storage (see checkpointer_backends.make_factory). Pyodide writes them to its file
system and imports them once per source version. A scenario with a storage gets a
fresh one, closed afterwards. Async scenarios are awaited in a task of their own
on the WebLoop (so each gets a fresh context); sync ones run in a copy of the
current context.
"""

from __future__ import annotations

import ast
import base64
import json
from typing import Any

import pytest

from tests.scenario_support import SCENARIO_DIR, load

CAPABILITIES = {
    "sqlite": frozenset({"persistent", "failure", "non_text"}),
    "indexeddb": frozenset({"persistent", "failure", "non_text"}),
}
"""What the storages used in Pyodide offer (as checkpointer_backends.CAPABILITIES)."""
SUPPORT_MODULES = ("checkpointer_backends",)
"""Modules every run on a storage ships besides the scenario module."""

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
    root.mkdir(parents=True, exist_ok=True)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    for name, text in payload["modules"].items():
        digest = hashlib.sha256(text.encode()).hexdigest()
        module = sys.modules.get(name)
        if module is None or getattr(module, "__source_digest__", None) != digest:
            (root / f"{name}.py").write_text(text, encoding="utf-8")
            sys.modules.pop(name, None)
            importlib.invalidate_caches()
            module = importlib.import_module(name)
            module.__source_digest__ = digest
    scenario = getattr(sys.modules[payload["module"]], payload["name"])
    kind = payload["backend"]
    if kind is None:
        if inspect.iscoroutinefunction(scenario):
            await asyncio.ensure_future(scenario())
        else:
            contextvars.copy_context().run(scenario)
        return
    backends = sys.modules["checkpointer_backends"]
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


def source(module: str) -> str:
    """The source of ``tests/scenarios/<module>.py``."""
    return (SCENARIO_DIR / f"{module}.py").read_text(encoding="utf-8")


def scenario_names(module: str) -> list[str]:
    """The ``scenario_*`` functions of a scenario module, in source order."""
    return [
        node.name
        for node in ast.parse(source(module)).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("scenario_")
    ]


def requirements(module: str, name: str) -> frozenset[str]:
    """The storage capabilities scenario ``name`` needs (its ``requires`` mark)."""
    needed: frozenset[str] = getattr(getattr(load(module), name), "requires", frozenset())
    return needed


def run_scenario(selenium: Any, module: str, name: str, *, backend: str | None = None) -> None:
    """Run scenario ``name`` of ``module`` inside the Pyodide of ``selenium``.

    With ``backend``, the scenario is given a checkpointer factory on that storage
    (and skipped if the storage lacks what it requires); without, it takes no argument.
    """
    support: tuple[str, ...] = ()
    if backend is not None:
        missing = requirements(module, name) - CAPABILITIES[backend]
        if missing:
            pytest.skip(f"the {backend} storage lacks {', '.join(sorted(missing))}")
        support = SUPPORT_MODULES
    modules = {m: source(m) for m in (*support, module)}
    payload = {"modules": modules, "module": module, "name": name, "backend": backend}
    encoded = base64.b64encode(json.dumps(payload).encode()).decode("ascii")
    selenium.run_async(_RUNNER % encoded)
