"""The run-time figures compared with the baseline build: context ops, graph steps, JS boundary.

Not a runtime of its own: :mod:`versus` runs this module in processes of this
build and of the baseline build, alternately, and pairs their rows.
"""

from __future__ import annotations

import tempfile
from typing import Any

import bench_context
import bench_graph

from pyctx_web.graph.checkpoint.sqlite import SqliteSaver

RUNTIMES = ("versus",)
"""Left out of the suite's own runs: :mod:`versus` runs it."""


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """The context store rows, the graph step rows and, in Pyodide, the JS-boundary rows."""
    rows = await bench_context.run(runtime, quick=quick)
    with tempfile.TemporaryDirectory() as folder:
        savers = bench_graph._checkpointers(folder)
        try:
            rows += await bench_graph.step_rows(runtime, savers, quick=quick)
        finally:
            saver = savers["SqliteSaver"]
            if isinstance(saver, SqliteSaver):
                saver.close()
    if runtime.startswith("pyodide"):
        import bench_jsbridge

        rows += await bench_jsbridge.run(runtime, quick=quick)
    return rows
