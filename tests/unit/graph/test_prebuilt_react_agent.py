"""create_react_agent (pyctx_web.graph.prebuilt) with a scripted LangChain chat model."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.tools import tool
from pydantic import BaseModel

from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.message import add_messages
from pyctx_web.graph.prebuilt import InjectedState, create_react_agent


class Scripted(GenericFakeChatModel):
    """Replies from a script and keeps what it was asked."""

    asked: list[list[BaseMessage]] = []  # noqa: RUF012 - a pydantic field, copied per instance

    def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.asked.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _script() -> Iterator[AIMessage]:
    calls = [{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}]
    return iter([AIMessage("", tool_calls=calls), AIMessage("5"), AIMessage("later")])


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_agent_calls_tools_until_it_answers(version: Literal["v1", "v2"]) -> None:
    """The agent runs the model, its tool calls, then the model again, remembering the thread."""
    model = Scripted(messages=_script(), asked=[])
    agent = create_react_agent(
        model, [add], prompt="Add.", checkpointer=InMemorySaver(), version=version
    )
    config = {"configurable": {"thread_id": "t"}}
    out = agent.invoke({"messages": [HumanMessage("2+3?")]}, config)
    assert [(m.type, m.content) for m in out["messages"]] == [
        ("human", "2+3?"),
        ("ai", ""),
        ("tool", "5"),
        ("ai", "5"),
    ]
    assert isinstance(model.asked[0][0], SystemMessage)
    again = agent.invoke({"messages": [HumanMessage("again")]}, config)
    assert len(again["messages"]) == 6


def test_interrupt_before_tools_pauses_and_resumes() -> None:
    """interrupt_before=["tools"] stops before the tools run; invoking with None goes on."""
    agent = create_react_agent(
        Scripted(messages=_script(), asked=[]),
        [add],
        checkpointer=InMemorySaver(),
        interrupt_before=["tools"],
    )
    config = {"configurable": {"thread_id": "t"}}
    paused = agent.invoke({"messages": [HumanMessage("2+3?")]}, config)
    assert [m.type for m in paused["messages"]] == ["human", "ai"]
    assert agent.get_state(config).next == ("tools",)
    done = agent.invoke(None, config)
    assert done["messages"][-1].content == "5"


def test_pre_model_hook_chooses_what_the_model_reads() -> None:
    """A pre_model_hook's llm_input_messages are the model's input; the state keeps all."""
    model = Scripted(messages=iter([AIMessage("ok")]), asked=[])

    def last_only(state: dict[str, Any]) -> dict[str, Any]:
        return {"llm_input_messages": state["messages"][-1:]}

    agent = create_react_agent(model, [add], pre_model_hook=last_only)
    out = agent.invoke({"messages": [HumanMessage("one"), HumanMessage("two")]})
    assert [m.content for m in model.asked[0]] == ["two"]
    assert [m.content for m in out["messages"]] == ["one", "two", "ok"]


def test_a_model_name_is_refused() -> None:
    """A model given by name is refused with a message naming it."""
    with pytest.raises(
        ValueError,
        match=(
            r"^create_react_agent needs a chat model object; a model name \('openai:gpt-4o'\)"
            r" needs langchain's init_chat_model, which pyctx_web does not call$"
        ),
    ):
        create_react_agent("openai:gpt-4o", [add])


def test_langgraph_prebuilt_is_pyctx_web_and_loaded_only_when_imported() -> None:
    """install_as_langgraph() imports no langchain_core; langgraph.prebuilt is pyctx_web's."""
    code = (
        "import sys\n"
        "from pyctx_web.graph import install_as_langgraph\n"
        "install_as_langgraph()\n"
        "import langgraph.graph\n"
        "print('langchain_core' in sys.modules)\n"
        "from langgraph.prebuilt import ToolNode, create_react_agent\n"
        "from langgraph.prebuilt.tool_node import ToolRuntime\n"
        "from langgraph.prebuilt.interrupt import HumanInterrupt\n"
        "import langgraph.prebuilt.chat_agent_executor as ex, langgraph.prebuilt.tool_validator\n"
        "print(ToolNode.__module__, ex.__spec__.name)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n") == [
        "False",
        "pyctx_web.graph.prebuilt.tool_node pyctx_web.graph.prebuilt.chat_agent_executor",
        "",
    ]


class ModelState(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    user: str = "ann"


@tool
def whose(state: Annotated[Any, InjectedState]) -> str:
    """Name the state's user."""
    return f"{type(state).__name__}:{state.user}"


def test_v2_runs_tools_on_a_model_state_with_a_checkpointer() -> None:
    """v2 with a pydantic state schema checkpoints its tool calls; tools get the state object."""
    calls = [{"name": "whose", "args": {}, "id": "c1"}]
    model = Scripted(messages=iter([AIMessage("", tool_calls=calls), AIMessage("ok")]), asked=[])
    agent = create_react_agent(
        model, [whose], state_schema=ModelState, checkpointer=InMemorySaver(), version="v2"
    )
    out = agent.invoke({"messages": [HumanMessage("who?")]}, {"configurable": {"thread_id": "t"}})
    assert [m.content for m in out["messages"]] == ["who?", "", "ModelState:ann", "ok"]


def test_config_schema_is_a_deprecated_context_schema_and_other_keywords_are_refused() -> None:
    """config_schema= warns and serves as context_schema; an unknown keyword raises TypeError."""
    from pyctx_web.graph.warnings import LangGraphDeprecatedSinceV10

    model = Scripted(messages=iter([AIMessage("hi")]), asked=[])
    message = (
        r"^`config_schema` is deprecated and will be removed\. "
        r"Please use `context_schema` instead\. Deprecated in LangGraph V1\.0 to be removed "
        r"in V2\.0\.$"
    )
    with pytest.warns(LangGraphDeprecatedSinceV10, match=message):
        agent = create_react_agent(model, [], config_schema=dict)
    assert agent.invoke({"messages": [HumanMessage("x")]})["messages"][-1].content == "hi"
    refused = r"^create_react_agent\(\) got unexpected keyword arguments: \{'extra': 1\}$"
    with pytest.raises(TypeError, match=refused):
        create_react_agent(model, [], extra=1)
