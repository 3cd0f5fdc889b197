"""Flows of threads and runs as records: create, read, change, search, count, delete, and errors."""

from __future__ import annotations

from tests.server.transcript import Recorder

MISSING_THREAD = "00000000-0000-4000-8000-000000000000"


def threads_crud(client: Recorder) -> None:
    """Threads made, read, patched, searched, counted, copied and deleted."""
    meta = {"flow": client.tag}
    first = client.json("POST", "/threads", {"metadata": {**meta, "n": 1}})["thread_id"]
    second = client.json("POST", "/threads", {"metadata": {**meta, "n": 2}})["thread_id"]
    chosen = "6b5a1f4e-2c3d-4e5f-8a9b-0c1d2e3f4a5b"
    client.json("POST", "/threads", {"thread_id": chosen, "metadata": {**meta, "n": 3}})
    client.json("POST", "/threads", {"thread_id": chosen, "if_exists": "do_nothing"})
    client.json("POST", "/threads", {"thread_id": chosen, "if_exists": "raise"})
    client.json("GET", f"/threads/{first}")
    client.json("PATCH", f"/threads/{first}", {"metadata": {"n": 10, "label": "patched"}})
    client.json("POST", "/threads/search", {"metadata": meta})
    client.json("POST", "/threads/search", {"metadata": {**meta, "label": "patched"}})
    client.json("POST", "/threads/search", {"metadata": meta, "limit": 1, "offset": 1})
    search = {"metadata": meta, "sort_by": "created_at", "sort_order": "asc"}
    client.json("POST", "/threads/search", search)
    client.json("POST", "/threads/search", {"metadata": meta, "status": "idle", "limit": 2})
    client.json("POST", "/threads/count", {"metadata": meta})
    client.json("POST", f"/threads/{second}/copy")
    client.json("DELETE", f"/threads/{second}")
    client.json("GET", f"/threads/{second}")
    client.json("DELETE", f"/threads/{second}")
    client.json("POST", "/threads/count", {"metadata": meta})
    client.json("GET", f"/threads/{MISSING_THREAD}")
    client.json("PATCH", f"/threads/{MISSING_THREAD}", {"metadata": {}})
    client.json("GET", "/threads/not-a-uuid")


def runs_crud(client: Recorder) -> None:
    """Runs made in the background, waited for, joined, listed, read and deleted; stateless runs."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    body = {"assistant_id": "steps", "input": {"steps": ["start"]}, "metadata": {"by": "flow"}}
    run = client.json("POST", f"/threads/{tid}/runs", body)
    client.json("GET", f"/threads/{tid}/runs/{run['run_id']}/join")
    client.json("GET", f"/threads/{tid}/runs/{run['run_id']}")
    client.json("POST", f"/threads/{tid}/runs/wait", {**body, "input": {"steps": ["again"]}})
    client.json("GET", f"/threads/{tid}/runs")
    client.json("GET", f"/threads/{tid}/runs?limit=1&offset=1")
    client.json("GET", f"/threads/{tid}")
    client.json("DELETE", f"/threads/{tid}/runs/{run['run_id']}")
    client.json("GET", f"/threads/{tid}/runs/{run['run_id']}")
    client.json("GET", f"/threads/{tid}/runs/{MISSING_THREAD}")
    client.json("POST", "/runs/wait", {"assistant_id": "steps", "input": {"steps": []}})
    client.stream(
        "POST",
        "/runs/stream",
        {"assistant_id": "steps", "input": {"steps": []}, "stream_mode": ["updates"]},
    )
    client.json("POST", "/assistants/search", {"graph_id": "steps"})


def unknown_assistant(client: Recorder) -> None:
    """A run of an assistant no graph gives: streamed, waited for, made in the background."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    client.stream("POST", f"/threads/{tid}/runs/stream", {"assistant_id": "missing", "input": {}})
    client.json("POST", f"/threads/{tid}/runs/wait", {"assistant_id": "missing", "input": {}})
    client.json("POST", f"/threads/{tid}/runs", {"assistant_id": MISSING_THREAD, "input": {}})
    client.json("GET", f"/threads/{tid}")


