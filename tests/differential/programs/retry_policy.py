"""Graph API guide, "Add retry policies": ``retry_policy=RetryPolicy(...)`` on ``add_node``.

Follows the guide and its extended example: a node retried on
``sqlite3.OperationalError`` (``RetryPolicy(retry_on=sqlite3.OperationalError)``)
and one with ``RetryPolicy(max_attempts=5)``, here a fake database and a fake
model that fail their first calls. Then the default policy, which does not
retry a ``ValueError``: the error reaches the caller after one attempt.
"""

import sqlite3

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy
from typing_extensions import TypedDict


class State(TypedDict):
    rows: str
    reply: str


calls = {"query_database": 0, "model": 0, "strict": 0}


def query_database(state: State):
    calls["query_database"] += 1
    print(f"query_database attempt {calls['query_database']}")
    if calls["query_database"] < 3:
        raise sqlite3.OperationalError("database is locked")
    return {"rows": "AC/DC, Accept, Aerosmith"}


def call_model(state: State):
    calls["model"] += 1
    print(f"model attempt {calls['model']}")
    if calls["model"] < 4:
        raise ConnectionError("model unavailable")
    return {"reply": "Here are the first artists."}


# Define a new graph
builder = StateGraph(State)
builder.add_node(
    "query_database",
    query_database,
    retry_policy=RetryPolicy(
        retry_on=sqlite3.OperationalError, initial_interval=0.01, jitter=False
    ),
)
builder.add_node(
    "model",
    call_model,
    retry_policy=RetryPolicy(max_attempts=5, initial_interval=0.01, jitter=False),
)
builder.add_edge(START, "model")
builder.add_edge("model", "query_database")
builder.add_edge("query_database", END)
graph = builder.compile()

print(graph.invoke({}))


def strict(state: State):
    calls["strict"] += 1
    print(f"strict attempt {calls['strict']}")
    raise ValueError("bad input")


graph = (
    StateGraph(State)
    .add_node("strict", strict, retry_policy=RetryPolicy(initial_interval=0.01, jitter=False))
    .add_edge(START, "strict")
    .compile()
)
try:
    graph.invoke({})
except ValueError as error:
    print(f"{type(error).__name__}: {error}")

policy = RetryPolicy()
print(policy.max_attempts, policy.initial_interval, policy.backoff_factor, policy.jitter)
