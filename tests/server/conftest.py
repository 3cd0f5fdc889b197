"""The server tier's fixtures: the real LangGraph Server, and pyctx_web's server, each on a port.

Both serve the graphs of ``graphs/langgraph.json``; the flows reach them over real HTTP.
The real server's transcript of each flow is taken once per session and shared by the
test of its stability and the comparison with pyctx_web.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.server import pyctx_side
from tests.server.compare import normalized
from tests.server.reference import ServerStartError, langgraph_dev


@pytest.fixture(scope="session")
def langgraph_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a real LangGraph Server (``langgraph dev``), stopped after the session."""
    try:
        with langgraph_dev(tmp_path_factory.mktemp("langgraph-server")) as base_url:
            yield base_url
    except ServerStartError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def pyctx_web_server() -> Iterator[str]:
    """The base URL of ``pyctx_web.server`` serving the same graphs, stopped after the session."""
    with pyctx_side.serve() as base_url:
        yield base_url


@pytest.fixture(scope="session")
def reference_transcript(langgraph_server: str) -> Callable[[str], str]:
    """The real server's normalized transcript of a flow (less SERVER_ONLY), taken once."""
    taken: dict[str, str] = {}

    def transcript(name: str) -> str:
        if name not in taken:
            taken[name] = normalized(langgraph_server, name)
        return taken[name]

    return transcript
