"""The package installs and imports inside Pyodide, in Node and in Chromium."""

from __future__ import annotations

from typing import Any

from pytest_pyodide import run_in_pyodide


@run_in_pyodide
def test_runs_on_python_314(selenium: Any) -> None:
    """Pyodide runs CPython 3.14."""
    import sys

    assert sys.version_info[:2] == (3, 14)
    assert sys.platform == "emscripten"


@run_in_pyodide(packages=["micropip"])
async def test_micropip_installs_the_wheel_from_the_local_distribution(selenium: Any) -> None:
    """micropip resolves pyctx-web from the distribution's lock file and installs it."""
    import importlib.metadata

    import micropip

    await micropip.install("pyctx-web")
    import pyctx_web

    assert pyctx_web.__version__ == importlib.metadata.version("pyctx-web")
    assert pyctx_web.__version__ != "0+unknown"
    installed = micropip.list()
    assert "pyctx-web" in installed
    assert installed["pyctx-web"].source != "pypi"


def test_in_pyodide_flag_is_true(pyctx: Any) -> None:
    """IN_PYODIDE is true inside Pyodide, and IN_BROWSER tells Chromium from Node."""

    @run_in_pyodide
    def check(selenium: Any, expect_browser: bool) -> None:
        from pyctx_web import IN_BROWSER, IN_PYODIDE

        assert IN_PYODIDE is True
        assert IN_BROWSER is expect_browser

    check(pyctx, pyctx.browser != "node")


def test_sqlite3_is_importable(pyctx: Any) -> None:
    """sqlite3 imports in Pyodide 314 without loading a package."""

    @run_in_pyodide
    def check(selenium: Any) -> None:
        import sqlite3

        con = sqlite3.connect(":memory:")
        assert con.execute("select 1 + 1").fetchone() == (2,)

    check(pyctx)
