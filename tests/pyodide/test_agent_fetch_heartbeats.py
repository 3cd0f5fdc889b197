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


CLOCK_PAST_DUE_SOURCE = """
import asyncio
from pyctx_web.server.sse import HEARTBEAT, with_heartbeats

loop = asyncio.get_running_loop()
real_time = loop.time
calls = [0]

def clock():
    # Each reading is 15 ms later than the one before: a heartbeat that is not due
    # at one reading is past due at the next, as on a loaded machine.
    calls[0] += 1
    return real_time() + calls[0] * 0.015

async def source():
    yield b"a"
    await asyncio.sleep(0.05)
    yield b"b"

loop.time = clock
try:
    out = [chunk async for chunk in with_heartbeats(source(), interval=0.02)]
finally:
    del loop.time
[chunk.decode() if chunk != HEARTBEAT else "heartbeat" for chunk in out]
"""


def test_a_heartbeat_past_due_by_the_time_its_timer_is_set_is_sent(pyctx_module: Any) -> None:
    """A heartbeat whose time passed between reading the clock and setting its timer still comes."""
    out = pyctx_module.run_async(CLOCK_PAST_DUE_SOURCE)
    assert out[0] == "a"
    assert out[-1] == "b"
    assert set(out[1:-1]) == {"heartbeat"}
