"""The harness of pyctx_web.http's Pyodide tests: httpx and httpx2 loaded, cases run as JSON.

httpx and httpx2 come from build/dist's "llm" wheel set (registered in its
``pyodide-lock.json``). A case is the source of an ``async def case(args)``
returning something JSON can hold; :func:`run` runs it in Pyodide and returns
what it returned.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.openai_server import OpenAIServer

__all__ = ["fetch_app", "run", "server"]


@pytest.fixture(scope="module")
def fetch_app(pyctx_module: Any) -> Any:
    """One Pyodide per module with pyctx_web, httpx and httpx2 loaded from build/dist."""
    pyctx_module.load_package(["httpx", "httpx2"])
    pyctx_module.run("import httpx, httpx2")
    return pyctx_module


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1, shared by the module's tests."""
    with OpenAIServer() as running:
        yield running


_RUN = """
%s

import base64 as _b64, json as _json
_json.dumps(await case(_json.loads(_b64.b64decode("%s").decode())))
"""


def run(app: Any, source: str, **args: Any) -> Any:
    """Run ``source``'s ``async def case(args)`` in Pyodide with ``args``; what it returned."""
    encoded = base64.b64encode(json.dumps(args).encode()).decode("ascii")
    return json.loads(app.run_async(_RUN % (source, encoded)))
