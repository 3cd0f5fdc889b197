"""Flows of streaming: every stream mode, with a subgraph's events, and the legacy messages mode."""

from __future__ import annotations

from tests.server.transcript import Recorder

ALL_MODES = [
    "values",
    "updates",
    "messages-tuple",
    "custom",
    "debug",
    "tasks",
    "checkpoints",
]
QUESTION = {"messages": [{"role": "user", "content": "hi", "id": "m-question"}]}


def stream_every_mode(client: Recorder) -> None:
    """One run streamed in every mode at once, with its subgraph's events."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    body = {"assistant_id": "talk", "input": QUESTION, "stream_mode": ALL_MODES}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**body, "stream_subgraphs": True})


def stream_each_mode(client: Recorder) -> None:
    """The same run streamed in one mode at a time, with its subgraph's events."""
    for mode in ALL_MODES:
        tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
        body = {"assistant_id": "talk", "input": QUESTION, "stream_mode": mode}
        client.stream("POST", f"/threads/{tid}/runs/stream", {**body, "stream_subgraphs": True})


def stream_without_subgraphs(client: Recorder) -> None:
    """Every mode without ``stream_subgraphs``: the subgraph's events are left out."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    body = {"assistant_id": "talk", "input": QUESTION, "stream_mode": ALL_MODES}
    client.stream("POST", f"/threads/{tid}/runs/stream", body)


def stream_legacy_messages(client: Recorder) -> None:
    """The legacy ``messages`` mode: metadata, partial and complete message events."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    body = {"assistant_id": "talk", "input": QUESTION, "stream_mode": ["messages", "values"]}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**body, "stream_subgraphs": True})
    client.json("GET", f"/threads/{tid}/state")
