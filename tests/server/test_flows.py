"""Each client flow gives, on the real LangGraph Server, the transcript its expected file holds.

This proves the flows' transcripts are stable from run to run on the real server, so that
a difference from pyctx_web's (test_compare.py) is a difference of the servers. Regenerate
an expected file from the real server with ``PYCTX_SERVER_UPDATE=1`` (the test then writes
the transcript it got and fails, so that an update is never a silent pass).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.server.flows import FLOWS

EXPECTED = Path(__file__).resolve().parent / "expected"


@pytest.mark.parametrize("name", list(FLOWS))
def test_flow_on_langgraph_server(name: str, reference_transcript: Callable[[str], str]) -> None:
    """The real LangGraph Server answers the flow as its expected transcript records."""
    actual = reference_transcript(name)
    path = EXPECTED / f"{name}.txt"
    if os.environ.get("PYCTX_SERVER_UPDATE") == "1":
        path.write_text(actual, encoding="utf-8")
        pytest.fail(f"wrote {path}: rerun without PYCTX_SERVER_UPDATE")
    assert path.exists(), f"{path} is missing: run with PYCTX_SERVER_UPDATE=1 to write it"
    assert actual == path.read_text(encoding="utf-8")


def test_every_flow_has_an_expected_transcript() -> None:
    """Every flow has its expected transcript, and every expected transcript a flow."""
    assert sorted(path.stem for path in EXPECTED.glob("*.txt")) == sorted(FLOWS)


def test_pyctx_web_server_answers_over_http(pyctx_web_server: str) -> None:
    """pyctx_web's server, put on a port for the comparison, answers GET /ok over real HTTP."""
    response = httpx.get(f"{pyctx_web_server}/ok")
    assert (response.status_code, response.json()["ok"]) == (200, True)
