"""Functional API guide, async: an async ``StateGraph`` node awaits ``@task`` calls, then asks.

Follows the guide's async form of tasks (``async def`` tasks, ``await`` on
their futures, ``asyncio.gather``) called from a state graph node rather than
an entrypoint: the node awaits an async model-like task and a sync task, asks
with ``interrupt()``, and on ``Command(resume=...)`` gets the saved results
without running the tasks again; run with ``astream`` and ``ainvoke``.
"""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import task
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

runs: dict[str, int] = {}


def ran(name: str) -> None:
    runs[name] = runs.get(name, 0) + 1


@task
async def call_model(prompt: str) -> str:
    ran("call_model")
    await asyncio.sleep(0)
    return f"answer to {prompt}"


@task
async def fetch(source: str) -> str:
    ran(f"fetch {source}")
    await asyncio.sleep(0)
    return f"data from {source}"


@task
def count_words(text: str) -> int:
    ran("count_words")
    return len(text.split())


class State(TypedDict, total=False):
    question: str
    log: Annotated[list, operator.add]


async def answer(state: State) -> dict:
    found = await asyncio.gather(fetch("web"), fetch("wiki"))
    reply = await call_model(state["question"])
    words = await count_words(reply)
    verdict = interrupt({"reply": reply, "found": list(found), "words": words})
    return {"log": [reply, words, verdict]}


def build():
    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    return builder.compile(checkpointer=InMemorySaver())


async def main() -> None:
    graph = build()
    config = {"configurable": {"thread_id": "stream"}}
    for given in [{"question": "why?", "log": []}, Command(resume="good")]:
        async for chunk in graph.astream(given, config, stream_mode="updates"):
            print(chunk)
        print("runs so far:", dict(sorted(runs.items())))
    print((await graph.aget_state(config)).values)

    runs.clear()
    config = {"configurable": {"thread_id": "invoke"}}
    print(await graph.ainvoke({"question": "how?", "log": []}, config))
    print(await graph.ainvoke(Command(resume="fine"), config))
    print("runs:", dict(sorted(runs.items())))


if __name__ == "__main__":
    asyncio.run(main())
