"""The reference of the server tier: the real LangGraph Server (``langgraph dev``) on a free port.

``./build.sh server`` installs it in ``build/cache/server-ref/venv`` (the pins of
``[tool.pyctx-web.server-ref]`` in pyproject.toml). :func:`langgraph_dev` serves the graphs
of ``graphs/langgraph.json`` from a copy of that folder in a directory the caller gives,
since ``langgraph dev`` keeps its state in ``.langgraph_api`` beside its config.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GRAPHS = HERE / "graphs"
LANGGRAPH = ROOT / "build" / "cache" / "server-ref" / "venv" / "bin" / "langgraph"
STARTUP_LIMIT = 120.0  # seconds before a server that never answers /ok is given up on


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _environment() -> dict[str, str]:
    # No analytics from the CLI and no LangSmith tracing: no request leaves 127.0.0.1.
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("LANGSMITH_", "LANGCHAIN_"))
    }
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _wait_until_ready(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_LIMIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(
                f"langgraph dev exited with {process.returncode}:\n{log.read_text()}"
            )
        try:
            if httpx.get(f"{base_url}/ok", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass  # not listening yet
        time.sleep(0.2)
    raise ServerStartError(
        f"langgraph dev did not answer GET /ok in {STARTUP_LIMIT} s:\n{log.read_text()}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    # The server runs in a session of its own: end its whole process group, by its id.
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class ServerStartError(RuntimeError):
    """The real LangGraph Server is not installed, or did not start."""


@contextmanager
def langgraph_dev(workdir: Path, graphs: Path = GRAPHS) -> Iterator[str]:
    """The base URL of the real LangGraph Server serving ``graphs`` (by default this folder's
    ``graphs/``: a folder with its ``langgraph.json``) from a copy in ``workdir``, meanwhile."""
    if not LANGGRAPH.exists():
        raise ServerStartError(f"{LANGGRAPH} is missing: run ./build.sh server (it installs it)")
    work = workdir / "graphs"
    shutil.copytree(graphs, work, ignore=shutil.ignore_patterns("__pycache__", ".langgraph_api"))
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = workdir / "server.log"
    command = [str(LANGGRAPH), "dev", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--no-browser", "--no-reload", "--config", str(work / "langgraph.json")]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=work,
            env=_environment(),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_until_ready(process, base_url, log)
        yield base_url
    finally:
        _stop(process)
