"""API reference page of ``add_messages``: the examples of its docstring.

"Basic usage" and "Overwrite existing message" call the reducer directly; "Use
in a StateGraph" runs a graph whose node returns a ``("assistant", "Hello")``
tuple, invoked with ``{}``. Then the shapes a side may take (a single message,
a string, a dict, a tuple) and what ``add_messages`` refuses, with its errors.
"""

from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

msgs1 = [HumanMessage(content="Hello", id="1")]
msgs2 = [AIMessage(content="Hi there!", id="2")]
print(add_messages(msgs1, msgs2))
# [HumanMessage(content='Hello', id='1'), AIMessage(content='Hi there!', id='2')]

msgs1 = [HumanMessage(content="Hello", id="1")]
msgs2 = [HumanMessage(content="Hello again", id="1")]
print(add_messages(msgs1, msgs2))
# [HumanMessage(content='Hello again', id='1')]


class State(TypedDict):
    messages: Annotated[list, add_messages]


builder = StateGraph(State)
builder.add_node("chatbot", lambda state: {"messages": [("assistant", "Hello")]})
builder.set_entry_point("chatbot")
builder.set_finish_point("chatbot")
graph = builder.compile()
print(graph.invoke({}))
# {'messages': [AIMessage(content='Hello', id=...)]}

# Either side may be one message; strings, dicts and tuples are coerced.
print(add_messages(HumanMessage("a", id="a"), "b"))
print(add_messages([], {"role": "assistant", "content": "c", "id": "c"}))
print(add_messages([], ("system", "d")))
print(add_messages([], {"role": "tool", "content": "42", "tool_call_id": "call-1", "id": "t"}))
print(
    add_messages(
        [],
        {
            "role": "assistant",
            "content": None,
            "id": "e",
            "tool_calls": [
                {"id": "call-1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
    )
)

for left, right in [
    ([], None),
    (None, [HumanMessage("x")]),
    ([], {"role": "robot", "content": "x"}),
]:
    try:
        add_messages(left, right)
    except ValueError as error:
        print("ValueError:", str(error).splitlines()[0])

reducer = add_messages(format="langchain-openai")
print(reducer([], [{"role": "user", "content": [{"type": "text", "text": "Hi"}], "id": "f"}]))
try:
    add_messages(format="markdown")([], [])
except ValueError as error:
    print(error)
