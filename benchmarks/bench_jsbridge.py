"""JavaScript boundary figures: a bound timer callback, and a workload of JS awaits.

Pyodide only: a batch of ``set_timeout`` callbacks against the same batch of raw
``setTimeout(create_once_callable(...))`` callbacks, and 1,000 awaits of JS
promises and timers that read the context, through pyctx_web and through raw
``contextvars``.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from functools import partial
from typing import Any

from stats import compare_async, compared

from pyctx_web import AsyncLocalStorage

RUNTIMES = ("pyodide-node", "pyodide-chromium")


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure the jsbridge figures in Pyodide."""
    import js
    from pyodide.ffi import create_once_callable

    from pyctx_web.jsbridge import set_timeout

    rounds = 7 if quick else 15
    batch = 200 if quick else 1_000
    storage: AsyncLocalStorage[int] = AsyncLocalStorage(name="bench")
    raw: ContextVar[int | None] = ContextVar("raw", default=None)

    async def bound_timers() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        left = [batch]

        def fired() -> None:
            storage.get_store()
            left[0] -= 1
            if left[0] == 0:
                done.set_result(None)

        for _ in range(batch):
            set_timeout(fired, 0)
        await done

    async def raw_timers() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        left = [batch]

        def fired() -> None:
            raw.get()
            left[0] -= 1
            if left[0] == 0:
                done.set_result(None)

        for _ in range(batch):
            js.setTimeout(create_once_callable(fired), 0)
        await done

    async def bound_in_store() -> None:
        await storage.run(1, bound_timers)

    timers = await compare_async(bound_in_store, raw_timers, rounds=rounds, units=batch, scale=1e6)
    results = [
        compared(
            "bound set_timeout callback",
            runtime,
            timers,
            "us",
            baseline="raw create_once_callable callback",
            limit=1.5,
            note=f"per callback, batches of {batch} setTimeout(0)",
        )
    ]

    awaits = 200 if quick else 1_000

    async def with_pyctx() -> None:
        async def body() -> None:
            for i in range(awaits):
                if i % 2:
                    await js.Promise.resolve(i)
                else:
                    fut = asyncio.get_running_loop().create_future()
                    set_timeout(fut.set_result, 0, None)
                    await fut
                assert storage.get_store() == 7

        await asyncio.create_task(storage.run(7, body))

    async def without() -> None:
        async def body() -> None:
            raw.set(7)
            for i in range(awaits):
                if i % 2:
                    await js.Promise.resolve(i)
                else:
                    fut = asyncio.get_running_loop().create_future()
                    js.setTimeout(create_once_callable(partial(fut.set_result, None)), 0)
                    await fut
                assert raw.get() == 7

        await asyncio.create_task(body())

    workload = await compare_async(with_pyctx, without, rounds=max(3, rounds // 2), scale=1e3)
    results.append(
        compared(
            f"{awaits} awaits of JS promises and timers reading the context",
            runtime,
            workload,
            "ms",
            baseline="the same workload without pyctx_web",
            limit=1.05,
        )
    )
    return results
