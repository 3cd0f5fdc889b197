"""A run context holding JavaScript objects: compile(context=...) is not deep-copied in Pyodide."""

from __future__ import annotations

from typing import Any

from pytest_pyodide import run_in_pyodide


@run_in_pyodide
async def _js_proxy_in_run_context(selenium: Any) -> list[Any]:
    from dataclasses import dataclass
    from typing import TypedDict

    from pyctx_web.graph import START, StateGraph
    from pyctx_web.graph.runtime import Runtime
    from pyodide.code import run_js
    from pyodide.ffi import JsProxy

    @dataclass
    class Services:
        counter: JsProxy
        visits: int = 0

    class Seen(TypedDict, total=False):
        seen: list[int]

    counter = run_js("({ calls: 0, next() { return ++this.calls; } })")
    default = Services(counter)

    def visit(state: Seen, runtime: Runtime[Services]) -> dict[str, list[int]]:
        runtime.context.visits += 1
        return {"seen": [runtime.context.counter.next(), runtime.context.visits]}

    graph = StateGraph(Seen).add_node("visit", visit).add_edge(START, "visit")
    app = graph.compile(context=default)
    first = (await app.ainvoke({}))["seen"]
    second = (await app.ainvoke({}))["seen"]
    # One JavaScript object serves both runs; each run has its own copy of the fields.
    return [first, second, counter.calls, default.visits]


def test_a_default_holding_a_js_proxy_serves_every_run(pyctx_module: Any) -> None:
    """A context default holding a JsProxy works: runs share the object, not field changes."""
    assert _js_proxy_in_run_context(pyctx_module) == [[1, 1], [2, 1], 2, 0]
