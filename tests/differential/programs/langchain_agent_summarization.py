"""LangChain's short-term memory guide, "summarize messages" (create_agent with
SummarizationMiddleware): old messages are replaced by a summary once the history is long.

The agent's model and the summarizing model are scripted langchain-core chat models.
The middleware summarizes when the thread holds 6 messages or more and keeps the last
2 (never splitting a tool call from its answer); over five turns of one thread, each
turn prints the thread's messages and what the agent's model was given, and the
summarizer prints how many messages it was asked to summarize.
"""

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class AgentModel(BaseChatModel):
    seen: list = []  # noqa: RUF012 - a pydantic field, copied per instance

    @property
    def _llm_type(self):
        return "agent"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([f"{m.type}:{str(m.content)[:24]}" for m in messages])
        last = messages[-1]
        if last.type == "human" and "add" in last.content:
            call = {"name": "add", "args": {"a": len(messages), "b": 1}, "id": f"c{len(self.seen)}"}
            reply = AIMessage("", tool_calls=[call])
        elif last.type == "tool":
            reply = AIMessage(f"the sum is {last.content}")
        else:
            reply = AIMessage(f"answer {len(self.seen)}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


class SummaryModel(BaseChatModel):
    asked: list = []  # noqa: RUF012 - a pydantic field, copied per instance

    @property
    def _llm_type(self):
        return "summary"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        prompt = str(messages[-1].content)
        self.asked.append(prompt.count("\n"))
        reply = AIMessage(f"summary #{len(self.asked)}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


model = AgentModel(seen=[])
summarizer = SummaryModel(asked=[])
agent = create_agent(
    model,
    [add],
    middleware=[SummarizationMiddleware(summarizer, trigger=("messages", 6), keep=("messages", 2))],
    checkpointer=InMemorySaver(),
)
config = {"configurable": {"thread_id": "long"}}
for turn, said in enumerate(["hello", "add please", "how are you", "add again", "bye"], 1):
    out = agent.invoke({"messages": [("user", said)]}, config)
    print(f"turn {turn}: {len(out['messages'])} messages")
    for message in out["messages"]:
        print(f"  {message.type} {str(message.content)[:70]!r}")
    print("  model saw:", model.seen[-1])
print("summarizer asked:", len(summarizer.asked), "times")
