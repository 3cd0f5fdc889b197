"""The demo worker's server driven as the page's LangGraph client drives it, on CPython."""

from __future__ import annotations

import json
from typing import Any

from worker_main import GRAPH_ID, make_server

from pyctx_web.server import AgentServer, Request

OFFLINE = {"model": {"kind": "offline", "token_delay_ms": 0}}
"""The context of a run with the offline model, its tokens at once."""

Event = tuple[str, Any]


def parse_sse(raw: bytes) -> list[Event]:
    """The ``(event, data)`` pairs of an event stream's bytes."""
    events: list[Event] = []
    for block in raw.decode().replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append((fields["event"], json.loads(fields.get("data", "null"))))
    return events


class DemoApi:
    """One worker server (memory checkpoints) and one thread of it."""

    def __init__(self, server: AgentServer | None = None) -> None:
        self.server = make_server() if server is None else server
        self.thread_id = ""

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        response = await self.server.handle(Request(method, path, body=data))
        assert isinstance(response.body, bytes)
        return response.status, json.loads(response.body) if response.body else None

    async def new_thread(self) -> str:
        status, thread = await self.call("POST", "/threads", {})
        assert status == 200
        self.thread_id = thread["thread_id"]
        return self.thread_id

    async def stream(self, context: Any = None, **run: Any) -> list[Event]:
        """Stream one run on the thread (values, updates, custom): its events."""
        body = {"assistant_id": GRAPH_ID, "stream_mode": ["values", "updates", "custom"], **run}
        body["context"] = OFFLINE if context is None else context
        path = f"/threads/{self.thread_id}/runs/stream"
        response = await self.server.handle(Request("POST", path, body=json.dumps(body).encode()))
        assert response.status == 200, response.body
        raw = (
            response.body
            if isinstance(response.body, bytes)
            else b"".join([chunk async for chunk in response.body])
        )
        return parse_sse(raw)

    async def say(self, text: str, context: Any = None) -> list[Event]:
        return await self.stream(context, input={"messages": [{"role": "user", "content": text}]})

    async def resume(self, value: Any, context: Any = None) -> list[Event]:
        return await self.stream(context, command={"resume": value})

    async def state(self) -> dict[str, Any]:
        status, state = await self.call("GET", f"/threads/{self.thread_id}/state")
        assert status == 200
        return dict(state)

    async def pending(self) -> list[Any]:
        """The values of the thread's pending interrupts."""
        return [item["value"] for item in (await self.state())["interrupts"]]


def custom(events: list[Event], key: str) -> list[Any]:
    """The custom chunks of ``events`` that carry ``key``: their values."""
    return [data[key] for name, data in events if name == "custom" and key in data]


def answer(events: list[Event]) -> str:
    """The answer's text as its tokens streamed."""
    return "".join(custom(events, "token"))
