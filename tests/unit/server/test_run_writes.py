"""What a run reads and writes of the server's thread and run records, in order.

The stores are the memory ones, each call recorded: in a page every one of them is an
IndexedDB transaction that the run's first event waits for.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pyctx_web.server import AgentServer, Request
from pyctx_web.server._core import MemoryRunStore, MemoryThreadStore

from .server_support import counter_graph


class _Threads(MemoryThreadStore):
    """Memory thread records; each get and put listed in ``log``."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        self.log.append("thread get")
        return await super().get(thread_id)

    async def put(self, thread: dict[str, Any]) -> None:
        self.log.append(f"thread put {thread['status']}")
        await super().put(thread)

    async def claim(self, thread: dict[str, Any]) -> bool:
        self.log.append(f"thread claim {thread['status']}")
        return await super().claim(thread)


class _Runs(MemoryRunStore):
    """Memory run records; each put listed in ``log``."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    async def put(self, run: dict[str, Any]) -> None:
        self.log.append(f"run put {run['status']}")
        await super().put(run)


async def _stream(server: AgentServer, path: str, body: dict[str, Any]) -> list[bytes]:
    request = Request("POST", path, {}, {"content-type": "application/json"}, _json(body))
    response = await server.handle(request)
    assert response.status == 200
    assert not isinstance(response.body, bytes)
    return [chunk async for chunk in response.body]


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


def test_a_first_run_on_a_new_thread_stores_the_thread_once_as_it_starts() -> None:
    """A streamed run that makes its thread (if_not_exists create) reads the thread, stores its
    run, reads the thread again and claims it busy once; stores the run running, then ended;
    reads the thread and stores it idle."""

    async def main() -> None:
        log: list[str] = []
        server = AgentServer({"agent": counter_graph()}, threads=_Threads(log), runs=_Runs(log))
        tid = "00000000-0000-0000-0000-000000000007"
        body = {
            "assistant_id": "agent",
            "input": {"count": 1},
            "if_not_exists": "create",
            "metadata": {"title": "first"},
        }
        await _stream(server, f"/threads/{tid}/runs/stream", body)
        assert log == [
            "thread get",
            "run put pending",
            "thread get",
            "thread claim busy",
            "run put running",
            "run put success",
            "thread get",
            "thread put idle",
        ]
        thread = await server.threads.get(tid)
        assert thread is not None
        assert thread["metadata"] == {
            "title": "first",
            "graph_id": "agent",
            "assistant_id": ("fe096781-5601-53d2-b2f6-0d3403f7e9ca"),
        }

    asyncio.run(main())


def test_a_run_on_a_stored_thread_stores_it_busy_once() -> None:
    """A run on a thread made by POST /threads claims the thread once as it starts."""

    async def main() -> None:
        log: list[str] = []
        server = AgentServer({"agent": counter_graph()}, threads=_Threads(log), runs=_Runs(log))
        tid = "00000000-0000-0000-0000-000000000008"
        create = Request(
            "POST", "/threads", {}, {"content-type": "application/json"}, _json({"thread_id": tid})
        )
        assert (await server.handle(create)).status == 200
        log.clear()
        await _stream(
            server, f"/threads/{tid}/runs/stream", {"assistant_id": "agent", "input": {"count": 1}}
        )
        assert log[:4] == ["thread get", "run put pending", "thread get", "thread claim busy"]
        assert log.count("thread claim busy") == 1
        assert log.count("thread put busy") == 0

    asyncio.run(main())
