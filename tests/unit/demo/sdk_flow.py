"""The demo's question-and-approval flow through LangGraph's Python SDK, against a server URL.

Run as a script by a Python that has ``langgraph-sdk`` (``build/cache/server-ref/venv``):
``python sdk_flow.py BASE_URL`` prints, as one JSON line, what the page would see: each
interrupt's value, the tool chunks, the answer's tokens, the final message types and the
thread's status. It imports nothing of pyctx_web, so the same script drives ``langgraph dev``
and pyctx_web's server.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from langgraph_sdk import get_client  # type: ignore[import-not-found]  # server-ref venv

CONTEXT = {"model": {"kind": "offline", "token_delay_ms": 0}}
EDIT = {
    "type": "edit",
    "edited_action": {"name": "send_email", "args": {"to": ["boss@example.com"], "subject": "Hi"}},
}


async def flow(url: str) -> dict[str, Any]:
    client = get_client(url=url)
    thread_id = (await client.threads.create())["thread_id"]
    seen: dict[str, Any] = {"interrupts": [], "tools": [], "tokens": [], "errors": []}

    async def run(**what: Any) -> None:
        modes = ["values", "updates", "custom"]
        async for part in client.runs.stream(
            thread_id, "agent", stream_mode=modes, context=CONTEXT, **what
        ):
            if part.event == "custom":
                for key, kept in (("tool", "tools"), ("token", "tokens"), ("refused", "errors")):
                    if key in part.data:
                        seen[kept].append(part.data[key])
            elif part.event == "error":
                seen["errors"].append(part.data)
        state = await client.threads.get_state(thread_id)
        seen["interrupts"] += [item["value"] for item in state["interrupts"]]

    await run(input={"messages": [{"role": "user", "content": "help me with email"}]})
    await run(command={"resume": "Send the daily report to my team"})
    await run(command={"resume": {"decisions": [EDIT]}})
    state = await client.threads.get_state(thread_id)
    seen["types"] = [message["type"] for message in state["values"]["messages"]]
    seen["status"] = (await client.threads.get(thread_id))["status"]
    return seen


if __name__ == "__main__":
    print(json.dumps(asyncio.run(flow(sys.argv[1]))))
