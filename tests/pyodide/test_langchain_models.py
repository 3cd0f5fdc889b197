"""LangChain chat models in graph nodes, in Pyodide (Node and Chromium), against the scripted API.

The page loads the "llm" wheel set from build/dist (``langchain-openai`` and what
it needs) and builds ``ChatOpenAI`` with ``pyctx_web.http.chat_openai``, whose
requests go through fetch to the scripted OpenAI-compatible server. The graph's
``stream_mode="messages"`` must carry the model's tokens as it does on CPython:
the tool-calling agent of ``tests/unit/langchain_openai_agent.py`` streams, item
for item, what real LangGraph streams for it on CPython.
"""

from __future__ import annotations

import base64
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.differential import support
from tests.e2e.openai_server import OpenAIServer, Pause, Stream, sse, text_reply, tool_call_reply

from .http_support import run, server

__all__ = ["llm_app", "server"]

AGENT = Path(__file__).resolve().parents[1] / "unit" / "langchain_openai_agent.py"

_INSTALL = """
import base64 as _b64, pathlib as _pl, sys as _sys
_root = _pl.Path("/tmp/lc_agent")
_root.mkdir(parents=True, exist_ok=True)
(_root / "langchain_openai_agent.py").write_bytes(_b64.b64decode("%s"))
_sys.path.insert(0, str(_root))
import langchain_openai
"""


@pytest.fixture(scope="module")
def llm_app(pyctx_module: Any) -> Any:
    """One Pyodide per module with pyctx_web and the llm wheel set of build/dist loaded."""
    pyctx_module.load_package(["langchain-openai"])
    source = base64.b64encode(AGENT.read_bytes()).decode("ascii")
    pyctx_module.run_async(_INSTALL % source)
    return pyctx_module


_TOKENS = """
async def case(args):
    from pyctx_web.graph import START, MessagesState, StateGraph
    from pyctx_web.http import chat_openai

    model = chat_openai(
        model="scripted", base_url=args["url"], api_key="sk-test", max_retries=0
    )

    async def agent(state: MessagesState):
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState).add_node(agent).add_edge(START, "agent").compile()
    inputs = {"messages": [{"role": "user", "content": "hi"}]}
    items = []
    async for mode, chunk in graph.astream(inputs, stream_mode=["messages", "values"]):
        if mode == "messages":
            message, metadata = chunk
            keep = ("langgraph_node", "langgraph_step", "ls_provider", "ls_model_name")
            items.append([type(message).__name__, message.content, message.id,
                          {key: metadata[key] for key in keep}])
        else:
            final = chunk["messages"][-1]
    return {"items": items, "final": [type(final).__name__, final.content, final.id]}
"""


def test_messages_mode_streams_chat_openai_tokens_over_fetch(
    llm_app: Any, server: OpenAIServer
) -> None:
    """A node awaiting ``ChatOpenAI.ainvoke`` streams each token with the node's metadata."""
    server.script(text_reply("Hel", "lo", " there"))
    result = run(llm_app, _TOKENS, url=server.base_url)

    final_type, final_content, final_id = result["final"]
    assert (final_type, final_content) == ("AIMessage", "Hello there")
    tokens = [item for item in result["items"] if item[1]]
    assert [content for _, content, _, _ in tokens] == ["Hel", "lo", " there"]
    assert {kind for kind, _, _, _ in result["items"]} == {"AIMessageChunk"}
    assert {ident for _, _, ident, _ in result["items"]} == {final_id}
    metadata = {
        "langgraph_node": "agent",
        "langgraph_step": 1,
        "ls_provider": "openai",
        "ls_model_name": "scripted",
    }
    assert all(item[3] == metadata for item in result["items"])
    assert [request.json.get("stream") for request in server.completions()] == [True]


_AGENT = """
async def case(args):
    import contextlib, importlib, io
    from pyctx_web.graph import install_as_langgraph
    from pyctx_web.http import chat_openai

    install_as_langgraph()
    agent = importlib.import_module("langchain_openai_agent")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        await agent.main(args["url"], chat_openai)
    return printed.getvalue()
"""

_VERSIONS = re.compile(r"\('lc_versions', \{[^}]*\}\)")
"""The packages' versions in a token's metadata: the page's wheels are newer than .venv's."""


def _agent_script(server: OpenAIServer) -> None:
    server.script(
        tool_call_reply("multiply", {"a": 6, "b": 7}), text_reply("6 times 7", " is ", "42.")
    )


def _comparable(output: str) -> list[str]:
    return _VERSIONS.sub("('lc_versions', <versions>)", support.normalize(output)).splitlines()


