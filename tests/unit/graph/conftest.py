"""Fixtures of the graph tests: both checkpointers, both node flavours."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver


@pytest.fixture(params=["memory", "sqlite"])
def checkpointer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Checkpointer]:
    """An InMemorySaver, or an SqliteSaver on a fresh file."""
    if request.param == "memory":
        yield InMemorySaver()
        return
    saver = SqliteSaver(tmp_path / "checkpoints.db")
    yield saver
    saver.close()


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Whether the test's nodes are plain functions or coroutine functions."""
    return str(request.param)
