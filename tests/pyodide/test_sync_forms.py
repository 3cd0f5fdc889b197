"""The sync forms (``invoke``, ``stream``, ``get_state``...) inside Pyodide (Node and Chromium).

Where the runtime has JavaScript Promise Integration (JSPI: Chromium) and
Python was entered through an async entry (``pyodide.runPythonAsync``, an
async function), the sync forms block on the async ones with
``pyodide.ffi.run_sync``. So LangGraph programs written with sync ``invoke``
and ``stream`` run unmodified there: each program of
tests/differential/support.PYODIDE_SYNC runs as ``__main__`` with pyctx_web
installed under LangGraph's module names, and its normalized output must equal
the expected file, which real LangGraph printed on CPython.

Where the runtime has no JSPI (Node 20), each sync form raises
SyncUnavailableError naming its async form; the tests check that, then skip
what needs JSPI, saying so.
"""

from __future__ import annotations

import ast
import base64
import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.differential import support

_PROGRAM_RUNNER = """
import base64 as _b64
import json as _json

def _pyctx_run_sync_program(payload):
    import contextlib
    import io
    import runpy
    import sys
    from pathlib import Path

    from pyodide.ffi import can_run_sync

    if "langgraph" not in sys.modules:
        from pyctx_web.graph import install_as_langgraph

        install_as_langgraph()
    from pyctx_web.graph.errors import SyncUnavailableError

    folder = Path("/tmp/pyctx_differential_sync")
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / f"{payload['name']}.py"
    program.write_text(payload["source"], encoding="utf-8")
    captured = io.StringIO()
    error = None
    with contextlib.redirect_stdout(captured):
        try:
            runpy.run_path(str(program), run_name="__main__")
        except SyncUnavailableError as exc:
            error = str(exc)
    return _json.dumps({"jspi": can_run_sync(), "stdout": captured.getvalue(), "error": error})

_pyctx_run_sync_program(_json.loads(_b64.b64decode("%s").decode()))
"""
"""Runs a program unmodified as ``__main__``, called (not awaited) from runPythonAsync."""

_SYNC_FORMS = '''
def sync_forms():
    """Every sync form on one thread: what each returned, or the error it raised."""
    import asyncio
    import operator
    from typing import Annotated, TypedDict

    from pyctx_web.graph import END, START, StateGraph
    from pyctx_web.graph.checkpoint.memory import InMemorySaver
    from pyctx_web.graph.errors import SyncUnavailableError
    from pyctx_web.graph.types import Command, interrupt

    class State(TypedDict, total=False):
        log: Annotated[list, operator.add]
        answer: str

    ran = []

    async def a(state):
        ran.append("a")
        await asyncio.sleep(0.01)
        return {"log": ["a"]}

    def b(state):
        ran.append("b")
        return {"answer": interrupt("question")}

    builder = StateGraph(State).add_node("a", a).add_node("b", b)
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    early = {"configurable": {"thread_id": "early"}}
    calls = {
        # Each chunk with the nodes that had run when it came: b runs after a's chunk.
        "stream": lambda: [(sorted(c), list(ran)) for c in graph.stream({"log": []}, config)],
        "get_state": lambda: graph.get_state(config).next,
        "update_state": lambda: graph.update_state(config, {"log": ["human"]})["configurable"][
            "thread_id"
        ],
        "invoke": lambda: graph.invoke(Command(resume="ok"), config),
        "get_state_history": lambda: [
            s.metadata["source"] for s in graph.get_state_history(config)
        ],
        "stream_left_early": lambda: [next(iter(graph.stream({"log": []}, early)))],
        "after_early": lambda: graph.get_state(early).values,
    }
    results = {}
    for name, call in calls.items():
        try:
            results[name] = repr(call())
        except SyncUnavailableError as exc:
            results[name] = f"SyncUnavailableError: {exc}"
    return results
'''
"""Every sync form once; run on CPython (the reference) and in Pyodide, compared."""

_NO_JSPI = re.compile(
    r"(?P<name>\w+)\(\) is not available in Pyodide here: this JavaScript runtime has no "
    r"JavaScript Promise Integration \(JSPI\), which pyodide.ffi.run_sync needs; "
    r"use `await graph\.a(?P=name)\(\.\.\.\)`"
)
_SYNC_NAMES = frozenset({"invoke", "stream", "get_state", "get_state_history", "update_state"})


def _payload(value: object) -> str:
    return base64.b64encode(json.dumps(value).encode()).decode("ascii")


def _has_jspi(selenium: Any) -> bool:
    return bool(selenium.run_js('return "Suspending" in WebAssembly || "Suspender" in WebAssembly'))


def _skip_without_jspi(selenium: Any, checked: str) -> None:
    pytest.skip(
        f"{selenium.browser} has no JavaScript Promise Integration (JSPI), so "
        f"pyodide.ffi.run_sync cannot block; checked instead: {checked}"
    )


