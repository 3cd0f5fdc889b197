"""LangGraph's ReAct agent guide (create_react_agent), async: streamed updates, a tool that
returns directly, a breakpoint before the tools, and which API the agent calls the model by.

A chat model of langchain-core (a BaseChatModel subclass answering by script) asks
for tools; the agent is streamed with ``astream(stream_mode="updates")``, one
tool has ``return_direct=True`` (the agent ends on its answer), and a second
agent stops before its tools (``interrupt_before=["tools"]``), is inspected with
``aget_state`` and resumed. The model notes whether it was called through
``invoke`` or ``ainvoke``: the agent awaited, then run by the sync ``stream``.
The answers of a step's parallel tool calls print in the order of their call ids.
"""

import asyncio

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent


class ScriptedModel(BaseChatModel):
    calls: list = []  # noqa: RUF012 - a pydantic field, copied per instance

    @property
    def _llm_type(self):
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _reply(self, messages):
        last = messages[-1]
        if last.type == "human" and "weather" in last.content:
            calls = [
                {"name": "weather", "args": {"city": "Paris"}, "id": "w1"},
                {"name": "weather", "args": {"city": "Oslo"}, "id": "w2"},
            ]
            return AIMessage("", tool_calls=calls)
        if last.type == "human" and "look up" in last.content:
            return AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "pi"}, "id": "l1"}])
        answers = [m.content for m in messages if m.type == "tool"]
        return AIMessage("; ".join(answers) or "nothing to do")

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.calls.append("invoke")
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        self.calls.append("ainvoke")
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])


@tool
async def weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: sunny" if city == "Paris" else f"{city}: snow"


@tool(return_direct=True)
def lookup(q: str) -> str:
    """Look a constant up."""
    return f"{q} = 3.14159"


def show(message):
    calls = [(c["name"], c["args"]) for c in getattr(message, "tool_calls", [])]
    extra = f" {message.name} {message.tool_call_id}" if message.type == "tool" else ""
    return f"{message.type}{extra} {message.content!r} {calls if calls else ''}".rstrip()


async def main():
    model = ScriptedModel(calls=[])
    agent = create_react_agent(model, [weather, lookup])
    for question in ("what is the weather?", "look up pi", "hello"):
        print("question:", question)
        # The two weather calls run as parallel tasks whose updates come in the order they
        # finish, which a loaded machine may swap: a step's tool answers print by call id.
        answers = []
        async for update in agent.astream({"messages": [("user", question)]}):
            for node, value in update.items():
                for message in value["messages"]:
                    if node == "tools":
                        answers.append((message.tool_call_id, show(message)))
                        continue
                    for _, line in sorted(answers):
                        print("  tools", line)
                    answers.clear()
                    print(" ", node, show(message))
        for _, line in sorted(answers):
            print("  tools", line)
    print("model called by:", model.calls)

    model = ScriptedModel(calls=[])
    saver = InMemorySaver()
    agent = create_react_agent(
        model, [weather, lookup], checkpointer=saver, interrupt_before=["tools"]
    )
    config = {"configurable": {"thread_id": "t"}}
    out = await agent.ainvoke({"messages": [("user", "the weather, please")]}, config)
    print("stopped with", len(out["messages"]), "messages")
    state = await agent.aget_state(config)
    print("next:", state.next, "last:", show(state.values["messages"][-1]))
    out = await agent.ainvoke(None, config)
    for message in out["messages"]:
        print(" ", show(message))
    print("model called by:", model.calls)


def main_sync():
    model = ScriptedModel(calls=[])
    agent = create_react_agent(model, [lookup])
    for update in agent.stream({"messages": [("user", "look up pi")]}, stream_mode="updates"):
        print("sync", list(update))
    print("model called by:", model.calls)


if __name__ == "__main__":
    asyncio.run(main())
    main_sync()
