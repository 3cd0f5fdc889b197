"""Human-in-the-loop guide, "Validate human input": interrupt in a loop, resumed three times.

Follows the guide's extended example ``get_valid_age``: the node calls
``interrupt(prompt)`` until the answer is a non-negative integer, so each
resume replays the earlier answers by index. Written async (``ainvoke``,
``aget_state``), as the graph API guide's "Async" section converts a graph.
"""

import asyncio
import uuid
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.constants import END
from langgraph.graph import StateGraph
from langgraph.types import Command, interrupt


# Define graph state
class State(TypedDict):
    age: int


# Node that asks for human input and validates it
async def get_valid_age(state: State) -> State:
    prompt = "Please enter your age (must be a non-negative integer)."

    while True:
        user_input = interrupt(prompt)

        # Validate the input
        try:
            age = int(user_input)
            if age < 0:
                raise ValueError("Age must be non-negative.")
            break  # Valid input received
        except (ValueError, TypeError):
            prompt = f"'{user_input}' is not valid. Please enter a non-negative integer for age."

    return {"age": age}


# Node that uses the valid input
async def report_age(state: State) -> State:
    print(f"✅ Human is {state['age']} years old.")
    return state


# Build the graph
builder = StateGraph(State)
builder.add_node("get_valid_age", get_valid_age)
builder.add_node("report_age", report_age)

builder.set_entry_point("get_valid_age")
builder.add_edge("get_valid_age", "report_age")
builder.add_edge("report_age", END)

# Create the graph with a memory checkpointer
checkpointer = InMemorySaver()
graph = builder.compile(checkpointer=checkpointer)


async def main() -> None:
    # Run the graph until the first interrupt
    config = {"configurable": {"thread_id": uuid.uuid4()}}
    result = await graph.ainvoke({}, config=config)
    print(result["__interrupt__"])  # First prompt: "Please enter your age..."

    # Simulate an invalid input (e.g., string instead of integer)
    result = await graph.ainvoke(Command(resume="not a number"), config=config)
    print(result["__interrupt__"])  # Follow-up prompt with validation message

    # Simulate a second invalid input (e.g., negative number)
    result = await graph.ainvoke(Command(resume="-10"), config=config)
    print(result["__interrupt__"])  # Another retry

    snapshot = await graph.aget_state(config)
    print(snapshot.next, [i.value for i in snapshot.interrupts])

    # Provide valid input
    final_result = await graph.ainvoke(Command(resume="25"), config=config)
    print(final_result)  # Should include the valid age


if __name__ == "__main__":
    asyncio.run(main())
