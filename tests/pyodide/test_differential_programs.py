"""The differential programs that need no thread, inside Pyodide (Node and Chromium).

The programs of tests/differential/support.PYODIDE are async throughout: here
pyctx_web is installed under LangGraph's module names, the program's module is
run (not as ``__main__``) and its ``main()`` awaited on the WebLoop, with
standard output captured. The normalized output must equal the program's
expected file, which real LangGraph printed on CPython.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.differential import support

_RUNNER = """
import base64 as _b64
import json as _json

async def _pyctx_run_differential(payload):
    import contextlib
    import io
    import runpy
    import sys
    from pathlib import Path

    if "langgraph" not in sys.modules:
        from pyctx_web.graph import install_as_langgraph

        install_as_langgraph()
    folder = Path("/tmp/pyctx_differential")
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / f"{payload['name']}.py"
    program.write_text(payload["source"], encoding="utf-8")
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        namespace = runpy.run_path(str(program), run_name="__differential__")
        await namespace["main"]()
    return captured.getvalue()

await _pyctx_run_differential(_json.loads(_b64.b64decode("%s").decode()))
"""


@pytest.fixture(scope="module")
def langgraph_programs(pyctx_module: Any) -> Any:
    """One Pyodide per module with pyctx_web and typing-extensions, which the programs import."""
    pyctx_module.load_package("typing-extensions")
    return pyctx_module


@pytest.mark.parametrize("name", sorted(support.PYODIDE))
def test_program_prints_what_langgraph_prints(langgraph_programs: Any, name: str) -> None:
    """A program awaited in Pyodide prints what real LangGraph printed on CPython."""
    source = support.program_path(name).read_text(encoding="utf-8")
    payload = json.dumps({"name": name, "source": source}).encode()
    stdout = langgraph_programs.run_async(_RUNNER % base64.b64encode(payload).decode("ascii"))
    expected = support.expected_path(name).read_text(encoding="utf-8")
    runtime = f"pyctx_web in Pyodide ({langgraph_programs.browser})"
    diff = support.difference(name, expected, support.normalize(stdout), runtime)
    if diff is not None:
        pytest.fail(f"{name} printed otherwise in Pyodide:\n{diff}", pytrace=False)
