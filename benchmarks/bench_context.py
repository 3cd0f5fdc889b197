"""Context store figures: get_store, run and an awaited step, each against raw contextvars."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar, copy_context
from typing import Any

from stats import compare_async, compare_sync, compared

from pyctx_web import AsyncLocalStorage


def _noop() -> None:
    return None


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure the context store figures in the current runtime."""
    rounds = 7 if quick else 21
    number = 20_000 if quick else 100_000
    storage: AsyncLocalStorage[int] = AsyncLocalStorage(name="bench")
    raw: ContextVar[int | None] = ContextVar("raw", default=None)

    def set_and_call() -> None:
        raw.set(1)
        return _noop()

    namespace = {
        "storage": storage,
        "raw": raw,
        "noop": _noop,
        "copy_context": copy_context,
        "set_and_call": set_and_call,
    }
    results = []

    # Both variables are set for the read, and neither is set afterwards, so that the
    # run() comparison below starts from the same context on both sides.
    raw_token = raw.set(1)
    try:
        with storage.scope(1):
            get = compare_sync(
                "storage.get_store()", "raw.get()", namespace, rounds=rounds, number=number
            )
    finally:
        raw.reset(raw_token)
    results.append(
        compared("get_store()", runtime, get, "ns", baseline="raw ContextVar.get()", limit=1.3)
    )

    run_sync = compare_sync(
        "storage.run(1, noop)",
        "copy_context().run(set_and_call)",
        namespace,
        rounds=rounds,
        number=number,
    )
    results.append(
        compared(
            "run(store, fn), sync",
            runtime,
            run_sync,
            "ns",
            baseline="copy_context().run plus a set",
            limit=2,
        )
    )

    steps = 200 if quick else 1_000

    async def stepper() -> None:
        for _ in range(steps):
            await asyncio.sleep(0)
            storage.get_store()

    async def under_run() -> None:
        await asyncio.create_task(storage.run(1, stepper))

    async def plain_task() -> None:
        await asyncio.create_task(stepper())

    step = await compare_async(under_run, plain_task, rounds=rounds, units=steps, scale=1e6)
    results.append(
        compared(
            "one awaited step under run()",
            runtime,
            step,
            "us",
            baseline="the same coroutine in a plain task",
            limit=1.2,
        )
    )
    return results
