"""pyctx_web's side of the server tier: the same graphs, served by ``pyctx_web.server`` over HTTP.

:func:`load_graphs` imports the graph files ``graphs/langgraph.json`` names, with pyctx_web
registered under LangGraph's module names (``install_as_langgraph``), as the real server
imports them with real LangGraph. :func:`serve` puts ``asgi_app(AgentServer(graphs))`` on a
port of 127.0.0.1 (:mod:`tests.server.asgi_http`), so the flows reach both servers over real
HTTP with the same client.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pyctx_web.graph import install_as_langgraph
from tests.server.asgi_http import AsgiHttpServer

GRAPHS = Path(__file__).resolve().parent / "graphs"


def load_graphs(folder: Path = GRAPHS) -> dict[str, Any]:
    """The compiled graphs that ``folder/langgraph.json`` names, by graph id."""
    install_as_langgraph()
    config = json.loads((folder / "langgraph.json").read_text(encoding="utf-8"))
    graphs: dict[str, Any] = {}
    for graph_id, spec in config["graphs"].items():
        file, _, attribute = spec.partition(":")
        path = (folder / file).resolve()
        module_spec = importlib.util.spec_from_file_location(f"server_graph_{graph_id}", path)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"graph {graph_id!r}: cannot import {path}")
        module = importlib.util.module_from_spec(module_spec)
        # Registered first, as an import would: the state's annotations are resolved in it.
        sys.modules[module_spec.name] = module
        module_spec.loader.exec_module(module)
        graphs[graph_id] = getattr(module, attribute)
    return graphs


@contextmanager
def serve(folder: Path = GRAPHS) -> Iterator[str]:
    """The base URL of pyctx_web's agent server serving ``folder``'s graphs, for the block."""
    from pyctx_web.server import AgentServer, asgi_app

    http = AsgiHttpServer(asgi_app(AgentServer(load_graphs(folder))))
    with http as base_url:
        yield base_url
    if http.errors:
        raise RuntimeError(f"pyctx_web's server raised: {http.errors!r}")
