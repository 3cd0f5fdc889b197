"""install_as_langgraph() and the names pyctx_web.graph kept from before LangGraph's layout."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pyctx_web.graph

ROOT = Path(__file__).resolve().parents[3]


def _run(code: str, *, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter that imports this checkout (and ``path`` first)."""
    paths = [str(p) for p in (path, ROOT) if p is not None]
    env = {"PYTHONPATH": ":".join(paths), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )


def test_langgraph_names_import_pyctx_web_modules() -> None:
    """After install_as_langgraph(), each LangGraph module name is the pyctx_web module."""
    done = _run(
        """
        import importlib, sys
        from pyctx_web.graph import install_as_langgraph
        from pyctx_web.graph._alias import LANGGRAPH_MODULES
        install_as_langgraph()
        install_as_langgraph()  # a second call changes nothing
        for name, target in LANGGRAPH_MODULES.items():
            assert importlib.import_module(name) is importlib.import_module(target), name
        from langgraph.graph import StateGraph
        from langgraph.checkpoint.memory import MemorySaver
        from langgraph.types import Command
        print(StateGraph.__module__, MemorySaver.__name__, Command.__module__)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "pyctx_web.graph.state",
        "InMemorySaver",
        "pyctx_web.graph.types",
    ]


def test_a_module_langgraph_lacks_fails_to_import() -> None:
    """A LangGraph module pyctx_web does not provide raises ModuleNotFoundError naming it."""
    done = _run(
        """
        from pyctx_web.graph import install_as_langgraph
        install_as_langgraph()
        import langgraph.managed
        """
    )
    assert "ModuleNotFoundError: No module named 'langgraph.managed'" in done.stderr


def test_refuses_when_a_real_langgraph_is_importable(tmp_path: Path) -> None:
    """With a langgraph package on the path, install_as_langgraph() raises UsageError."""
    (tmp_path / "langgraph").mkdir()
    (tmp_path / "langgraph" / "__init__.py").write_text("")
    done = _run(
        """
        from pyctx_web.errors import UsageError
        from pyctx_web.graph import install_as_langgraph
        try:
            install_as_langgraph()
        except UsageError as error:
            print("refused:", error)
        """,
        path=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: install_as_langgraph() refuses to shadow")


def test_the_package_exports_a_small_namespace() -> None:
    """pyctx_web.graph exports what langgraph.graph does, and install_as_langgraph."""
    assert sorted(pyctx_web.graph.__all__) == [
        "END",
        "MessagesState",
        "START",
        "StateGraph",
        "add_messages",
        "install_as_langgraph",
    ]
    with pytest.raises(
        AttributeError, match=r"^module 'pyctx_web\.graph' has no attribute 'nothing'$"
    ):
        _ = pyctx_web.graph.nothing
