"""The harness of pyctx_web.http's Pyodide tests: httpx and httpx2 installed, cases run as JSON.

The wheels of httpx and httpx2 (pure Python) and of their dependencies for
Pyodide are downloaded with pip once per session, written into Pyodide's file
system and installed by micropip from there. A case is the source of an
``async def case(args)`` returning something JSON can hold; :func:`run` runs it
in Pyodide and returns what it returned.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.openai_server import OpenAIServer

__all__ = ["WHEELS", "fetch_app", "run", "server", "wheel_dir"]

WHEELS = (
    "httpx==0.28.1",
    "httpcore==1.0.9",
    "h11==0.16.0",
    "anyio==4.16.0",
    "sniffio==1.3.1",
    "idna==3.20",
    "certifi==2026.10.19.post1",
    "httpx2==2.16.2",
    "httpx2-jsfetch==1.0",
)
"""The pure-Python wheels the transport tests install: both libraries and what they import."""


@pytest.fixture(scope="session")
def wheel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the wheels of :data:`WHEELS`, downloaded from PyPI."""
    folder = tmp_path_factory.mktemp("http-wheels")
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    command += ["--only-binary=:all:", "--dest", str(folder), *WHEELS]
    subprocess.run(command, check=True)
    return folder


_INSTALL = """
import base64 as _b64, json as _json, pathlib as _pl, micropip as _mp
_root = _pl.Path("/tmp/http_wheels")
_root.mkdir(parents=True, exist_ok=True)
for _name, _data in _json.loads(_b64.b64decode("%s").decode()).items():
    (_root / _name).write_bytes(_b64.b64decode(_data))
await _mp.install(sorted(f"emfs:{_p}" for _p in _root.glob("*.whl")), deps=False)
import httpx, httpx2
"""


@pytest.fixture(scope="module")
def fetch_app(pyctx_module: Any, wheel_dir: Path) -> Any:
    """One Pyodide per module with pyctx_web, httpx and httpx2 installed."""
    wheels = {
        path.name: base64.b64encode(path.read_bytes()).decode("ascii")
        for path in sorted(wheel_dir.glob("*.whl"))
    }
    encoded = base64.b64encode(json.dumps(wheels).encode()).decode("ascii")
    pyctx_module.run_async(_INSTALL % encoded)
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
