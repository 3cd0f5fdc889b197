"""Flows of runs under control: background and join, cancel, multitask, disconnect, replay.

They run the ``slow`` graph, whose middle step waits, so that the thread is busy when the
next request comes. Before that request the flow waits (unrecorded polling, which may take
any number of requests) until the run is inside its waiting step, so both servers see the
same order of events.
"""

from __future__ import annotations

from typing import Any

from tests.server.transcript import Recorder

DELAY = 1.0  # seconds the slow step waits: long enough for the requests made meanwhile


def _slow_run(client: Recorder, tid: str, **extra: Any) -> dict[str, Any]:
    body = {"assistant_id": "slow", "input": {"steps": [], "delay": DELAY}, **extra}
    run: dict[str, Any] = client.json("POST", f"/threads/{tid}/runs", body)
    return run


def _waiting(client: Recorder, tid: str) -> None:
    """Wait (unrecorded) until the thread's run has committed ``begin`` and is in ``wait``."""
    client.wait_for(f"/threads/{tid}/state", lambda state: state["next"] == ["wait"])


def _finished(client: Recorder, tid: str, rid: str) -> None:
    """Wait (unrecorded) until the run has ended, however it ended, and left its thread."""
    client.wait_for(
        f"/threads/{tid}/runs/{rid}", lambda run: run["status"] not in ("pending", "running")
    )
    client.wait_for(f"/threads/{tid}", lambda thread: thread["status"] != "busy")


def _thread(client: Recorder) -> str:
    thread_id: str = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})[
        "thread_id"
    ]
    return thread_id


def background_join(client: Recorder) -> None:
    """A background run joined by its stream while it runs, then joined and read when done."""
    tid = _thread(client)
    rid = _slow_run(client, tid)["run_id"]
    _waiting(client, tid)
    client.json("GET", f"/threads/{tid}")
    client.stream("GET", f"/threads/{tid}/runs/{rid}/stream")
    client.json("GET", f"/threads/{tid}/runs/{rid}/join")
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.stream("GET", f"/threads/{tid}/runs/{rid}/stream")
    client.json("GET", f"/threads/{tid}")


def cancel_interrupt(client: Recorder) -> None:
    """A running run cancelled (interrupt): the run, the thread and the state after it."""
    tid = _thread(client)
    rid = _slow_run(client, tid)["run_id"]
    _waiting(client, tid)
    client.json("POST", f"/threads/{tid}/runs/{rid}/cancel?wait=1&action=interrupt")
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.json("GET", f"/threads/{tid}")
    client.json("GET", f"/threads/{tid}/state")
    client.json("POST", f"/threads/{tid}/runs/{rid}/cancel?wait=1")


def cancel_rollback(client: Recorder) -> None:
    """A running run cancelled with rollback: the run is gone, and so are its checkpoints."""
    tid = _thread(client)
    client.json("POST", f"/threads/{tid}/runs/wait", {"assistant_id": "steps", "input": {}})
    rid = _slow_run(client, tid)["run_id"]
    _waiting(client, tid)
    client.json("POST", f"/threads/{tid}/runs/{rid}/cancel?wait=1&action=rollback")
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.json("GET", f"/threads/{tid}")
    client.json("GET", f"/threads/{tid}/state")
    client.json("GET", f"/threads/{tid}/runs")


def _busy(client: Recorder, strategy: str) -> tuple[str, str]:
    """A thread busy with a slow run, and a second run sent to it with ``strategy``."""
    tid = _thread(client)
    rid = _slow_run(client, tid)["run_id"]
    _waiting(client, tid)
    # The same graph again, without the wait: the second turn of the thread's conversation.
    second = {"steps": [strategy], "delay": 0}
    body = {"assistant_id": "slow", "input": second, "stream_mode": ["values"]}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**body, "multitask_strategy": strategy})
    return tid, rid


def multitask_reject(client: Recorder) -> None:
    """A run sent to a busy thread with ``reject`` is refused; the first run goes on."""
    tid, rid = _busy(client, "reject")
    client.json("GET", f"/threads/{tid}/runs/{rid}/join")
    client.json("GET", f"/threads/{tid}/runs")


def multitask_enqueue(client: Recorder) -> None:
    """A run sent to a busy thread with ``enqueue`` runs after the first one."""
    tid, rid = _busy(client, "enqueue")
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.json("GET", f"/threads/{tid}/state")
    client.json("GET", f"/threads/{tid}/runs")


def multitask_interrupt(client: Recorder) -> None:
    """A run sent to a busy thread with ``interrupt`` stops the first one and runs."""
    tid, rid = _busy(client, "interrupt")
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.json("GET", f"/threads/{tid}/state")
    client.json("GET", f"/threads/{tid}/runs")


def multitask_rollback(client: Recorder) -> None:
    """A run sent to a busy thread with ``rollback`` deletes the first one and runs."""
    tid, rid = _busy(client, "rollback")
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.json("POST", f"/threads/{tid}/history", {"limit": 20})
    client.json("GET", f"/threads/{tid}/runs")


def _disconnect(client: Recorder, on_disconnect: str) -> None:
    tid = _thread(client)
    body = {
        "assistant_id": "slow",
        "input": {"steps": [], "delay": DELAY},
        "stream_mode": ["values"],
        "on_disconnect": on_disconnect,
    }
    events = client.stream("POST", f"/threads/{tid}/runs/stream", body, stop_after=3)
    rid = events[0].data["run_id"]
    _finished(client, tid, rid)
    client.json("GET", f"/threads/{tid}/runs/{rid}")
    client.json("GET", f"/threads/{tid}")
    client.json("GET", f"/threads/{tid}/state")


def disconnect_cancel(client: Recorder) -> None:
    """A client that leaves a stream with ``on_disconnect: cancel`` stops the run."""
    _disconnect(client, "cancel")


def disconnect_continue(client: Recorder) -> None:
    """A client that leaves a stream with ``on_disconnect: continue`` lets the run finish."""
    _disconnect(client, "continue")


def resumable_replay(client: Recorder) -> None:
    """A resumable stream's events replayed from the start, and after an event id."""
    tid = _thread(client)
    body = {
        "assistant_id": "slow",
        "input": {"steps": [], "delay": 0.3},
        "stream_mode": ["values"],
        "stream_resumable": True,
    }
    events = client.stream("POST", f"/threads/{tid}/runs/stream", body)
    rid = events[0].data["run_id"]
    path = f"/threads/{tid}/runs/{rid}/stream"
    client.stream("GET", path, last_event_id="-1")
    # The last event before the slow step waits: no event shares its millisecond.
    last_before_wait = next(e for e in events if e.event == "values" and e.data["steps"])
    client.stream("GET", path, last_event_id=last_before_wait.id)
    client.stream("GET", path)


def other_graph_on_thread(client: Recorder) -> None:
    """A thread one graph ran, then run by another graph with other state keys."""
    tid = _thread(client)
    first = {"assistant_id": "slow", "input": {"steps": ["x"], "delay": 0}}
    client.json("POST", f"/threads/{tid}/runs/wait", first)
    steps = {"assistant_id": "steps", "input": {"steps": ["y"]}, "stream_mode": ["values"]}
    client.stream("POST", f"/threads/{tid}/runs/stream", steps)
    client.json("GET", f"/threads/{tid}/state")
    client.json("GET", f"/threads/{tid}")
