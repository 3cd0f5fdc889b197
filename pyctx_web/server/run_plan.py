"""What a run request asks for: its graph, input, config, stream modes and run options.

:func:`plan_run` reads a run body (``assistant_id``, ``input`` or ``command``,
``config``, ``context``, ``metadata``, ``stream_mode``, ``stream_subgraphs``,
``stream_resumable``, ``interrupt_before``/``after``, ``checkpoint``,
``checkpoint_id``, ``durability``) into a :class:`RunPlan` and the run's
pending record, refusing a bad body with the API's 422 or 404 before anything
runs. The run's metadata and config are assembled as the LangGraph Server
assembles them: the assistant's, the thread's and the body's, merged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._engine.run_metadata import EXTRA_METADATA_KEY
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server._core import ServerCore, new_uuid7, utc_now
from pyctx_web.server._http import ApiError
from pyctx_web.server.assistants import resolve_assistant
from pyctx_web.server.run_events import command_from_json, graph_modes

__all__ = [
    "DISCONNECT_MODES",
    "DURABILITIES",
    "MULTITASK_STRATEGIES",
    "RunPlan",
    "enum_option",
    "object_of",
    "plan_run",
]

MULTITASK_STRATEGIES: Final = ("reject", "rollback", "interrupt", "enqueue")
"""What a run does on a thread that has one pending or running (``enqueue`` by default)."""

DURABILITIES: Final = ("sync", "async", "exit")
"""When the run's checkpoints are written (``async`` by default)."""

DISCONNECT_MODES: Final = ("cancel", "continue")
"""What a client leaving a streamed or waited run does to it (``continue`` by default)."""


@dataclass
class RunPlan:
    """What a run request asks: its graph, input, config and how to stream it."""

    record: dict[str, Any]
    graph: CompiledStateGraph
    input: Any
    config: dict[str, Any]
    stream_modes: list[str]
    subgraphs: bool
    resumable: bool
    options: dict[str, Any]
    on_disconnect: str = "continue"
    """``cancel``: a client that leaves cancels the run; ``continue``: it goes on."""


def _stream_modes(body: Mapping[str, Any]) -> list[str]:
    modes = body.get("stream_mode", ["values"])
    modes = [modes] if isinstance(modes, str) else modes
    if not isinstance(modes, list) or not all(isinstance(m, str) for m in modes):
        raise ApiError(422, "Invalid stream_mode: expected a mode name or a list of them")
    try:
        graph_modes(modes)
    except ArgumentValueError as error:
        raise ApiError(422, str(error)) from None
    return modes or ["values"]


def _input_of(body: Mapping[str, Any]) -> Any:
    command = body.get("command")
    if command is None:
        return body.get("input")
    if not isinstance(command, Mapping):
        raise ApiError(422, "Invalid command: expected a JSON object")
    try:
        return command_from_json(command)
    except ArgumentValueError as error:
        raise ApiError(422, str(error)) from None