def test_tool_calling_agent_streams_what_real_langgraph_streams(
    llm_app: Any, server: OpenAIServer
) -> None:
    """The agent's ``messages`` stream in Pyodide is real LangGraph's on CPython, item by item."""
    reference = support.REFERENCE_PYTHON
    probe = [str(reference), "-c", "import langchain_openai"]
    if not reference.exists() or subprocess.run(probe, check=False).returncode != 0:
        pytest.skip(f"{reference} with langchain-openai is missing: ./build.sh setup installs it")
    _agent_script(server)
    done = subprocess.run(
        [str(reference), str(AGENT), server.base_url],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=support.TIMEOUT,
        check=True,
    )
    expected = _comparable(done.stdout)

    _agent_script(server)
    actual = _comparable(run(llm_app, _AGENT, url=server.base_url))

    assert any(line.startswith("ToolMessage '42'") for line in expected)
    assert actual == expected


_CLOSE = """
async def case(args):
    from pyctx_web.graph import START, MessagesState, StateGraph
    from pyctx_web.http import chat_openai

    model = chat_openai(model="scripted", base_url=args["url"], api_key="sk-test", max_retries=0)

    async def agent(state: MessagesState):
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState).add_node(agent).add_edge(START, "agent").compile()
    stream = graph.astream({"messages": [("user", "hi")]}, stream_mode="messages")
    async for message, _ in stream:
        if message.content:
            break
    await stream.aclose()
    return message.content
"""


def test_closing_the_stream_mid_answer_aborts_the_models_request(
    llm_app: Any, server: OpenAIServer
) -> None:
    """Leaving ``astream`` after the first token cancels the run, which aborts the fetch."""
    first = {"choices": [{"index": 0, "delta": {"content": "first"}, "finish_reason": None}]}
    server.script(Stream([*sse(first), Pause(60), *sse("[DONE]")]))
    assert run(llm_app, _CLOSE, url=server.base_url) == "first"
    assert server.wait_served(1)[0].closed_early is True


_SYNC = """
async def case(args):
    from pyodide.ffi import can_run_sync
    from pyctx_web.graph import START, MessagesState, StateGraph
    from pyctx_web.graph.errors import SyncUnavailableError
    from pyctx_web.http import chat_openai

    model = chat_openai(model="scripted", base_url=args["url"], api_key="sk-test", max_retries=0)

    def agent(state: MessagesState):
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState).add_node(agent).add_edge(START, "agent").compile()
    try:
        streamed = list(graph.stream({"messages": [("user", "hi")]}, stream_mode="messages"))
    except SyncUnavailableError as error:
        return {"jspi": can_run_sync(), "error": str(error)}
    return {
        "jspi": can_run_sync(),
        "tokens": [message.content for message, _ in streamed if message.content],
        "nodes": sorted({metadata["langgraph_node"] for _, metadata in streamed}),
    }
"""


NO_SYNC_STREAM = (
    "stream() is not available in Pyodide here: this JavaScript runtime has no JavaScript "
    "Promise Integration (JSPI), which pyodide.ffi.run_sync needs; use `await graph.astream(...)`"
)


def test_sync_stream_of_a_sync_node_streams_tokens_where_jspi_allows(
    llm_app: Any, server: OpenAIServer
) -> None:
    """With JSPI, ``graph.stream`` of a node calling ``model.invoke`` streams the model's tokens."""
    server.script(text_reply("sync", " tokens"))
    result = run(llm_app, _SYNC, url=server.base_url)
    assert result["jspi"] is (llm_app.browser != "node")  # Chromium has JSPI, Node 20 not
    if result["jspi"]:
        assert result == {"jspi": True, "tokens": ["sync", " tokens"], "nodes": ["agent"]}
    else:
        assert result == {"jspi": False, "error": NO_SYNC_STREAM}
        assert server.completions() == []


_PROGRAM = """
async def case(args):
    import contextlib, io, runpy
    from pathlib import Path
    from pyctx_web.graph import install_as_langgraph

    install_as_langgraph()
    program = Path("/tmp/lc_agent") / f"{args['name']}.py"
    program.write_text(args["text"], encoding="utf-8")
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        namespace = runpy.run_path(str(program), run_name="__differential__")
        await namespace["main"]()
    return captured.getvalue()
"""

LANGCHAIN_PROGRAMS = ("functional_llm_tokens", "stream_llm_tokens_async")
"""The differential programs whose nodes and tasks call langchain_core's fake chat models."""


@pytest.mark.parametrize("name", LANGCHAIN_PROGRAMS)
def test_differential_program_with_a_chat_model_prints_what_langgraph_prints(
    llm_app: Any, name: str
) -> None:
    """A differential program streaming a fake chat model's tokens prints, in Pyodide, the same."""
    source = support.program_path(name).read_text(encoding="utf-8")
    stdout = run(llm_app, _PROGRAM, name=name, text=source)
    expected = support.expected_path(name).read_text(encoding="utf-8")
    runtime = f"pyctx_web in Pyodide ({llm_app.browser})"
    diff = support.difference(name, expected, support.normalize(stdout), runtime)
    if diff is not None:
        pytest.fail(f"{name} printed otherwise in Pyodide:\n{diff}", pytrace=False)
