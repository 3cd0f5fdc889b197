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


@run_in_pyodide
async def _published_hints(selenium: Any) -> dict[str, str]:
    import typing

    from pyctx_web.graph.middleware import ToolCallRequest
    from pyctx_web.graph.runtime import RunHandle, Runtime, ToolResult
    from pyctx_web.graph.types import Interrupt

    return {
        cls.__qualname__: f"{cls.__module__}: {sorted(typing.get_type_hints(cls))}"
        for cls in (Runtime, RunHandle, ToolResult, ToolCallRequest, Interrupt)
    }


def test_published_classes_keep_their_annotations_on_python_3_14(selenium: Any) -> None:
    """On 3.14, a class defined in a private module and published elsewhere resolves its hints."""
    assert _published_hints(selenium) == {
        "Runtime": (
            "pyctx_web.graph.runtime: ['_extension', 'context', 'control', 'execution_info', "
            "'heartbeat', 'previous', 'server_info', 'store', 'stream_writer']"
        ),
        "RunHandle": (
            "pyctx_web.graph.runtime: ['control', 'record', 'run_id', 'task', 'thread_id']"
        ),
        "ToolResult": "pyctx_web.graph.runtime: ['arguments', 'id', 'name', 'result', 'status']",
        "ToolCallRequest": "pyctx_web.graph.middleware: ['runtime', 'tool', 'tool_call']",
        "Interrupt": "pyctx_web.graph.types: ['id', 'response_schema', 'value']",
    }


@run_in_pyodide
async def _published_before_its_names(selenium: Any) -> list[str]:
    import sys
    import types
    import typing

    from pyctx_web._homes import publish

    # A module whose class is published before the name its annotation uses exists.
    module = types.ModuleType("lazy_home_example")
    sys.modules[module.__name__] = module
    exec(
        "from __future__ import annotations\nclass Record:\n    part: Later\n",
        vars(module),
    )
    publish("somewhere.public", module.Record)
    exec("class Later: ...", vars(module))
    hints = typing.get_type_hints(module.Record)
    return [module.Record.__module__, f"{hints['part'].__module__}.{hints['part'].__name__}"]


def test_publish_resolves_a_class_annotations_when_first_asked_on_python_3_14(
    selenium: Any,
) -> None:
    """On 3.14 publish() evaluates no annotation: get_type_hints resolves them where written."""
    assert _published_before_its_names(selenium) == ["somewhere.public", "lazy_home_example.Later"]
