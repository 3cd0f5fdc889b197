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

import httpx

from tests.server import flows_control, flows_crud, flows_state, flows_stream
from tests.server.js_flows import JS_FLOWS, js_flow
from tests.server.py_sdk_flows import PY_SDK_FLOWS, py_sdk_flow
from tests.server.transcript import Exchange, Recorder, render

STREAM_MODES = ["values", "updates"]


def thread_interrupt_resume(client: Recorder) -> None:
    """Create a thread, find it, stream a run to an interrupt, resume it, read the history."""
    thread = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})
    tid = thread["thread_id"]
    client.json("POST", "/threads/search", {"metadata": {"flow": client.tag}})
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


def subgraph_interrupt(client: Recorder) -> None:
    """A run streamed with its subgraph's events to an interrupt inside the subgraph, resumed."""
    tid = client.json("POST", "/threads", {"metadata": {"flow": client.tag}})["thread_id"]
    run = {"assistant_id": "nested", "stream_mode": STREAM_MODES, "stream_subgraphs": True}
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "input": {"steps": []}})
    client.json("GET", f"/threads/{tid}/state?subgraphs=true")
    client.stream("POST", f"/threads/{tid}/runs/stream", {**run, "command": {"resume": "yes"}})
    client.json("GET", f"/threads/{tid}/state")


FLOWS: dict[str, Callable[[Recorder], None]] = {
    "threads_crud": flows_crud.threads_crud,
    "runs_crud": flows_crud.runs_crud,
    "assistants": flows_crud.assistants,
    "run_options": flows_crud.run_options,
    "stream_every_mode": flows_stream.stream_every_mode,
    "stream_each_mode": flows_stream.stream_each_mode,
    "stream_without_subgraphs": flows_stream.stream_without_subgraphs,
    "stream_legacy_messages": flows_stream.stream_legacy_messages,
    "thread_interrupt_resume": thread_interrupt_resume,
    "subgraph_interrupt": subgraph_interrupt,
    "interrupts_by_id": flows_state.interrupts_by_id,
    "resume_with_update": flows_state.resume_with_update,
    "breakpoints": flows_state.breakpoints,
    "branching": flows_state.branching,
    "history_paging": flows_state.history_paging,
    "background_join": flows_control.background_join,
    "cancel_interrupt": flows_control.cancel_interrupt,
    "cancel_rollback": flows_control.cancel_rollback,
    "multitask_reject": flows_control.multitask_reject,
    "multitask_enqueue": flows_control.multitask_enqueue,
    "multitask_interrupt": flows_control.multitask_interrupt,
    "multitask_rollback": flows_control.multitask_rollback,
    "other_graph_on_thread": flows_control.other_graph_on_thread,
    "disconnect_cancel": flows_control.disconnect_cancel,
    "disconnect_continue": flows_control.disconnect_continue,
    "resumable_replay": flows_control.resumable_replay,
    "unknown_assistant": flows_crud.unknown_assistant,
    "graph_raises": flows_crud.graph_raises,
    "resume_nothing_pending": flows_crud.resume_nothing_pending,
    **{f"js_{name}": js_flow(name) for name in JS_FLOWS},
    **{f"py_{name}": py_sdk_flow(name) for name in PY_SDK_FLOWS},
}


def run_flow(base_url: str, name: str) -> list[Exchange]:
    """Run flow ``name`` against the server at ``base_url``: the exchanges it recorded."""
    client = Recorder(base_url)
    try:
        FLOWS[name](client)
    except (httpx.HTTPError, LookupError, TypeError, ValueError, TimeoutError) as error:
        # An answer the flow could not use (a missing id, a failed poll): the transcript
        # ends there, with the reason, so that the comparison shows where the servers part.
        client.exchanges.append(Exchange("#", f"the flow stopped: {error!r}", None, {}, 0, {}))
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
