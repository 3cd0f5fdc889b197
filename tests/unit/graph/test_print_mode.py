"""invoke/stream(debug=True) and print_mode print the chunks of a run, as LangGraph's."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.state import CompiledStateGraph


class Trail(TypedDict, total=False):
    """The steps taken."""

    steps: Annotated[list[str], operator.add]


def _graph() -> CompiledStateGraph:
    inner = StateGraph(Trail).add_node("a", lambda s: {"steps": ["a"]})
    inner_graph = inner.add_edge(START, "a").compile(name="inner")
    return (
        StateGraph(Trail)
        .add_node("sub", inner_graph)
        .add_node("b", lambda s: {"steps": ["b"]})
        .add_edge(START, "sub")
        .add_edge("sub", "b")
        .compile()
    )


def _bold(mode: str) -> str:
    return f"\033[1m[{mode}]\033[0m"


DEBUG_LINES = [
    f"{_bold('values')} {{'steps': []}}",
    f"{_bold('updates')} {{'sub': {{'steps': ['a']}}}}",
    f"{_bold('values')} {{'steps': ['a']}}",
    f"{_bold('updates')} {{'b': {{'steps': ['b']}}}}",
    f"{_bold('values')} {{'steps': ['a', 'b']}}",
]


def test_invoke_with_debug_prints_each_steps_values_and_updates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """invoke(debug=True) prints "[values] ..." and "[updates] ..." lines and returns the values."""
    assert _graph().invoke({"steps": []}, debug=True) == {"steps": ["a", "b"]}
    assert capsys.readouterr().out.splitlines() == DEBUG_LINES


@pytest.mark.asyncio
async def test_ainvoke_with_debug_prints_the_same_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """ainvoke(debug=True) prints what invoke(debug=True) prints."""
    assert await _graph().ainvoke({"steps": []}, debug=True) == {"steps": ["a", "b"]}
    assert capsys.readouterr().out.splitlines() == DEBUG_LINES


def test_print_mode_prints_the_subgraphs_chunks_with_their_graph(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """stream(print_mode=..., subgraphs=True) prints a subgraph's chunks with "[graph=(ns,)]"."""
    chunks = list(
        _graph().stream({"steps": []}, stream_mode="values", print_mode="updates", subgraphs=True)
    )
    assert [chunk for ns, chunk in chunks if ns == ()] == [
        {"steps": []},
        {"steps": ["a"]},
        {"steps": ["a", "b"]},
    ]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    namespace = lines[0].split("[graph=")[1].split("]")[0]
    assert namespace.startswith("('sub:")
    assert namespace.endswith("',)")
    assert (
        lines[0]
        == f"{_bold('updates')} \033[1;3;33m[graph={namespace}]\033[0m {{'a': {{'steps': ['a']}}}}"
    )
    assert lines[1:] == [
        f"{_bold('updates')} {{'sub': {{'steps': ['a']}}}}",
        f"{_bold('updates')} {{'b': {{'steps': ['b']}}}}",
    ]


def test_a_printed_mode_not_streamed_is_only_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """A mode in print_mode but not in stream_mode is printed, not yielded."""
    chunks = list(_graph().stream({"steps": []}, stream_mode="updates", print_mode="values"))
    assert chunks == [{"sub": {"steps": ["a"]}}, {"b": {"steps": ["b"]}}]
    assert capsys.readouterr().out.splitlines() == [DEBUG_LINES[0], DEBUG_LINES[2], DEBUG_LINES[4]]


def test_debug_must_be_a_bool() -> None:
    """debug="yes" is refused naming its type."""
    with pytest.raises(ArgumentTypeError, match=r"^debug must be a bool, not 'str'$"):
        _graph().invoke({"steps": []}, debug="yes")  # type: ignore[arg-type]


def test_print_mode_must_name_stream_modes() -> None:
    """print_mode="loud" is refused naming the modes there are."""
    with pytest.raises(ArgumentValueError, match=r"^unknown stream_mode 'loud'; expected one of "):
        _graph().invoke({"steps": []}, print_mode="loud")
