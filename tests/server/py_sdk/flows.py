"""Client flows written with LangGraph's Python SDK (its sync client), run against one server.

Run by the Python of the real server's venv (build/cache/server-ref, which has the SDK):

    python tests/server/py_sdk/flows.py BASE_URL FLOW TAG OUTPUT.jsonl

Each exchange the SDK makes is recorded by the httpx transport given to its client and
written as one JSON line, in the format ``js/flows.mjs`` writes; ``py_sdk_flows.py`` reads
them into the tier's transcripts. TAG goes into the metadata of the threads a flow makes.
Waiting for a run to reach a step is done by a second client that records nothing.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

# The SDK is in the real server's venv, which runs this file; .venv (where mypy runs) lacks it.
from langgraph_sdk.client import SyncLangGraphClient  # type: ignore[import-not-found]
from langgraph_sdk.errors import NotFoundError  # type: ignore[import-not-found]

SELECTED_HEADERS = ("content-type", "content-location", "location")


class _RecordedStream(httpx.SyncByteStream):
    """A response body that keeps a copy of the bytes it gives."""

    def __init__(self, inner: httpx.SyncByteStream, record: dict[str, Any]) -> None:
        self.inner, self.record, self.chunks = inner, record, bytearray()

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            self.chunks += chunk
            yield chunk

    def close(self) -> None:
        self.record["text"] = self.chunks.decode("utf-8")
        self.inner.close()


class RecordingTransport(httpx.BaseTransport):
    """An HTTP transport that records each request and its response in ``records``."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records, self.inner = records, httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        last_event_id = request.headers.get("last-event-id")
        record: dict[str, Any] = {
            "method": request.method,
            "path": request.url.raw_path.decode("ascii"),
            "body": json.loads(body) if body else None,
            "request_headers": {} if last_event_id is None else {"last-event-id": last_event_id},
            "text": "",
        }
        self.records.append(record)
        response = self.inner.handle_request(request)
        record["status"] = response.status_code
        record["headers"] = {
            name: response.headers[name] for name in SELECTED_HEADERS if name in response.headers
        }
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _RecordedStream(response.stream, record)
        return response


def _wait_for(check: Callable[[], bool], limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the awaited state never came")
        time.sleep(0.05)


def chat_interrupt(client: SyncLangGraphClient, quiet: SyncLangGraphClient, tag: str) -> None:
    """A chat turn streamed to its question, the state read, resumed, and the history read."""
    client.assistants.search(graph_id="chat")
    thread = client.threads.create(metadata={"flow": tag})
    tid = thread["thread_id"]
    question = {"messages": [{"role": "user", "content": "hello", "id": "question"}]}
    modes: Any = ["values", "updates"]
    list(client.runs.stream(tid, "chat", input=question, stream_mode=modes))
    state = client.threads.get_state(tid)
    interrupt_id = state["interrupts"][0]["id"]
    command: Any = {"resume": {interrupt_id: "weather"}}
    list(client.runs.stream(tid, "chat", command=command, stream_mode=modes))
    client.threads.get_history(tid, limit=5)


def background_rollback(client: SyncLangGraphClient, quiet: SyncLangGraphClient, tag: str) -> None:
    """A background run rolled back while it waits; another enqueued behind a third, joined."""
    tid = client.threads.create(metadata={"flow": tag})["thread_id"]
    slow = {"steps": [], "delay": 1.0}

    def waiting() -> bool:
        return bool(quiet.threads.get_state(tid)["next"] == ["wait"])

    run = client.runs.create(tid, "slow", input=slow)
    _wait_for(waiting)
    client.runs.cancel(tid, run["run_id"], wait=True, action="rollback")
    with contextlib.suppress(NotFoundError):  # the 404 is in the transcript
        client.runs.get(tid, run["run_id"])
    client.threads.get_state(tid)
    first = client.runs.create(tid, "slow", input=slow)
    _wait_for(waiting)
    queued = {"steps": ["queued"], "delay": 0}
    second = client.runs.create(tid, "slow", input=queued, multitask_strategy="enqueue")
    client.runs.join(tid, first["run_id"])
    client.runs.join(tid, second["run_id"])
    client.runs.list(tid)


def breakpoint_edit(client: SyncLangGraphClient, quiet: SyncLangGraphClient, tag: str) -> None:
    """A run paused after a node, its state edited as that node, continued, history paged."""
    tid = client.threads.create(metadata={"flow": tag})["thread_id"]
    client.runs.wait(tid, "steps", input={"steps": []}, interrupt_after=["a"])
    client.threads.update_state(tid, {"steps": ["edited"]}, as_node="a")
    client.runs.wait(tid, "steps", input=None)
    page = client.threads.get_history(tid, limit=2)
    client.threads.get_history(tid, limit=2, before={"configurable": page[-1]["checkpoint"]})


FLOWS: dict[str, Callable[[SyncLangGraphClient, SyncLangGraphClient, str], None]] = {
    "chat_interrupt": chat_interrupt,
    "background_rollback": background_rollback,
    "breakpoint_edit": breakpoint_edit,
}


def main(argv: list[str]) -> int:
    """Run one flow against a base URL and write its exchanges as JSON lines."""
    if len(argv) != 4 or argv[1] not in FLOWS:
        print(f"usage: flows.py BASE_URL FLOW TAG OUTPUT; flows: {', '.join(FLOWS)}")
        return 2
    base_url, name, tag, output = argv
    records: list[dict[str, Any]] = []
    recording = httpx.Client(base_url=base_url, transport=RecordingTransport(records), timeout=60)
    plain = httpx.Client(base_url=base_url, timeout=60)
    try:
        FLOWS[name](SyncLangGraphClient(recording), SyncLangGraphClient(plain), tag)
    except (httpx.HTTPError, LookupError, TimeoutError) as error:
        records.append({"stopped": repr(error)})
    finally:
        recording.close()
        plain.close()
    with open(output, "w", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
