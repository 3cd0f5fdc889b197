"""get_graph() and its drawings: text drawings, subgraphs (xray), JSON and what is refused."""

from __future__ import annotations

import re
from typing import Any, Literal, TypedDict

import pytest

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.drawing import CurveStyle, DrawingUnavailableError, Edge
from pyctx_web.graph.drawing._yaml import dump_yaml
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command


class State(TypedDict):
    value: int


def step(state: State) -> dict[str, int]:
    return {}


def router(state: State) -> Literal["node2", "__end__"]:
    return "node2" if state["value"] < 10 else END


def visualize_page_graph() -> CompiledStateGraph:
    """The graph of LangGraph's "Visualize your graph" page: a Literal router, a loop back."""
    return (
        StateGraph(State)
        .add_node("node1", step)
        .add_node("node2", step)
        .add_edge(START, "node1")
        .add_conditional_edges("node1", router)
        .add_edge("node2", "node1")
        .compile()
    )


def test_draw_ascii_of_a_loop_lists_the_edge_back_up() -> None:
    """A router's edges are dotted and an edge that closes a loop is listed under the boxes."""
    assert visualize_page_graph().get_graph().draw_ascii() == "\n".join(
        [
            "+-----------+",
            "| __start__ |",
            "+-----------+",
            "      |",
            "      v",
            "  +-------+",
            "  | node1 |",
            "  +-------+",
            "      :",
            "      .............",
            "      v           v",
            "  +-------+  +---------+",
            "  | node2 |  | __end__ |",
            "  +-------+  +---------+",
            "",
            "edges back up:",
            "  node2 --> node1",
        ]
    )


def test_draw_ascii_fans_out_and_joins() -> None:
    """Branches chosen by a router fan out on one track and join on another above the next box."""
    builder = StateGraph(State)
    for name in "abcde":
        builder.add_node(name, step)
    builder.add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: ["b"], ["b", "c", "d"])
    builder.add_edge(["b", "c", "d"], "e")
    assert builder.compile().get_graph().draw_ascii() == "\n".join(
        [
            "+-----------+",
            "| __start__ |",
            "+-----------+",
            "      |",
            "      v",
            "    +---+",
            "    | a |",
            "    +---+",
            "      :",
            "      ...............",
            "      v      v      v",
            "    +---+  +---+  +---+",
            "    | b |  | c |  | d |",
            "    +---+  +---+  +---+",
            "      |      |      |",
            "      +------+------+",
            "             v",
            "           +---+",
            "           | e |",
            "           +---+",
            "             |",
            "             v",
            "        +---------+",
            "        | __end__ |",
            "        +---------+",
        ]
    )


def test_draw_ascii_passes_an_edge_through_the_layers_it_skips() -> None:
    """A Command destination two layers down is a dotted line beside the box in between."""

    def node_a(state: State) -> Command[Literal["node_b", "node_c"]]:
        return Command(goto="node_b")

    builder = StateGraph(State).add_node(node_a).add_node("node_b", step)
    builder.add_node("node_c", step).add_edge(START, "node_a").add_edge("node_b", "node_c")
    drawable = builder.compile().get_graph()
    assert drawable.draw_ascii() == "\n".join(
        [
            "+-----------+",
            "| __start__ |",
            "+-----------+",
            "      |",
            "      v",
            " +--------+",
            " | node_a |",
            " +--------+",
            "      :",
            "      ........",
            "      v      :",
            " +--------+  :",
            " | node_b |  :",
            " +--------+  :",
            "      |      :",
            "      +.......",
            "      v",
            "    +--------+",
            "    | node_c |",
            "    +--------+",
            "         |",
            "         v",
            "    +---------+",
            "    | __end__ |",
            "    +---------+",
        ]
    )
    assert drawable.edges == [
        Edge("__start__", "node_a"),
        Edge("node_a", "node_b", None, True),
        Edge("node_a", "node_c", None, True),
        Edge("node_b", "node_c"),
        Edge("node_c", "__end__"),
    ]


def test_print_ascii_prints_the_drawing(capsys: pytest.CaptureFixture[str]) -> None:
    """print_ascii() prints draw_ascii() and a newline."""
    drawable = visualize_page_graph().get_graph()
    drawable.print_ascii()
    assert capsys.readouterr().out == drawable.draw_ascii() + "\n"


@pytest.mark.parametrize(
    ("method", "needs"),
    [
        ("draw_mermaid_png", "the mermaid.ink web service or pyppeteer"),
        ("draw_png", "graphviz (pygraphviz)"),
    ],
)
def test_image_drawings_are_refused_naming_draw_mermaid(method: str, needs: str) -> None:
    """PNG drawings raise an ImportError that names draw_mermaid() as the way to draw."""
    drawable = visualize_page_graph().get_graph()
    message = (
        f"{method}() is not available in pyctx_web: LangGraph's needs {needs}. Use "
        "draw_mermaid() for the Mermaid text (render it with mermaid.js, e.g. in a "
        "<pre class='mermaid'> element, or on mermaid.live), or draw_ascii()"
    )
    with pytest.raises(DrawingUnavailableError, match="^" + re.escape(message) + "$") as caught:
        getattr(drawable, method)(output_file_path="graph.png")
    assert isinstance(caught.value, ImportError)


