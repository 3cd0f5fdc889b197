"""LangGraph's ReAct agent guide, "pre-model hook" and "post-model hook" (create_react_agent):
trim what the model reads, answer a tool call in a hook, and the agent's graph.

A scripted chat model asks for two tool calls, then answers. The pre-model hook
gives the model a trimmed history through ``llm_input_messages`` (the thread keeps
all of it); the post-model hook answers the second call itself, so only the first
goes to the tools. Each agent prints its nodes, the thread's messages, what the
model read and the keys of the thread's state; last, the pre-model hook with a
pydantic state schema (v1: v2 sends the state, a pydantic model, in its Sends).
"""

from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import InjectedState, create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentState, AgentStatePydantic


class ScriptedModel(BaseChatModel):
    seen: list = []  # noqa: RUF012 - a pydantic field, copied per instance

    @property
    def _llm_type(self):
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(m.type, str(m.content)[:20]) for m in messages])
        if messages[-1].type == "human":
            calls = [
                {"name": "peek", "args": {"x": 1}, "id": "p1"},
                {"name": "peek", "args": {"x": 2}, "id": "p2"},
            ]
            reply = AIMessage("", tool_calls=calls)
        else:
            reply = AIMessage("final")
        return ChatResult(generations=[ChatGeneration(message=reply)])


class State(AgentState):
    user: str


class PydanticState(AgentStatePydantic):
    user: str = "anon"


@tool
def peek(x: int, user: Annotated[str, InjectedState("user")]) -> str:
    """Peek at x for the user."""
    return f"{user}:{x}"


def trim(state):
    messages = state["messages"] if isinstance(state, dict) else state.messages
    return {"llm_input_messages": [SystemMessage("trimmed"), *messages[-2:]]}


def answer_second(state):
    last = state["messages"][-1]
    if len(last.tool_calls) > 1:
        call = last.tool_calls[1]
        return {"messages": [ToolMessage("hook answered", tool_call_id=call["id"], name="peek")]}
    return {}


def run(label, schema, version, keys=True, **hooks):
    model = ScriptedModel(seen=[])
    agent = create_react_agent(
        model,
        [peek],
        state_schema=schema,
        checkpointer=InMemorySaver(),
        version=version,
        prompt=SystemMessage("be brief"),
        **hooks,
    )
    config = {"configurable": {"thread_id": "1"}}
    out = agent.invoke({"messages": [("user", "hi")], "user": "ada"}, config)
    print(label, "nodes:", list(agent.get_graph().nodes))
    print("  messages:", [(m.type, m.content) for m in out["messages"]])
    print("  model read:", model.seen)
    if keys:
        print("  state keys:", sorted(agent.get_state(config).values))


run("pre", State, "v2", pre_model_hook=trim)
run("post", State, "v2", post_model_hook=answer_second)
run("pre+post", State, "v2", pre_model_hook=trim, post_model_hook=answer_second)
run("pre v1", State, "v1", pre_model_hook=trim)
run("pre pydantic v1", PydanticState, "v1", keys=False, pre_model_hook=trim)
