"""Persistence guide, SQLite checkpointer: a thread that survives closing the database.

Follows the persistence how-to's SQLite saver (``from langgraph.checkpoint.sqlite
import SqliteSaver``): first ``SqliteSaver.from_conn_string(path)`` as a context
manager, then ``SqliteSaver(sqlite3.connect(path, check_same_thread=False))``
on the same file, where the paused thread is found again and resumed with
``Command(resume=...)``, and its history read.
"""

import os
import sqlite3
import tempfile
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


def add(left: list, right: list) -> list:
    """Can also import `add` from the `operator` built-in."""
    return left + right


class State(TypedDict):
    request: str
    answer: str
    log: Annotated[list[str], add]


def ask(state: State):
    answer = interrupt({"question": f"What should I do with {state['request']}?"})
    return {"answer": answer, "log": ["ask"]}


def act(state: State):
    print(f"acting on: {state['answer']}")
    return {"log": ["act"]}


builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_node("act", act)
builder.add_edge(START, "ask")
builder.add_edge("ask", "act")
builder.add_edge("act", END)

config = {"configurable": {"thread_id": "1"}}

with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "checkpoints.sqlite")

    with SqliteSaver.from_conn_string(path) as checkpointer:
        graph = builder.compile(checkpointer=checkpointer)
        result = graph.invoke({"request": "my email"}, config)
        print(result["__interrupt__"][0].value)
        print(graph.get_state(config).next)

    conn = sqlite3.connect(path, check_same_thread=False)
    memory = SqliteSaver(conn)
    graph = builder.compile(checkpointer=memory)
    snapshot = graph.get_state(config)
    print(snapshot.values, snapshot.next, [i.value for i in snapshot.interrupts])
    print(graph.invoke(Command(resume="send a daily summary"), config))
    for state in graph.get_state_history(config):
        print(state.values, state.next, state.metadata["source"], state.metadata["step"])
    print(graph.get_state({"configurable": {"thread_id": "2"}}).values)
    conn.close()
