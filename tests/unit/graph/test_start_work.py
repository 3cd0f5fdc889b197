"""What building a graph does at a page's start: it compiles no regular expression of its own."""

from __future__ import annotations

import subprocess
import sys

BUILD_A_GRAPH = """
import re, sys
compiled = []
plain_compile = re.compile

def spy(pattern, flags=0):
    if "pyctx_web" in sys._getframe(1).f_code.co_filename:
        compiled.append(pattern)
    return plain_compile(pattern, flags)

re.compile = spy
from typing import TypedDict
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver

class State(TypedDict):
    n: int

def step(state: State) -> dict:
    return {"n": state["n"] + 1}

builder = StateGraph(State)
builder.add_node("step", step)
builder.add_edge(START, "step")
builder.add_edge("step", END)
builder.compile(checkpointer=InMemorySaver())
print(compiled)
"""


def test_building_a_graph_compiles_no_pattern() -> None:
    """Importing the graph and compiling a graph of a plain function with a checkpointer
    compiles no regular expression in pyctx_web (the checkpoint encoder's lone-surrogate
    pattern waits for the first str that holds one)."""
    done = subprocess.run(
        [sys.executable, "-c", BUILD_A_GRAPH], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
