"""Flows of a thread's state: interrupts and resumes, breakpoints, branching, history paging."""

from __future__ import annotations

from typing import Any

from tests.server.transcript import Recorder

MODES = ["values", "updates"]


def _thread(client: Recorder) -> str:
    thread_id: str = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})[
        "thread_id"
    ]
    return thread_id


def interrupts_by_id(client: Recorder) -> None:
    """Two interrupts pending at once: a bare resume fails, resumes by interrupt id answer."""
    tid = _thread(client)
    run = {"assistant_id": "several", "stream_mode": MODES}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "input": {"answers": []}})
    state = client.json("GET", f"/threads/{tid}/state")
    client.json("GET", f"/threads/{tid}")
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "command": {"resume": "both"}})
    client.json("GET", f"/threads/{tid}")
    ids = {item["value"]["question"]: item["id"] for item in state["interrupts"]}
    only_name = {"resume": {ids["name?"]: "Ada"}}
    # Values only: the real server sends the answered node's update and the other node's
    # interrupt in either order (its nodes of one step run concurrently).
    partial = {**run, "stream_mode": ["values"], "command": only_name}
    client.stream("POST", f"/threads/{tid}/runs/stream", partial)
    client.json("GET", f"/threads/{tid}/state")
    rest = {"resume": {ids["color?"]: "teal"}}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "command": rest})
    client.json("GET", f"/threads/{tid}/state")


def resume_with_update(client: Recorder) -> None:
    """A resume whose command also updates the state, answering both interrupts by id."""
    tid = _thread(client)
    run = {"assistant_id": "several", "stream_mode": MODES}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "input": {"answers": []}})
    state = client.json("GET", f"/threads/{tid}/state")
    answers = {item["id"]: item["value"]["question"].rstrip("?") for item in state["interrupts"]}
    command = {"resume": answers, "update": {"note": "updated"}}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "command": command})
    client.json("GET", f"/threads/{tid}/state")


def breakpoints(client: Recorder) -> None:
    """interrupt_before and interrupt_after pause a run; update_state as a node edits the pause."""
    tid = _thread(client)
    run: dict[str, Any] = {"assistant_id": "steps", "stream_mode": MODES}
    before = {**run, "input": {"steps": ["in"]}, "interrupt_before": ["b"]}
    client.stream("POST", f"/threads/{tid}/runs/stream", before)
    client.json("GET", f"/threads/{tid}")
    client.json("GET", f"/threads/{tid}/state")
    client.json("POST", f"/threads/{tid}/state", {"values": {"steps": ["edit"]}, "as_node": "a"})
    client.json("GET", f"/threads/{tid}/state")
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "interrupt_after": ["b"]})
    client.json("GET", f"/threads/{tid}/state")
    client.json("POST", f"/threads/{tid}/state", {"values": {"steps": ["late"]}, "as_node": "b"})
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "input": None})
    client.json("GET", f"/threads/{tid}")
    client.json("POST", f"/threads/{tid}/state", {"values": {"steps": ["x"]}, "as_node": "nope"})


def branching(client: Recorder) -> None:
    """A run from an earlier checkpoint, with and without new input, makes a branch."""
    tid = _thread(client)
    run = {"assistant_id": "steps", "stream_mode": MODES}
    client.json("POST", f"/threads/{tid}/runs/wait", {**run, "input": {"steps": ["one"]}})
    history = client.json("POST", f"/threads/{tid}/history", {"limit": 10})
    after_a = next(item for item in history if item["next"] == ["b"])
    fork = {"checkpoint_id": after_a["checkpoint_id"]}
    client.json("GET", f"/threads/{tid}/state/{after_a['checkpoint_id']}")
    client.json("POST", f"/threads/{tid}/state/checkpoint", {"checkpoint": fork})
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "checkpoint": fork})
    client.json("GET", f"/threads/{tid}/state")
    edited = client.json(
        "POST",
        f"/threads/{tid}/state",
        {"values": {"steps": ["edited"]}, "checkpoint": fork, "as_node": "a"},
    )
    client.stream(
        "POST", f"/threads/{tid}/runs/stream", {**run, "checkpoint": edited["checkpoint"]}
    )
    client.json("POST", f"/threads/{tid}/history", {"limit": 20})
    client.json("GET", f"/threads/{tid}/state/00000000-0000-4000-8000-000000000000")


def history_paging(client: Recorder) -> None:
    """History read a page at a time (limit, before), filtered by metadata."""
    tid = _thread(client)
    run = {"assistant_id": "steps", "input": {"steps": []}}
    client.json("POST", f"/threads/{tid}/runs/wait", {**run, "metadata": {"turn": 1}})
    client.json("POST", f"/threads/{tid}/runs/wait", {**run, "metadata": {"turn": 2}})
    page = client.json("POST", f"/threads/{tid}/history", {"limit": 3})
    before = {"configurable": {"checkpoint_id": page[-1]["checkpoint_id"]}}
    page = client.json("POST", f"/threads/{tid}/history", {"limit": 3, "before": before})
    before = {"configurable": {"checkpoint_id": page[-1]["checkpoint_id"]}}
    client.json("POST", f"/threads/{tid}/history", {"limit": 100, "before": before})
    client.json("POST", f"/threads/{tid}/history", {"limit": 100, "metadata": {"source": "input"}})
    client.json("POST", f"/threads/{tid}/history", {"metadata": {"turn": 1, "step": 2}})
    client.json("GET", f"/threads/{tid}/history?limit=2")