def test_curve_style_is_an_enum_member_or_its_value() -> None:
    """curve_style takes a CurveStyle or its string value, and refuses other strings."""
    drawable = visualize_page_graph().get_graph()
    by_member = drawable.draw_mermaid(curve_style=CurveStyle.STEP_AFTER)
    assert "    curve: stepAfter\n" in by_member
    assert drawable.draw_mermaid(curve_style="stepAfter") == by_member
    with pytest.raises(
        ArgumentValueError,
        match=(
            r"^curve_style must be a CurveStyle or one of \['basis', 'bumpX', "
            r"'bumpY', 'cardinal', 'catmullRom', 'linear', 'monotoneX', "
            r"'monotoneY', 'natural', 'step', 'stepAfter', 'stepBefore'\], not "
            r"'wiggly'$"
        ),
    ):
        drawable.draw_mermaid(curve_style="wiggly")


def test_frontmatter_is_written_as_pyyaml_writes_it() -> None:
    """Keys are sorted; strings PyYAML would read otherwise are quoted as PyYAML quotes them."""
    config = {
        "title": "My graph",
        "config": {"theme": "neutral", "themeVariables": {"primaryColor": "#e2e2e2"}},
        "values": ["yes", "1.5", "1e3", "a: b", "fill:#f2f0ff", "", "x\ty", "it's"],
        "n": 3,
        "on": True,
        "off": None,
        "empty": {},
    }
    assert dump_yaml(config) == (
        "config:\n"
        "  theme: neutral\n"
        "  themeVariables:\n"
        "    primaryColor: '#e2e2e2'\n"
        "empty: {}\n"
        "n: 3\n"
        "'off': null\n"
        "'on': true\n"
        "title: My graph\n"
        "values:\n"
        "- 'yes'\n"
        "- '1.5'\n"
        "- 1e3\n"
        "- 'a: b'\n"
        "- fill:#f2f0ff\n"
        "- ''\n"
        '- "x\\ty"\n'
        "- it's\n"
    )


def _with_subgraph(graph: CompiledStateGraph, node: str, sub: Any) -> CompiledStateGraph:
    """``graph`` with node ``node`` running the compiled graph ``sub``, as a subgraph would."""
    nodes = dict(graph.spec.nodes)
    nodes[node] = _replaced(nodes[node], fn=sub)
    graph.spec = _replaced(graph.spec, nodes=nodes)
    return graph


def _replaced(spec: Any, **changes: Any) -> Any:
    """A copy of the record ``spec`` with ``changes``: its other fields as they are."""
    fields = {name: getattr(spec, name) for name in type(spec).__match_args__}
    return type(spec)(**(fields | changes))


def _nested() -> CompiledStateGraph:
    """first -> sub -> last, where sub runs x, then y or END, y -> deep, and deep runs p -> q."""
    inner = StateGraph(State).add_node("p", step).add_node("q", step)
    inner = inner.add_edge(START, "p").add_edge("p", "q")
    middle = StateGraph(State).add_node("x", step).add_node("y", step).add_node("deep", step)
    middle.add_edge(START, "x").add_conditional_edges("x", lambda state: END, ["y", END])
    middle.add_edge("y", "deep")
    sub = _with_subgraph(middle.compile(), "deep", inner.compile())
    outer = StateGraph(State).add_node("first", step).add_node("sub", step)
    outer.add_node("last", step).add_edge(START, "first").add_edge("first", "sub")
    outer.add_edge("sub", "last")
    return _with_subgraph(outer.compile(), "sub", sub)


def test_xray_draws_subgraphs_inside_their_node_to_the_depth_asked() -> None:
    """xray=1 expands one level of subgraphs, xray=True every level, as LangGraph's."""
    graph = _nested()
    assert list(graph.get_graph().nodes) == ["__start__", "first", "sub", "last", "__end__"]
    one = graph.get_graph(xray=1)
    assert list(one.nodes) == [
        *("__start__", "first", "last", "__end__"),
        *("sub:x", "sub:y", "sub:deep", "sub:__end__"),
    ]
    assert graph.get_graph(xray=True).draw_mermaid(with_styles=False) == (
        "graph TD;\n"
        "\t__start__ --> first;\n"
        "\tfirst --> sub\\3ax;\n"
        "\tsub\\3a__end__ --> last;\n"
        "\tlast --> __end__;\n"
        "\tsubgraph sub\n"
        "\tsub\\3ax -.-> sub\\3a__end__;\n"
        "\tsub\\3ax -.-> sub\\3ay;\n"
        "\tsub\\3ay --> sub\\3adeep\\3ap;\n"
        "\tsub\\3adeep\\3aq --> sub\\3a__end__;\n"
        "\tsubgraph deep\n"
        "\tsub\\3adeep\\3ap --> sub\\3adeep\\3aq;\n"
        "\tend\n"
        "\tend\n"
    )


def test_to_json_lists_nodes_and_edges() -> None:
    """to_json() has LangGraph's shape: node ids with their function, edges with their flags."""
    data = visualize_page_graph().get_graph().to_json()
    assert [node["id"] for node in data["nodes"]] == ["__start__", "node1", "node2", "__end__"]
    assert data["nodes"][1]["data"] == {"id": [*__name__.split("."), "step"], "name": "node1"}
    assert data["edges"][1] == {"source": "node1", "target": "__end__", "conditional": True}
