"""Client flows of the server tier, each a function of a :class:`~tests.server.transcript.Recorder`.

A flow makes the requests a LangGraph client makes (the SDK's calls, as plain HTTP), using
the ids the server returns, and asserts nothing itself: its normalized transcript is what
the tier compares (with ``expected/<flow>.txt``, and between servers).

Run one against any server: ``.venv/bin/python -m tests.server.flows URL [FLOW]`` prints
the normalized transcript.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from tests.server.transcript import Exchange, Recorder, render

STREAM_MODES = ["values", "updates"]


def thread_interrupt_resume(client: Recorder) -> None:
    """Create a thread, find it, stream a run to an interrupt, resume it, read the history."""
    thread = client.json("POST", "/threads", {"metadata": {"flow": "interrupt-resume"}})
    tid = thread["thread_id"]
    client.json("POST", "/threads/search", {"metadata": {"flow": "interrupt-resume"}})
    client.json("GET", f"/threads/{tid}/state")
    first = {"messages": [{"role": "user", "content": "hello", "id": "question"}]}
    client.stream(
        "POST",
        f"/threads/{tid}/runs/stream",
        {"assistant_id": "chat", "input": first, "stream_mode": STREAM_MODES},
    )
    client.json("GET", f"/threads/{tid}")
    client.json("GET", f"/threads/{tid}/state")
    client.stream(
        "POST",
        f"/threads/{tid}/runs/stream",
        {"assistant_id": "chat", "command": {"resume": "weather"}, "stream_mode": STREAM_MODES},
    )
    client.json("POST", f"/threads/{tid}/history", {"limit": 10})
    client.json("GET", f"/threads/{tid}")


def errors(client: Recorder) -> None:
    """An unknown assistant, a graph that raises, an unknown thread, a resume of a new thread."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": "errors"}})["thread_id"]
    client.stream("POST", f"/threads/{tid}/runs/stream", {"assistant_id": "missing", "input": {}})
    client.stream(
        "POST",
        f"/threads/{tid}/runs/stream",
        {"assistant_id": "fails", "input": {"count": 0}, "stream_mode": ["values"]},
    )
    client.json("GET", f"/threads/{tid}")
    client.json("GET", "/threads/00000000-0000-4000-8000-000000000000")
    fresh = client.json("POST", "/threads", {"metadata": {"flow": "errors"}})["thread_id"]
    client.stream(
        "POST",
        f"/threads/{fresh}/runs/stream",
        {"assistant_id": "chat", "command": {"resume": "weather"}, "stream_mode": ["values"]},
    )
    client.json("GET", f"/threads/{fresh}")


def subgraph_interrupt(client: Recorder) -> None:
    """A run streamed with its subgraph's events to an interrupt inside the subgraph, resumed."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": "subgraph"}})["thread_id"]
    run = {"assistant_id": "nested", "stream_mode": STREAM_MODES, "stream_subgraphs": True}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "input": {"steps": []}})
    client.json("GET", f"/threads/{tid}/state?subgraphs=true")
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "command": {"resume": "yes"}})
    client.json("GET", f"/threads/{tid}/state")


FLOWS: dict[str, Callable[[Recorder], None]] = {
    "thread_interrupt_resume": thread_interrupt_resume,
    "errors": errors,
    "subgraph_interrupt": subgraph_interrupt,
}


def run_flow(base_url: str, name: str) -> list[Exchange]:
    """Run flow ``name`` against the server at ``base_url``: the exchanges it recorded."""
    client = Recorder(base_url)
    try:
        FLOWS[name](client)
    finally:
        client.close()
    return client.exchanges


def transcript(base_url: str, name: str) -> str:
    """Run flow ``name`` against the server at ``base_url``: its normalized transcript."""
    return render(run_flow(base_url, name), base_url)


def main(argv: list[str]) -> int:
    """Print the normalized transcript of each flow named (all by default) against a URL."""
    if not argv or argv[0].startswith("-"):
        print("usage: python -m tests.server.flows URL [FLOW ...]", file=sys.stderr)
        return 2
    for name in argv[1:] or list(FLOWS):
        print(f"# {name}")
        print(transcript(argv[0], name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
