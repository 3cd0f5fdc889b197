"""The "values" stream of a step that pauses after some of its tasks finished, as LangGraph's.

create_react_agent (v2) runs parallel tool calls as parallel tasks: when one asks a
question, the others' answers still show in the values the run streams.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.types import Send, interrupt


class Log(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph() -> Any:
    def work(arg: str) -> dict[str, Any]:
        if arg == "ask":
            return {"log": [interrupt("answer?")]}
        return {"log": [arg]}

    builder = StateGraph(Log).add_node("work", work)
    builder.add_conditional_edges(START, lambda s: [Send("work", "done"), Send("work", "ask")])
    return builder.compile(checkpointer=InMemorySaver())


def test_a_paused_step_streams_the_question_then_the_finished_writes() -> None:
    """The question comes with the step's starting values; the finished task's write follows."""
    config: Any = {"configurable": {"thread_id": "t"}}
    events = list(_graph().stream({"log": ["start"]}, config, stream_mode="values"))
    assert [e["log"] for e in events] == [["start"], ["start"], ["start", "done"]]
    assert "__interrupt__" in events[1]
    assert "__interrupt__" not in events[2]
