"""Run the shared scenario modules of tests/scenarios/ inside Pyodide.

The host reads the modules' sources and sends them, base64-encoded, with the
name of a scenario and of a storage (see checkpointer_backends.make_factory).
Pyodide writes them to its file system, imports them once per source version,
builds a fresh storage, awaits the scenario in a task of its own (so it gets a
fresh context) and closes the storage.
"""

from __future__ import annotations

import ast
import base64
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

SCENARIO_DIR = Path(__file__).resolve().parents[1] / "scenarios"
CAPABILITIES = {
    "sqlite": frozenset({"persistent", "failure", "non_text"}),
    "indexeddb": frozenset({"persistent", "failure", "non_text"}),
}
"""What the storages used in Pyodide offer (as checkpointer_backends.CAPABILITIES)."""
SUPPORT_MODULES = ("checkpointer_backends",)
"""Modules every run ships besides the scenario module."""

_RUNNER = """
import base64 as _b64
import json as _json

async def _pyctx_run_scenario(payload):
    import asyncio
    import hashlib
    import importlib
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
    backends = sys.modules["checkpointer_backends"]
    kind = payload["backend"]
    if kind == "sqlite":
        place = Path("/tmp/pyctx_storage") / uuid.uuid4().hex
        place.mkdir(parents=True)
        place = str(place)
    else:
        place = f"pyctx_scenario_{uuid.uuid4().hex}"
    factory = backends.make_factory(kind, place)
    scenario = getattr(sys.modules[payload["module"]], payload["name"])
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
    qualified = f"pyctx_web_host_{module}"
    loaded = sys.modules.get(qualified)
    if loaded is None:
        spec = importlib.util.spec_from_file_location(qualified, SCENARIO_DIR / f"{module}.py")
        assert spec is not None
        assert spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = loaded
        spec.loader.exec_module(loaded)
    needed: frozenset[str] = getattr(getattr(loaded, name), "requires", frozenset())
    return needed


def run_scenario(selenium: Any, module: str, name: str, *, backend: str) -> None:
    """Run scenario ``name`` of ``module`` inside the Pyodide of ``selenium`` on ``backend``."""
    missing = requirements(module, name) - CAPABILITIES[backend]
    if missing:
        pytest.skip(f"the {backend} storage lacks {', '.join(sorted(missing))}")
    modules = {m: source(m) for m in (*SUPPORT_MODULES, module)}
    payload = {"modules": modules, "module": module, "name": name, "backend": backend}
    encoded = base64.b64encode(json.dumps(payload).encode()).decode("ascii")
    selenium.run_async(_RUNNER % encoded)
