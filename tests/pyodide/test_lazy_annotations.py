"""Python 3.14's lazy annotations: callables whose annotations name what is not defined."""

from __future__ import annotations

from typing import Any

from pytest_pyodide import run_in_pyodide


@run_in_pyodide
async def _undefined_annotations(selenium: Any) -> list[Any]:
    # This function is compiled by Pyodide's Python 3.14 without the __future__ import:
    # its annotations are evaluated only when asked for, and `Missing` is never defined.
    from typing import Annotated, TypedDict

    from pyctx_web.graph import START, StateGraph
    from pyctx_web.graph.checkpoint.memory import InMemorySaver
    from pyctx_web.graph.func import entrypoint

    def join(left: Missing, right: Missing) -> Missing:  # type: ignore[name-defined]  # noqa: F821
        return left + right

    class S(TypedDict):
        log: Annotated[list[str], join]

    def step(state: S, config: Missing) -> Missing:  # type: ignore[name-defined]  # noqa: F821
        return {"log": ["step"]}

    graph = StateGraph(S).add_node("step", step).add_edge(START, "step").compile()

    @entrypoint(checkpointer=InMemorySaver())
    def double(number: Missing) -> Missing:  # type: ignore[name-defined]  # noqa: F821
        return number * 2

    return [
        await graph.ainvoke({"log": ["in"]}),
        await double.ainvoke(21, {"configurable": {"thread_id": "t"}}),
    ]


def test_nodes_reducers_and_entrypoints_with_undefined_annotations_run(pyctx_module: Any) -> None:
    """A node, reducer or entrypoint annotated with undefined names builds and runs on 3.14."""
    assert _undefined_annotations(pyctx_module) == [{"log": ["in", "step"]}, 42]
