"""Functional API guide: ``@entrypoint`` and ``@task`` with an interrupt.

Follows the functional API's "human-in-the-loop" example: a task writes an
essay, the entrypoint asks for a review with ``interrupt()`` and returns both;
run with a checkpointer and resumed with ``Command(resume=...)``.
"""

import uuid

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt


@task
def write_essay(topic: str) -> str:
    """Write an essay about the given topic."""
    return f"An essay about topic: {topic}"


@entrypoint(checkpointer=InMemorySaver())
def workflow(topic: str) -> dict:
    """A simple workflow that writes an essay and asks for a review."""
    essay = write_essay("cat").result()
    is_approved = interrupt(
        {
            # Any json-serializable payload provided to interrupt as argument.
            # It will be surfaced on the client side as an Interrupt when streaming data
            # from the workflow.
            "essay": essay,  # The essay we want reviewed.
            # We can add any additional information that we need.
            # For example, introduce a key called "action" with some instructions.
            "action": "Please approve/reject the essay",
        }
    )
    return {
        "essay": essay,  # The essay that was generated
        "is_approved": is_approved,  # Response from HIL
    }


config = {"configurable": {"thread_id": str(uuid.uuid4())}}
for item in workflow.stream("cat", config):
    print(item)

for item in workflow.stream(Command(resume=True), config):
    print(item)
