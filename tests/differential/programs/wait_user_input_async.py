"""Human-in-the-loop guide, "Pause using interrupt", async: astream until the interrupt, resume.

Follows the guide's four steps (a checkpointer, ``interrupt()`` in a node, run
with a thread id until the interrupt, resume with ``Command(resume=...)``),
run with ``astream`` as the guide allows (``invoke``/``ainvoke``/``stream``/
``astream``): ``"updates"`` show the ``__interrupt__`` chunk, ``"values"``
start the resumed run with the full state. Also reads the thread with
``aget_state`` and ``aget_state_history`` and the reducer default (``[]``).
"""

import asyncio
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    input: str
    user_feedback: str
    trail: Annotated[list[str], operator.add]


async def step_1(state: State):
    print("---Step 1---")
    return {"trail": ["step_1"]}


async def human_feedback(state: State):
    print("---human_feedback---")
    feedback = interrupt("Please provide feedback:")
    return {"user_feedback": feedback, "trail": ["human_feedback"]}


async def step_3(state: State):
    print("---Step 3---")


builder = StateGraph(State)
builder.add_node("step_1", step_1)
builder.add_node("human_feedback", human_feedback)
builder.add_node("step_3", step_3)
builder.add_edge(START, "step_1")
builder.add_edge("step_1", "human_feedback")
builder.add_edge("human_feedback", "step_3")
builder.add_edge("step_3", END)

graph = builder.compile(checkpointer=InMemorySaver())


async def main() -> None:
    thread = {"configurable": {"thread_id": "1"}}
    async for event in graph.astream({"input": "hello world"}, thread, stream_mode="updates"):
        print(event)

    state = await graph.aget_state(thread)
    print(state.next, [i.value for i in state.interrupts])

    async for event in graph.astream(Command(resume="go to step 3!"), thread, stream_mode="values"):
        print(event)

    async for state in graph.aget_state_history(thread):
        print(state.values, state.next, state.metadata["source"], state.metadata["step"])

    thread = {"configurable": {"thread_id": "2"}}
    print(await graph.ainvoke({"input": "again"}, thread))
    print(await graph.ainvoke(Command(resume="done"), thread))


if __name__ == "__main__":
    asyncio.run(main())
