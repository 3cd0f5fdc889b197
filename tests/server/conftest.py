"""The server tier's fixtures: the real LangGraph Server, and pyctx_web's server, each on a port.

Both serve the graphs of ``graphs/langgraph.json``; the flows reach them over real HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server import pyctx_side
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
