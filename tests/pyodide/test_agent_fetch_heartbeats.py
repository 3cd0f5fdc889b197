"""The heartbeats of a streamed body on Pyodide's event loop, whose timers are JavaScript's."""

from __future__ import annotations

from typing import Any

SILENT_SOURCE = """
import asyncio
from pyctx_web.server.sse import HEARTBEAT, with_heartbeats

async def source():
    yield b"a"
    await asyncio.sleep(0.2)
    yield b"b"

out = [chunk async for chunk in with_heartbeats(source(), interval=0.02)]
[chunk.decode() if chunk != HEARTBEAT else "heartbeat" for chunk in out]
"""


def test_a_silent_stream_gets_heartbeats_between_its_chunks(pyctx_module: Any) -> None:
    """A source silent for ten intervals gets heartbeats between its two chunks."""
    out = pyctx_module.run_async(SILENT_SOURCE)
    assert out[0] == "a"
    assert out[-1] == "b"
    assert set(out[1:-1]) == {"heartbeat"}
    assert len(out) >= 3