def _reference_sync_forms() -> dict[str, str]:
    """:data:`_SYNC_FORMS` on this CPython, in a thread of its own: pytest's runs a loop."""
    namespace: dict[str, Any] = {}
    exec(compile(_SYNC_FORMS, "<sync_forms>", "exec", dont_inherit=True), namespace)
    with ThreadPoolExecutor(max_workers=1) as pool:
        results: dict[str, str] = pool.submit(namespace["sync_forms"]).result()
    return results


def _first_sync_call(source: str) -> str:
    """The sync form that a program's top-level statements call first."""
    calls = [
        (node.lineno, node.col_offset, node.func.attr)
        for statement in ast.parse(source).body
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _SYNC_NAMES
    ]
    assert calls, "the program calls no sync form at its top level"
    return min(calls)[2]


@pytest.fixture(scope="module")
def sync_programs(pyctx_module: Any) -> Any:
    """One Pyodide per module with pyctx_web and typing-extensions, which the programs import."""
    pyctx_module.load_package("typing-extensions")
    return pyctx_module


@pytest.mark.parametrize("name", sorted(support.PYODIDE_SYNC))
def test_sync_program_prints_what_langgraph_prints(sync_programs: Any, name: str) -> None:
    """A sync LangGraph program runs unmodified in Chromium and prints what LangGraph printed.

    Without JSPI it stops at its first sync call with SyncUnavailableError naming
    that call's async form.
    """
    source = support.program_path(name).read_text(encoding="utf-8")
    result = json.loads(
        sync_programs.run_async(_PROGRAM_RUNNER % _payload({"name": name, "source": source}))
    )
    if not _has_jspi(sync_programs):
        first = _first_sync_call(source)
        assert result["jspi"] is False
        match = _NO_JSPI.fullmatch(result["error"] or "")
        assert match is not None, result["error"]
        assert match["name"] == first
        _skip_without_jspi(sync_programs, f"{name} raised SyncUnavailableError naming a{first}")
    assert result["jspi"] is True
    assert result["error"] is None, result["error"]
    expected = support.expected_path(name).read_text(encoding="utf-8")
    runtime = f"pyctx_web in Pyodide ({sync_programs.browser}), sync forms through run_sync"
    diff = support.difference(name, expected, support.normalize(result["stdout"]), runtime)
    if diff is not None:
        pytest.fail(f"{name} printed otherwise in Pyodide:\n{diff}", pytrace=False)


def test_sync_forms_match_cpython_or_name_the_async_form(pyctx_module: Any) -> None:
    """Each sync form returns what it returns on CPython, from runPythonAsync's top level and
    from inside a task; without JSPI each raises SyncUnavailableError naming its async form."""
    code = (
        _SYNC_FORMS
        + """
import asyncio as _asyncio
import json as _json

async def _in_a_task():
    return sync_forms()

_json.dumps([sync_forms(), await _asyncio.ensure_future(_in_a_task())])
"""
    )
    top_level, in_a_task = json.loads(pyctx_module.run_async(code))
    if not _has_jspi(pyctx_module):
        for results in (top_level, in_a_task):
            for name, got in results.items():
                form = {"stream_left_early": "stream", "after_early": "get_state"}.get(name, name)
                prefix = "SyncUnavailableError: "
                assert got.startswith(prefix), (name, got)
                match = _NO_JSPI.fullmatch(got.removeprefix(prefix))
                assert match is not None, (name, got)
                assert match["name"] == form, (name, got)
        _skip_without_jspi(pyctx_module, "every sync form raised naming its async form")
    reference = _reference_sync_forms()
    assert reference["stream"] == repr([(["a"], ["a"]), (["__interrupt__"], ["a", "b"])])
    assert top_level == reference
    assert in_a_task == reference


def test_sync_forms_refuse_under_run_python(pyctx_module: Any) -> None:
    """Called from ``pyodide.runPython`` (a sync entry), run_sync cannot block in any runtime:
    the sync forms raise SyncUnavailableError naming the async form and why."""
    code = """
import json
from typing import TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.errors import SyncUnavailableError
from pyodide.ffi import can_run_sync

class State(TypedDict):
    x: int

graph = StateGraph(State).add_node("a", lambda s: {"x": 1}).add_edge(START, "a").compile()
errors = []
for call in (lambda: graph.invoke({"x": 0}), lambda: graph.stream({"x": 0})):
    try:
        call()
    except SyncUnavailableError as exc:
        errors.append(str(exc))
json.dumps({"can_run_sync": can_run_sync(), "errors": errors})
"""
    result = json.loads(pyctx_module.run(code))
    assert result["can_run_sync"] is False
    invoke_error, stream_error = result["errors"]
    assert invoke_error.startswith("invoke() is not available in Pyodide here: ")
    assert invoke_error.endswith("; use `await graph.ainvoke(...)`")
    assert stream_error.endswith("; use `await graph.astream(...)`")
    if _has_jspi(pyctx_module):
        assert "entered Python through pyodide.runPythonAsync" in invoke_error
        assert "(not pyodide.runPython)" in invoke_error
    else:
        assert _NO_JSPI.fullmatch(invoke_error) is not None