def graph_raises(client: Recorder) -> None:
    """A graph that raises after a committed step: its error event, run, thread and state."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    body = {"assistant_id": "fails", "input": {"count": 0}, "stream_mode": ["values", "updates"]}
    events = client.stream("POST", f"/threads/{tid}/runs/stream", body)
    client.json("GET", f"/threads/{tid}/runs/{events[0].data['run_id']}")
    client.json("GET", f"/threads/{tid}")
    client.json("GET", f"/threads/{tid}/state")
    client.json("POST", f"/threads/{tid}/runs/wait", {**body, "input": {"count": 5}})
    client.json("GET", f"/threads/{tid}")


def resume_nothing_pending(client: Recorder) -> None:
    """A resume sent to a thread whose run finished, and to a thread that never ran."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    client.json("POST", f"/threads/{tid}/runs/wait", {"assistant_id": "steps", "input": {}})
    resume = {"assistant_id": "steps", "command": {"resume": "late"}, "stream_mode": ["values"]}
    client.stream("POST", f"/threads/{tid}/runs/stream", resume)
    client.json("GET", f"/threads/{tid}")
    fresh = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    client.stream("POST", f"/threads/{fresh}/runs/stream", {**resume, "assistant_id": "chat"})
    client.json("GET", f"/threads/{fresh}")


def assistants(client: Recorder) -> None:
    """Assistants found, read, drawn and described; a graph name where an id must go."""
    found = client.json("POST", "/assistants/search", {"graph_id": "nested"})
    aid = found[0]["assistant_id"]
    client.json("POST", "/assistants/search", {"limit": 3, "offset": 1})
    client.json("GET", f"/assistants/{aid}")
    client.json("GET", f"/assistants/{aid}/graph")
    client.json("GET", f"/assistants/{aid}/graph?xray=true")
    client.json("GET", f"/assistants/{aid}/schemas")
    client.json("GET", f"/assistants/{aid}/subgraphs")
    client.json("GET", "/assistants/nested")
    client.json("GET", f"/assistants/{MISSING_THREAD}")


def run_options(client: Recorder) -> None:
    """A run's config, context, metadata and durability; a goto command; a raising wait."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    base = {"assistant_id": "steps", "input": {"steps": []}, "metadata": {"origin": "options"}}
    config = {"configurable": {"setting": "on"}, "tags": ["tagged"]}
    both = {**base, "config": config, "context": {"user": "ada"}}
    client.json("POST", f"/threads/{tid}/runs/wait", both)
    with_context = {**base, "context": {"user": "ada"}, "durability": "exit"}
    client.json("POST", f"/threads/{tid}/runs/wait", with_context)
    client.json("POST", f"/threads/{tid}/history", {"limit": 10})
    with_config = {**base, "config": config, "durability": "sync"}
    client.json("POST", f"/threads/{tid}/runs/wait", with_config)
    client.json("POST", f"/threads/{tid}/history", {"limit": 1})
    goto = {"assistant_id": "steps", "command": {"goto": "c"}, "stream_mode": ["updates"]}
    client.stream("POST", f"/threads/{tid}/runs/stream", goto)
    client.json("GET", f"/threads/{tid}/state")
    failing = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    raises = {"assistant_id": "fails", "input": {"count": 1}}
    client.json("POST", f"/threads/{failing}/runs/wait", raises)
    client.json("POST", "/threads/search", {"metadata": {"flow": client.tag}, "status": "error"})
    by_values = {"metadata": {"flow": client.tag}, "values": {"count": 2}}
    client.json("POST", "/threads/search", by_values)
    client.json("POST", "/threads/count", {"metadata": {"flow": client.tag}, "status": "idle"})
