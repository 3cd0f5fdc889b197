"""Functional API guide: parallel tasks, short-term memory, ``entrypoint.final``, streaming.

Follows the guide's examples: ``add_one`` tasks called in parallel and their
``.result()``; ``previous`` accumulating over invocations of one thread;
``entrypoint.final(value=..., save=...)``; ``stream_mode=["updates",
"custom"]`` with ``get_stream_writer``; a task that asks with ``interrupt()`` and
is resumed, the finished task before it not run again; ``get_state``.
"""

import uuid
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt

checkpointer = InMemorySaver()


@task
def add_one(number: int) -> int:
    print(f"add_one({number})")
    return number + 1


@entrypoint(checkpointer=checkpointer)
def graph(numbers: list[int]) -> list[str]:
    futures = [add_one(i) for i in numbers]
    return [f.result() for f in futures]


config = {"configurable": {"thread_id": str(uuid.uuid4())}}
print(graph.invoke([1, 2, 3], config))


@entrypoint(checkpointer=checkpointer)
def my_workflow(number: int, *, previous: Any = None) -> int:
    previous = previous or 0
    return number + previous


config = {"configurable": {"thread_id": "some_thread_id"}}
print(my_workflow.invoke(1, config))  # 1 (previous was None)
print(my_workflow.invoke(2, config))  # 3 (previous was 1 from the previous invocation)


@entrypoint(checkpointer=checkpointer)
def saver(number: int, *, previous: Any = None) -> entrypoint.final[int, int]:
    previous = previous or 0
    # This will return the previous value to the caller, saving
    # 2 * number to the checkpoint, which will be used in the next invocation
    # for the `previous` parameter.
    return entrypoint.final(value=previous, save=2 * number)


config = {"configurable": {"thread_id": "1"}}
print(saver.invoke(3, config))  # 0 (previous was None)
print(saver.invoke(1, config))  # 6 (previous was 3 * 2 from the previous invocation)


@task
def double(number: int) -> int:
    return number * 2


@entrypoint(checkpointer=checkpointer)
def streamer(inputs: dict) -> int:
    writer = get_stream_writer()
    writer("Started processing")
    result = double(inputs["x"]).result() * 2
    writer(f"Result is {result}")
    return result


config = {"configurable": {"thread_id": "abc"}}
for mode, chunk in streamer.stream({"x": 5}, stream_mode=["custom", "updates"], config=config):
    print(f"{mode}: {chunk}")


@task
def review(draft: str) -> str:
    return interrupt({"draft": draft})


@entrypoint(checkpointer=checkpointer)
def reviewed(topic: str) -> dict:
    draft = add_one(len(topic)).result()
    verdict = review(f"draft {draft}").result()
    return {"draft": draft, "verdict": verdict}


config = {"configurable": {"thread_id": "review"}}
print(reviewed.invoke("cats", config))
print(reviewed.get_state(config).next)
print(reviewed.invoke(Command(resume="approved"), config))
state = reviewed.get_state(config)
print(state.values, state.next)
