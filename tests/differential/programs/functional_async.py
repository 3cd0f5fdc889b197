"""Functional API guide, async: an async entrypoint awaiting async tasks, resumed after a question.

Follows the guide's async form (``async def`` entrypoint and tasks, ``await``
on the futures, ``ainvoke`` and ``astream``), with ``interrupt()`` in the
entrypoint and the finished tasks not run again on resume.
"""

import asyncio

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt


@task
async def fetch(source: str) -> str:
    print(f"fetching {source}")
    await asyncio.sleep(0)
    return f"data from {source}"


@entrypoint(checkpointer=InMemorySaver())
async def research(topic: str) -> dict:
    found = await asyncio.gather(fetch(f"{topic}-a"), fetch(f"{topic}-b"))
    choice = interrupt({"found": list(found)})
    return {"topic": topic, "choice": choice}


async def main() -> None:
    config = {"configurable": {"thread_id": "r1"}}
    print(await research.ainvoke("otters", config))
    async for chunk in research.astream(Command(resume="a"), config):
        print(chunk)
    print((await research.aget_state(config)).values)


if __name__ == "__main__":
    asyncio.run(main())
