"""Run langgraph-checkpoint-conformance on one saver and print each test's outcome as JSON.

Run by tests/suites/run.py inside a suites venv: ``python conformance.py SIDE SAVER OUT``,
SIDE ``langgraph`` (real LangGraph's savers) or ``pyctx`` (pyctx_web's, through
``install_as_langgraph()``), SAVER ``memory`` or ``sqlite``; OUT receives
``{"test id": "passed" | "failed" | "skipped"}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any


def saver_factory(side: str, kind: str) -> Any:
    """An async generator function yielding a fresh saver of ``kind`` on ``side``."""
    if kind == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        async def memory() -> AsyncIterator[Any]:
            yield InMemorySaver()

        return memory
    if kind == "sqlite" and side == "pyctx":
        from langgraph.checkpoint.sqlite import SqliteSaver

        async def pyctx_sqlite() -> AsyncIterator[Any]:
            with SqliteSaver.from_conn_string(":memory:") as saver:
                yield saver

        return pyctx_sqlite
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async def real_sqlite() -> AsyncIterator[Any]:
            async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
                yield saver

        return real_sqlite
    raise SystemExit(f"conformance.py: unknown saver {kind!r} (memory or sqlite)")


async def run(side: str, kind: str) -> dict[str, str]:
    """Each conformance test of the saver, by ``capability::name``, and its outcome."""
    if side == "pyctx":  # before anything imports langgraph, as pyctx_plugin.py does
        from pyctx_web.graph import install_as_langgraph

        install_as_langgraph()
    from langgraph.checkpoint.conformance import checkpointer_test, validate
    from langgraph.checkpoint.conformance.report import ProgressCallbacks

    outcomes: dict[str, str] = {}

    def record(capability: str, name: str, passed: bool, error: str | None) -> None:
        outcomes[f"{capability}::{name}"] = "passed" if passed else "failed"

    registered = checkpointer_test(name=f"{side}-{kind}")(saver_factory(side, kind))
    report = await validate(registered, progress=ProgressCallbacks(on_test_result=record))
    for capability, result in report.results.items():
        if result.tests_skipped and not result.detected:
            outcomes[f"{capability}::(not detected)"] = "skipped"
    return outcomes


def main() -> None:
    """Parse SIDE SAVER OUT and write the outcomes."""
    side, kind, out = sys.argv[1:4]
    try:
        outcomes = asyncio.run(run(side, kind))
    except Exception as error:  # the whole run failing is one failed test, with its reason
        outcomes = {"(setup)": "failed"}
        print(f"conformance.py: {type(error).__name__}: {error}", file=sys.stderr)
    with open(out, "w", encoding="utf-8") as file:
        json.dump(outcomes, file, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
