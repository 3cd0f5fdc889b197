"""LangGraph basics guide, "Build a basic chatbot" and "Add tools": a chat loop with a fake model.

Follows the tutorials: ``State`` with ``Annotated[list, add_messages]``, a
``chatbot`` node that invokes the model, the tutorial's ``BasicToolNode`` and
``route_tools`` (to ``"tools"`` while the last message has ``tool_calls``),
and ``stream_graph_updates`` printing ``"Assistant:"`` lines for each user
input. The model is LangChain's ``GenericFakeChatModel``, answering with
``AIMessage``s (the second one calls a tool); the messages of the run that
calls the tool are ``pretty_print()``ed.
"""

import json
from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool as as_tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class State(TypedDict):
    messages: Annotated[list, add_messages]


@as_tool
def get_weather(city: str) -> dict:
    """Look up the weather of a city."""
    return {"city": city, "forecast": "sunny", "degrees": 21}


tools = [get_weather]

llm = GenericFakeChatModel(
    messages=iter(
        [
            AIMessage("Hello! I am a chatbot. Ask me about the weather."),
            AIMessage(
                "",
                tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call-1"}],
            ),
            AIMessage("It is sunny in Paris, 21 degrees."),
            AIMessage("Goodbye!"),
        ]
    )
)

graph_builder = StateGraph(State)


def chatbot(state: State):
    return {"messages": [llm.invoke(state["messages"])]}


graph_builder.add_node("chatbot", chatbot)


class BasicToolNode:
    """A node that runs the tools requested in the last AIMessage."""

    def __init__(self, tools: list) -> None:
        self.tools_by_name = {tool.name: tool for tool in tools}

    def __call__(self, inputs: dict):
        if messages := inputs.get("messages", []):
            message = messages[-1]
        else:
            raise ValueError("No message found in input")
        outputs = []
        for tool_call in message.tool_calls:
            tool_result = self.tools_by_name[tool_call["name"]].invoke(tool_call["args"])
            outputs.append(
                ToolMessage(
                    content=json.dumps(tool_result),
                    name=tool_call["name"],
                    tool_call_id=tool_call["id"],
                )
            )
        return {"messages": outputs}


tool_node = BasicToolNode(tools=tools)
graph_builder.add_node("tools", tool_node)


def route_tools(
    state: State,
):
    """
    Use in the conditional_edge to route to the ToolNode if the last message
    has tool calls. Otherwise, route to the end.
    """
    if isinstance(state, list):
        ai_message = state[-1]
    elif messages := state.get("messages", []):
        ai_message = messages[-1]
    else:
        raise ValueError(f"No messages found in input state to tool_edge: {state}")
    if hasattr(ai_message, "tool_calls") and len(ai_message.tool_calls) > 0:
        return "tools"
    return END


graph_builder.add_conditional_edges(
    "chatbot",
    route_tools,
    {"tools": "tools", END: END},
)
graph_builder.add_edge("tools", "chatbot")
graph_builder.add_edge(START, "chatbot")
graph = graph_builder.compile()


def stream_graph_updates(user_input: str):
    for event in graph.stream({"messages": [{"role": "user", "content": user_input}]}):
        for value in event.values():
            print("Assistant:", value["messages"][-1].content)


user_input = "Hi there!"
print("User: " + user_input)
stream_graph_updates(user_input)

result = graph.invoke({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]})
for message in result["messages"]:
    message.pretty_print()

user_input = "Bye"
print("User: " + user_input)
stream_graph_updates(user_input)
