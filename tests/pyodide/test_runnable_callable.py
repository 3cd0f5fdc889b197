"""A node given a sync and an async form (LangChain's RunnableCallable) in Pyodide (Node, Chromium).

The sync form runs under ``invoke()`` (which blocks through ``pyodide.ffi.run_sync``
where the runtime has JavaScript Promise Integration: Chromium) and the async form
under ``ainvoke()``, as on CPython.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

_GRAPH = """
import json
from typing import TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph._internal._runnable import RunnableCallable
from pyctx_web.graph.errors import SyncUnavailableError


class State(TypedDict):
    seen: list


def sync_form(state):
    return {"seen": [*state["seen"], "sync"]}


async def async_form(state):
    return {"seen": [*state["seen"], "async"]}


graph = StateGraph(State)
graph.add_node("step", RunnableCallable(sync_form, async_form))
graph.add_edge(START, "step")
app = graph.compile()


def sync_call():
    try:
        return app.invoke({"seen": []})["seen"]
    except SyncUnavailableError as error:
        return str(error)


json.dumps({"async": (await app.ainvoke({"seen": []}))["seen"], "sync": sync_call()})
"""


def test_each_call_runs_the_form_of_its_kind(pyctx_module: Any) -> None:
    """ainvoke() runs the async form; invoke() runs the sync one where it can block (JSPI)."""
    result = json.loads(pyctx_module.run_async(_GRAPH))
    assert result["async"] == ["async"]
    jspi = pyctx_module.run_js('return "Suspending" in WebAssembly || "Suspender" in WebAssembly')
    if not jspi:
        assert result["sync"].startswith("invoke() is not available in Pyodide here")
        pytest.skip(f"{pyctx_module.browser} has no JSPI: invoke() cannot block there")
    assert result["sync"] == ["sync"]
