"""A LangGraph user's own saver, by its public names, as a pyctx_web graph's checkpointer.

pyctx_web names LangGraph's saver interface ``pyctx_web.graph.saver``; after
``install_as_langgraph()``, ``langgraph.checkpoint.base.BaseCheckpointSaver`` is that
class, and a saver written against it runs a LangGraph program unchanged.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

_PROGRAM = """
import operator
from typing import Annotated, TypedDict

from pyctx_web.graph import install_as_langgraph

install_as_langgraph()

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

import pyctx_web.graph.saver


class ListSaver(BaseCheckpointSaver):
    # A user's saver: the sync forms, over a list of tuples and a dict of writes.
    def __init__(self):
        super().__init__()
        self.tuples = []
        self.writes = {}

    def put(self, config, checkpoint, metadata, new_versions):
        c = config["configurable"]
        mine = {"configurable": {**c, "checkpoint_id": checkpoint["id"]}}
        parent = {"configurable": c} if c.get("checkpoint_id") else None
        self.tuples.append(CheckpointTuple(mine, checkpoint, metadata, parent))
        return mine

    def put_writes(self, config, writes, task_id, task_path=""):
        kept = self.writes.setdefault(config["configurable"]["checkpoint_id"], [])
        kept.extend((task_id, channel, value) for channel, value in writes)

    def _mine(self, config):
        c = config["configurable"]
        return [
            t._replace(pending_writes=self.writes.get(t.checkpoint["id"], []))
            for t in reversed(self.tuples)
            if t.config["configurable"]["thread_id"] == c["thread_id"]
            and t.config["configurable"].get("checkpoint_ns", "") == c.get("checkpoint_ns", "")
        ]

    def get_tuple(self, config):
        wanted = config["configurable"].get("checkpoint_id")
        found = [t for t in self._mine(config) if wanted in (None, t.checkpoint["id"])]
        return found[0] if found else None

    def list(self, config, *, filter=None, before=None, limit=None):
        found = self._mine(config)
        if before is not None:
            ids = [t.checkpoint["id"] for t in found]
            found = found[ids.index(before["configurable"]["checkpoint_id"]) + 1 :]
        return iter(found[:limit])


class State(TypedDict):
    said: Annotated[list[str], operator.add]


def ask(state):
    return {"said": [interrupt("name?")]}


def greet(state):
    return {"said": ["hello " + state["said"][-1]]}


saver = ListSaver()
graph = (
    StateGraph(State)
    .add_node("ask", ask)
    .add_node("greet", greet)
    .add_edge(START, "ask")
    .add_edge("ask", "greet")
    .compile(checkpointer=saver)
)
config = {"configurable": {"thread_id": "t"}}
paused = graph.invoke({"said": []}, config)
print([i.value for i in paused["__interrupt__"]])
print(graph.get_state(config).next)
print(graph.invoke(Command(resume="Lin"), config)["said"])
print(len(list(graph.get_state_history(config))) == len(saver.tuples) > 0)
print(BaseCheckpointSaver is pyctx_web.graph.saver.BaseCheckpointSaver)
"""


def test_a_users_langgraph_saver_runs_a_graph_through_the_public_names() -> None:
    """A sync BaseCheckpointSaver subclass written with LangGraph's imports keeps a program's
    interrupt, resume and history, and is pyctx_web.graph.saver's class."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_PROGRAM)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['name?']",
        "('ask',)",
        "['Lin', 'hello Lin']",
        "True",
        "True",
    ]


def test_pyctx_webs_savers_speak_the_interface_under_its_public_name() -> None:
    """pyctx_web.graph.saver's InMemorySaver and SqliteSaver are BaseCheckpointSavers."""
    from pyctx_web.graph.saver import BaseCheckpointSaver, InMemorySaver, SqliteSaver

    with SqliteSaver(":memory:") as sqlite:
        savers: list[object] = [InMemorySaver(), sqlite]
        assert all(isinstance(saver, BaseCheckpointSaver) for saver in savers)
