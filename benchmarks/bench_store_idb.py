"""IndexedDB in a browser: a store ``search`` over 10,000 items (LangGraph's store API)."""

from __future__ import annotations

import uuid
from typing import Any

from stats import clock, figure, quantiles

RUNTIMES = ("pyodide-chromium",)

ITEMS = 10_000


async def _filled(store: Any) -> None:
    from pyctx_web.graph.store.base import PutOp

    for start in range(0, ITEMS, 1000):
        await store.abatch(
            [
                PutOp(
                    ("users", f"u{i % 10}", "memories"),
                    f"m{i}",
                    {"text": f"memory number {i}", "topic": f"t{i % 50}", "n": i},
                )
                for i in range(start, start + 1000)
            ]
        )


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Per search: a filter over all 10,000 items under one prefix, first page of 10."""
    from pyctx_web.graph.store.indexeddb import IndexedDBStore

    store = IndexedDBStore(f"pyctx-bench-store-{uuid.uuid4().hex[:8]}")
    try:
        await _filled(store)
        rounds = 5 if quick else 15
        times = []
        for index in range(rounds + 1):
            start = clock()
            found = await store.asearch(("users",), filter={"topic": f"t{index % 50}"}, limit=10)
            if index:  # the first search warms the connection and the JSON parser
                times.append((clock() - start) * 1e3)
            if len(found) != 10:
                raise RuntimeError(f"the search found {len(found)} items, not 10")
    finally:
        store.close()
    q1, q2, q3 = quantiles(times)
    return [
        figure(
            f"store search over {ITEMS:,} items, IndexedDB",
            runtime,
            q2,
            "ms",
            spread=(q1, q3),
            note=(
                f"median of {rounds}; filter on one field, first page of 10;"
                f" best {min(times):.1f} ms"
            ),
        )
    ]
