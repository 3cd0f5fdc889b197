"""What importing the package costs: a constant version, and imports of only what is used."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pyctx_web

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_a_plain_string_assigned_in_the_package() -> None:
    """__version__ is a str assigned by a literal in pyctx_web/__init__.py, not computed."""
    tree = ast.parse((ROOT / "pyctx_web" / "__init__.py").read_text())
    literals = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [ast.unparse(t) for t in node.targets] == ["__version__"]
        and isinstance(node.value, ast.Constant)
    ]
    assert literals == [pyctx_web.__version__]
    assert type(vars(pyctx_web)["__version__"]) is str


def test_pyproject_takes_its_version_from_the_package() -> None:
    """pyproject.toml declares no version of its own: the build reads pyctx_web/__init__.py."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"]
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["hatch"]["version"] == {"path": "pyctx_web/__init__.py"}


def test_build_backend_reads_the_package_constant() -> None:
    """The version hatchling writes into the wheel's metadata is pyctx_web.__version__."""
    core = pytest.importorskip("hatchling.metadata.core")
    manager = pytest.importorskip("hatchling.plugin.manager")
    metadata = core.ProjectMetadata(str(ROOT), manager.PluginManager())
    assert metadata.version == pyctx_web.__version__


STDLIB_NOT_AT_IMPORT = {
    "importlib.metadata": "the version is a constant; the lookup imports email and costs most",
    "email": "imported by importlib.metadata",
    "importlib.resources": "only the JavaScript sources are read through it, when asked for",
    "uuid": "ids in UUID form come from os.urandom (uuid loads an extension module)",
    "hashlib": "ids are hashed with the builtin _sha2 (hashlib loads every hash module)",
    "sqlite3": "only SqliteSaver uses it",
    "fractions": "only JSON Schema's multipleOf needs exact decimals",
    "urllib.parse": "only a JSON Schema $ref needs unquoting",
    "concurrent.futures.thread": "only a sync call from inside a running event loop needs a thread",
}
"""Standard-library modules no import of the package loads, with why (slow in Pyodide)."""

RUN_MACHINERY = {
    "pyctx_web.graph._engine.loop": "the step loop",
    "pyctx_web.graph._engine.execute": "starting and resuming runs",
    "pyctx_web.graph._engine.records": "checkpoint records",
    "pyctx_web.graph._engine.views": "state snapshots",
    "pyctx_web.graph._runctx.lifecycle": "a run's context and cancel control",
    "pyctx_web.graph._runctx.tool_calls": "tool calls",
    "pyctx_web.graph._runctx.jsonschema": "tool argument validation",
    "pyctx_web.graph.drawing": "get_graph()",
    "pyctx_web.graph.checkpoint.memory": "InMemorySaver, imported by who uses it",
    "pyctx_web.graph.checkpoint.sqlite": "SqliteSaver, imported by who uses it",
    "pyctx_web.graph.checkpoint.indexeddb": "IndexedDBSaver, imported by who uses it",
}
"""Modules of the package that wait for the first run (or for whoever uses them)."""

COMPILE_A_GRAPH = """
from typing import TypedDict
from pyctx_web.graph import END, START, StateGraph

class State(TypedDict):
    n: int

def step(state: State) -> dict[str, int]:
    return {"n": state["n"] + 1}

builder = StateGraph(State)
for name in "abcd":
    builder.add_node(name, step)
builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", "d")
graph = builder.add_edge("d", END).compile()
"""


def _modules_after(code: str) -> set[str]:
    """The names in sys.modules after a fresh interpreter runs ``code``."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return set(done.stdout.split())


def test_importing_the_context_store_loads_no_graph_and_no_heavy_stdlib() -> None:
    """``import pyctx_web`` loads the context store only: no graph, inspect, asyncio or json."""
    loaded = _modules_after("import pyctx_web")
    unwanted = {*STDLIB_NOT_AT_IMPORT, "inspect", "asyncio", "json", "dataclasses"}
    assert loaded & unwanted == set()
    assert {m for m in loaded if m.startswith("pyctx_web.")} == {
        "pyctx_web._env",
        "pyctx_web._homes",
        "pyctx_web.context",
        "pyctx_web.errors",
        "pyctx_web.execution",
    }


def test_graph_errors_import_without_the_graph_builder() -> None:
    """``pyctx_web.graph.errors`` imports without StateGraph, the engine or its value classes."""
    loaded = _modules_after("import pyctx_web.graph.errors")
    assert loaded & set(STDLIB_NOT_AT_IMPORT) == set()
    assert {m for m in loaded if m.startswith("pyctx_web.graph")} == {
        "pyctx_web.graph",
        "pyctx_web.graph.errors",
    }


def test_compiling_a_graph_waits_for_the_first_run_to_load_the_run_machinery() -> None:
    """compile() loads no run machinery; the first invoke() loads what it runs with."""
    compiled = _modules_after(COMPILE_A_GRAPH)
    assert compiled & set(STDLIB_NOT_AT_IMPORT) == set()
    assert compiled & set(RUN_MACHINERY) == set()
    ran = _modules_after(f"{COMPILE_A_GRAPH}\nassert graph.invoke({{'n': 0}}) == {{'n': 4}}")
    assert {"pyctx_web.graph._engine.loop", "pyctx_web.graph._runctx.lifecycle"} <= ran
    assert "pyctx_web.graph._runctx.jsonschema" not in ran  # no tool, no schema to check
    # Task ids are hashed with _sha2 where it exists (CPython 3.12 on, Pyodide), else hashlib.
    assert ran & set(STDLIB_NOT_AT_IMPORT) == (
        set() if sys.version_info >= (3, 12) else {"hashlib"}
    )
