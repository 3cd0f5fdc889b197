"""The behaviour every thread store, run store and event log of the agent server shares.

Each check takes the stores to test (fresh, empty) and asserts what the
protocols of :mod:`pyctx_web.server._core` promise: records are copies, kept in
the order they were first stored, and an event log replays after an event id.
"""

from __future__ import annotations

from typing import Any

from pyctx_web.server._core import EventLog, RunStore, ThreadStore


def thread(thread_id: str, **fields: Any) -> dict[str, Any]:
    """A thread record with ``fields``."""
    return {
        "thread_id": thread_id,
        "status": "idle",
        "metadata": {},
        "config": {},
        "values": None,
        **fields,
    }


def run(run_id: str, thread_id: str | None, **fields: Any) -> dict[str, Any]:
    """A run record with ``fields``."""
    return {"run_id": run_id, "thread_id": thread_id, "status": "success", "kwargs": {}, **fields}


async def check_threads(store: ThreadStore) -> None:
    """Copies in and out, replace in place, first-stored order, delete."""
    assert await store.get("t1") is None
    original = thread("t1", metadata={"k": [1, 2]}, values={"n": 1.5, "s": "é"})
    await store.put(original)
    original["metadata"]["k"].append(3)  # changing what was put changes nothing stored
    got = await store.get("t1")
    assert got == thread("t1", metadata={"k": [1, 2]}, values={"n": 1.5, "s": "é"})
    assert got is not None
    got["metadata"]["k"].clear()  # nor does changing what was read
    assert (await store.get("t1") or {})["metadata"] == {"k": [1, 2]}
    await store.put(thread("t2"))
    await store.put(thread("t3"))
    await store.put(thread("t1", status="interrupted"))  # replaced: keeps its place
    assert [t["thread_id"] for t in await store.all()] == ["t1", "t2", "t3"]
    assert (await store.get("t1") or {})["status"] == "interrupted"
    everything = await store.all()
    everything[0]["status"] = "changed"
    assert (await store.get("t1") or {})["status"] == "interrupted"
    assert await store.delete("t2") is True
    assert await store.delete("t2") is False
    assert [t["thread_id"] for t in await store.all()] == ["t1", "t3"]


async def check_claims(store: ThreadStore) -> None:
    """A claim stores over no record and over one not busy, and refuses one that is busy."""
    assert await store.claim(thread("t1", status="busy", metadata={"by": "first"})) is True
    assert await store.claim(thread("t1", status="busy", metadata={"by": "second"})) is False
    assert (await store.get("t1") or {})["metadata"] == {"by": "first"}
    await store.put(thread("t1", status="interrupted"))
    assert await store.claim(thread("t1", status="busy", metadata={"by": "third"})) is True
    assert (await store.get("t1") or {})["metadata"] == {"by": "third"}


async def check_runs(store: RunStore) -> None:
    """Copies in and out, replace in place, a thread's runs in first-stored order, delete."""
    assert await store.get("r1") is None
    original = run("r1", "t1", metadata={"a": [1]})
    await store.put(original)
    original["metadata"]["a"].append(2)
    got = await store.get("r1")
    assert got == run("r1", "t1", metadata={"a": [1]})
    assert got is not None
    got["metadata"]["a"].clear()
    assert (await store.get("r1") or {})["metadata"] == {"a": [1]}
    await store.put(run("r2", "t2"))
    await store.put(run("r3", "t1"))
    await store.put(run("r4", None))  # a stateless run: no thread
    await store.put(run("r1", "t1", status="error"))
    assert [r["run_id"] for r in await store.of_thread("t1")] == ["r1", "r3"]
    assert [r["status"] for r in await store.of_thread("t1")] == ["error", "success"]
    assert await store.of_thread("nothing") == []
    assert (await store.get("r4") or {})["thread_id"] is None
    listed = await store.of_thread("t1")
    listed[0]["status"] = "changed"
    assert (await store.get("r1") or {})["status"] == "error"
    assert await store.delete("r3") is True
    assert await store.delete("r3") is False
    assert [r["run_id"] for r in await store.of_thread("t1")] == ["r1"]


async def check_events(log: EventLog) -> None:
    """Events in order per run; ``after`` an id gives the later ones, none for an unknown id."""
    events = [(f"{i}-0", "values", b'{"n": %d}' % i) for i in range(1, 5)]
    assert await log.after("r1", None) == []
    for event in events:
        await log.append("r1", event)
    await log.append("r2", ("1-0", "metadata", b"{}"))
    assert await log.after("r1", None) == events
    assert await log.after("r1", "2-0") == events[2:]
    assert await log.after("r1", "4-0") == []
    assert await log.after("r1", "9-9") == []  # an id the run never sent
    assert await log.after("r2", None) == [("1-0", "metadata", b"{}")]
    replay = await log.after("r1", None)
    replay.clear()
    assert await log.after("r1", None) == events
    await log.drop("r1")
    await log.drop("never")
    assert await log.after("r1", None) == []
    assert await log.after("r2", None) == [("1-0", "metadata", b"{}")]
