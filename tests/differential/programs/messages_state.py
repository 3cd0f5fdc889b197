"""Graph API guide, "MessagesState": chat messages with the ``add_messages`` reducer.

Follows "Process state updates with reducers" and "MessagesState": a node
returns an ``AIMessage``; the input is given in OpenAI format and coerced to a
``HumanMessage``; ``class State(MessagesState)`` adds a field. Needs
``langchain_core`` messages.
"""

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


class State(MessagesState):
    extra_field: int


def node(state: State):
    new_message = AIMessage("Hello!")
    return {"messages": [new_message], "extra_field": 10}


graph = StateGraph(State).add_node(node).add_edge(START, "node").compile()

input_message = {"role": "user", "content": "Hi"}
result = graph.invoke({"messages": [input_message]})
for message in result["messages"]:
    print(type(message).__name__, message.content)
print(result["extra_field"])