def object_of(body: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The body's field ``name`` as a dict (``{}`` when absent); 422 when not an object."""
    value = body.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ApiError(422, f"Invalid {name}: expected a JSON object")
    return dict(value)


def _run_metadata(
    body: Mapping[str, Any], assistant: dict[str, Any], thread: dict[str, Any], stateless: bool
) -> dict[str, Any]:
    """The run's metadata: the assistant's, the thread's, the config's, the body's, merged.

    A stateless run's thread is new: it has no metadata yet, not even the graph's id.
    """
    config = object_of(body, "config")
    of_thread = {} if stateless else {**thread["metadata"], "graph_id": assistant["graph_id"]}
    return {
        **(assistant.get("metadata") or {}),
        **of_thread,
        **(config.get("metadata") or {}),
        **object_of(body, "metadata"),
        "assistant_id": assistant["assistant_id"],
    }


def _config_of(
    body: Mapping[str, Any], record: dict[str, Any], graph_id: str, thread: dict[str, Any]
) -> dict[str, Any]:
    """The run's config: the body's over the thread's, with the checkpoint and the run named.

    A run given a ``context`` has it as its configurable values too, as on the server.
    """
    config = object_of(body, "config")
    given = dict(body.get("context") or config.get("configurable") or {})
    thread_configurable = thread["config"].get("configurable") or {}
    configurable = {**thread_configurable, **given}
    checkpoint = object_of(body, "checkpoint")
    checkpoint.pop("thread_id", None)
    if body.get("checkpoint_id"):
        checkpoint["checkpoint_id"] = body["checkpoint_id"]
    configurable.update(checkpoint)
    configurable.update(
        thread_id=record["thread_id"],
        run_id=record["run_id"],
        assistant_id=record["assistant_id"],
        graph_id=graph_id,
        user_id=given.get("user_id") or thread_configurable.get("user_id") or "",
        __after_seconds__=body.get("after_seconds") or 0,
    )
    # What the server's checkpointer adds to each checkpoint of the run: its thread, and the
    # checkpoint a run from an earlier one started at.
    extra = {"thread_id": record["thread_id"]}
    if checkpoint.get("checkpoint_id"):
        extra["checkpoint_id"] = checkpoint["checkpoint_id"]
    configurable[EXTRA_METADATA_KEY] = extra
    config["configurable"] = configurable
    # The metadata the server's worker runs with (message events show it); the stored
    # checkpoints also get the plain configurable values (user_id...) from the graph.
    config["metadata"] = {
        **record["metadata"],
        "run_attempt": 1,
        "thread_id": record["thread_id"],
        "run_id": record["run_id"],
    }
    return config


def _refused(value: Any, problem: str, keyword: str, name: str, schema: str) -> ApiError:
    """422 worded as the server's JSON Schema check; ``schema`` is where its run properties are."""
    shown = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return ApiError(
        422,
        f'{shown} {problem}\n\nFailed validating "{keyword}" in schema{schema}["properties"]'
        f'["{name}"]\n\nOn instance["{name}"]:\n    {shown}',
    )


def _listing(options: tuple[str, ...]) -> str:
    """Options as the server's check lists them: whole up to three, else two and a count."""
    quoted = [json.dumps(option) for option in options]
    if len(quoted) > 3:
        return f"{quoted[0]}, {quoted[1]} or {len(quoted) - 2} other candidates"
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"


def enum_option(
    body: Mapping[str, Any], name: str, options: tuple[str, ...], schema: str = ""
) -> Any:
    """The body's ``name`` when one of ``options`` (None when absent); the server's 422 if not."""
    value = body.get(name)
    if value is not None and value not in options:
        raise _refused(value, f"is not one of {_listing(options)}", "enum", name, schema)
    return value


def _checked(
    body: Mapping[str, Any], schema: str, streamed: bool, stateless: bool
) -> tuple[str, str]:
    """The run's multitask strategy and disconnect mode, its enums and flags checked."""
    strategy = enum_option(body, "multitask_strategy", MULTITASK_STRATEGIES, schema)
    enum_option(body, "durability", DURABILITIES, schema)
    if not stateless:  # only a run on a thread may create it
        enum_option(body, "if_not_exists", ("create", "reject"), schema)
    resumable = body.get("stream_resumable")
    if resumable is not None and not isinstance(resumable, bool):
        raise _refused(resumable, 'is not of type "boolean"', "type", "stream_resumable", schema)
    # The streamed and waited bodies add on_disconnect to the run's schema (allOf's second).
    disconnect = (
        enum_option(body, "on_disconnect", DISCONNECT_MODES, '["allOf"][1]') if streamed else None
    )
    return strategy or "enqueue", disconnect or "continue"


def _options_of(body: Mapping[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for name in ("context", "interrupt_before", "interrupt_after", "durability"):
        if body.get(name) is not None:
            options[name] = body[name]
    if "durability" not in options:  # the server's default, as checkpoint_during says
        options["durability"] = "exit" if body.get("checkpoint_during") is False else "async"
    return options


_BOTH: Final = (
    "Cannot specify both configurable and context. Prefer setting context alone. Context was"
    " introduced in LangGraph 0.6.0 and is the long term planned replacement for configurable."
)


def _check_config(body: Mapping[str, Any], stateless: bool) -> None:
    """400 for what the server refuses once the body is valid: a config that says it twice..."""
    command = body.get("command")
    if stateless and isinstance(command, Mapping) and command.get("resume"):
        raise ApiError(400, "You must provide a thread_id when resuming.")
    configurable = object_of(body, "config").get("configurable")
    if configurable and body.get("context"):
        raise ApiError(400, _BOTH)


def _kwargs(body: Mapping[str, Any], plan: RunPlan, stateless: bool) -> dict[str, Any]:
    """The record's ``kwargs``: the run's request as the server keeps it."""
    record = plan.record
    # Kept as the client sent them (JSON already): message dicts are not made messages here.
    config = copy.deepcopy(object_of(body, "config"))
    given = dict(config.get("configurable") or {})
    context = body.get("context") or {}
    if context:  # the server runs the context as the configurable, marked
        given = {**context, "__context_provided__": True}
    configurable = {**given, "__after_seconds__": body.get("after_seconds") or 0}
    checkpoint = object_of(body, "checkpoint")
    checkpoint.pop("thread_id", None)
    if body.get("checkpoint_id"):
        checkpoint["checkpoint_id"] = body["checkpoint_id"]
    run_configurable = plan.config["configurable"]
    ids = ("run_id", "thread_id", "graph_id", "assistant_id", "user_id")
    configurable.update(checkpoint, **{key: run_configurable[key] for key in ids})
    config.update(configurable=configurable, metadata=dict(record["metadata"]))
    return {
        "input": copy.deepcopy(body.get("input")),
        "command": copy.deepcopy(body.get("command")),
        "config": config,
        "context": copy.deepcopy(context or given),
        "stream_mode": plan.stream_modes,
        "interrupt_before": body.get("interrupt_before"),
        "interrupt_after": body.get("interrupt_after"),
        "webhook": body.get("webhook"),
        "feedback_keys": body.get("feedback_keys"),
        "temporary": stateless and body.get("on_completion", "delete") == "delete",
        "subgraphs": plan.subgraphs,
        "resumable": plan.resumable,
        "checkpoint_during": body.get("checkpoint_during", True),
        "durability": plan.options["durability"],
    }


def plan_run(
    server: ServerCore,
    body: Mapping[str, Any],
    thread: dict[str, Any],
    *,
    schema: str = "",
    streamed: bool = False,
    stateless: bool = False,
) -> RunPlan:
    """The run a request body asks for; 422 or 404 for a bad one, before anything runs.

    ``streamed``: a streamed or waited run, whose body may say ``on_disconnect``;
    ``stateless``: a run on a thread of its own (``thread`` is that new thread);
    ``schema`` is where the server's schema for the body holds the run's
    properties (its 422 messages name it).
    """
    if "assistant_id" not in body:
        raise ApiError(422, "Invalid run: assistant_id is required")
    strategy, disconnect = _checked(body, schema, streamed, stateless)
    assistant, graph = resolve_assistant(server, body["assistant_id"])
    _check_config(body, stateless)
    now = utc_now()
    record: dict[str, Any] = {
        "run_id": new_uuid7(),
        "thread_id": thread["thread_id"],
        "assistant_id": assistant["assistant_id"],
        "created_at": now,
        "updated_at": now,
        "status": "pending",
        "metadata": _run_metadata(body, assistant, thread, stateless),
        "multitask_strategy": strategy,
        "kwargs": {},
        "langsmith_session_name": None,
    }
    modes = _stream_modes(body)
    plan = RunPlan(
        record=record,
        graph=graph,
        input=_input_of(body),
        config=_config_of(body, record, assistant["graph_id"], thread),
        stream_modes=modes,
        subgraphs=bool(body.get("stream_subgraphs")),
        resumable=bool(body.get("stream_resumable")),
        options=_options_of(body),
        on_disconnect=disconnect,
    )
    record["kwargs"] = _kwargs(body, plan, stateless)
    # The graph's own run is the API's run: nodes see its id (config and runtime), as on the server.
    plan.config["run_id"] = record["run_id"]
    return plan
