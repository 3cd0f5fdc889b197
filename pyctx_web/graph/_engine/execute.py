"""What an invocation does with its input: start, continue, fork or resume a thread."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.ids import new_checkpoint_stamp
from pyctx_web.graph._engine.records import (
    Checkpoint,
    Pending,
    TaskResult,
    TaskSpec,
    encode_write,
    new_checkpoint_id,
    now_iso,
    task_id,
)
from pyctx_web.graph._engine.resume import check_command, goto_targets, resume, with_input_goto
from pyctx_web.graph._values import UNSET, Command, Send
from pyctx_web.graph.constants import START
from pyctx_web.graph.errors import GraphConfigError, GraphVersionError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.loop import Engine
    from pyctx_web.graph._engine.options import ParsedConfig
    from pyctx_web.graph._engine.outcome import EngineResult

__all__ = ["execute"]

_NEEDS_CHECKPOINTER = (
    "{what} needs a checkpointer that saved the run: "
    "compile(checkpointer=InMemorySaver()) and pass a thread_id"
)


async def execute(engine: Engine, input: Any, request: ParsedConfig) -> EngineResult:
    """Run ``input`` on the request's thread: a new input, ``None`` or a ``Command``.

    What the run's durability held back is written when it completes, pauses or fails.
    A run whose config has LangChain callbacks is a chain run of theirs (``lc_trace``).
    """
    if engine.calls.traced:
        from pyctx_web.graph._engine.lc_trace import traced_run

        def traced(parent: Any) -> Awaitable[EngineResult]:
            engine.calls.trace_parent = parent
            return _finished(engine, input, request)

        result: EngineResult = await traced_run(engine.run, input, traced)
        return result
    return await _finished(engine, input, request)


async def _finished(engine: Engine, input: Any, request: ParsedConfig) -> EngineResult:
    try:
        outcome = await _execute(engine, input, request)
    except Exception:
        await engine.checkpoints.finish()
        raise
    await engine.checkpoints.finish()
    return outcome


async def _execute(engine: Engine, input: Any, request: ParsedConfig) -> EngineResult:
    if isinstance(input, Command):
        check_command(input, request.thread_id or "")
    if engine.checkpoints.checkpointer is None:
        if isinstance(input, Command):
            if input.resume is not UNSET:
                raise GraphConfigError(_NEEDS_CHECKPOINTER.format(what="Command(resume=...)"))
            return await _start_command(engine, input)
        if input is None:
            raise GraphConfigError(_NEEDS_CHECKPOINTER.format(what="invoke(None)"))
        cp, pending = await _start(engine, input, None)
        return await engine.loop(cp, pending, skip_breakpoint=False)
    thread_id = engine.checkpoints.require_thread(
        request.thread_id, "Command(resume=...)" if isinstance(input, Command) else "a graph run"
    )
    latest = await engine.checkpoints.load(thread_id, None)
    target = latest
    if request.checkpoint_id is not None:
        target = await engine.checkpoints.load(thread_id, request.checkpoint_id)
    is_fork = target is not None and latest is not None and target[0].id != latest[0].id
    if target is not None and (input is None or isinstance(input, Command)):
        target = with_input_goto(target)
        # A new input starts over from the values, as LangGraph's does: only running on
        # from the checkpoint's tasks needs this graph's nodes and keys.
        _check_written_by_this_graph(engine, target[0], target[1])
    if isinstance(input, Command):
        if target is None and input.resume is UNSET:
            return await _start_command(engine, input)
        return await resume(engine, input, target, is_fork)
    if input is None:
        return await _continue(engine, thread_id, target, is_fork)
    cp, pending = await _start(engine, input, target[0] if target is not None else None)
    return await engine.loop(cp, pending, skip_breakpoint=False)


async def _start_command(engine: Engine, command: Command[Any]) -> EngineResult:
    """Start a new thread (or a run without a checkpointer) with a ``Command`` as input.

    As LangGraph: its update is the input, and its goto adds nodes (or ``Send``
    tasks) to the step after the input's, beside the start's edges. LangGraph
    also applies the update before the input step, which applies it again (a
    reducer sees it twice): the input checkpoint holds it already.
    """
    goto = goto_targets(engine.spec, command.goto)
    cp, pending = await _start(engine, command.update, None, goto)
    return await engine.loop(cp, pending, skip_breakpoint=False)


async def _start(
    engine: Engine,
    input: Any,
    base: Checkpoint | None,
    goto: list[str | Send] | None = None,
) -> tuple[Checkpoint, Pending]:
    """Write the ``input`` checkpoint of a new run on top of ``base``.

    As in LangGraph, the input is the write of a ``__start__`` task: the
    checkpoint holds the values before it (the keys' defaults for a new
    thread), and the first step applies it. ``goto``: the input is a
    ``Command``'s update, already applied (see :func:`_start_command`).
    """
    values = engine.schema.with_defaults(base.values if base is not None else {})
    updates = engine.schema.check_update(START, input)
    if goto is not None and updates:
        values = engine.schema.apply(values, [(START, k, v) for k, v in updates])
    cid, created_at = new_checkpoint_stamp()
    engine.run.step = base.step + 1 if base is not None else -1
    task = TaskSpec(task_id(cid, "start"), START)
    cp = Checkpoint(
        id=cid,
        thread_id=engine.run.thread_id or "",
        parent_id=base.id if base is not None else None,
        created_at=created_at,
        step=engine.run.step,
        source="input",
        values=values,
        tasks=(task,),
        last_nodes=base.last_nodes if base is not None else (),
        writes={START: dict(updates)},
        meta=engine.run.checkpoint_meta(),
    )
    pending = Pending()
    record = pending.record(task.id)
    record.result = TaskResult(updates, goto or ())
    if engine.checkpoints.checkpointer is not None:
        # Encoded first: a value that cannot be stored is refused naming its state key,
        # before anything is written.
        write = encode_write(engine.checkpoints.serde, task, "result", record)
        await engine.checkpoints.save_checkpoint(cp, [write])
    return cp, pending


def _check_written_by_this_graph(engine: Engine, cp: Checkpoint, pending: Pending) -> None:
    """:class:`GraphVersionError` naming what ``cp`` has that this graph lacks, if anything.

    A thread stored by another version of the graph (a node or a state key renamed)
    can still be read; running on from it cannot. ``update_state(config, values,
    as_node=...)`` with a node of this graph moves it on.
    """
    nodes = sorted({t.name for t in cp.tasks} - set(engine.spec.nodes) - {START})
    known = engine.schema.annotations
    keys = {k for k in cp.values if k not in known}
    for rec in pending.tasks.values():
        if rec.result is not None:
            keys.update(k for k, _ in rec.result.updates if k not in known)
    if nodes or keys:
        raise GraphVersionError(cp.thread_id, cp.id, nodes=nodes, keys=sorted(keys))


async def _continue(
    engine: Engine, thread_id: str, target: tuple[Checkpoint, Pending] | None, is_fork: bool
) -> EngineResult:
    """Run on from the thread's latest checkpoint, or fork from an older one."""
    if target is None:
        raise GraphConfigError(
            f"thread {thread_id!r} has no checkpoint to continue from: start it with an input"
        )
    cp, pending = target
    if is_fork:
        cp, pending = await _fork(engine, cp), Pending()
    elif pending.waiting(cp.tasks):
        return engine.paused(cp, pending)
    engine.emit_values(cp, pending)
    skip = not is_fork and (pending.breakpoint_hit or cp.skip_breakpoint)
    return await engine.loop(cp, pending, skip_breakpoint=skip)


async def _fork(engine: Engine, source: Checkpoint) -> Checkpoint:
    """A copy of ``source`` as the thread's newest checkpoint, with tasks of its own."""
    cid = new_checkpoint_id()
    tasks = tuple(
        type(t)(task_id(cid, "fork", i, t.name), t.name, t.arg) for i, t in enumerate(source.tasks)
    )
    fork = Checkpoint(
        id=cid,
        thread_id=source.thread_id,
        parent_id=source.id,
        created_at=now_iso(),
        step=source.step + 1,
        source="fork",
        values=source.values,
        tasks=tasks,
        last_nodes=source.last_nodes,
        # A fork of an input checkpoint keeps the input, which its __start__ task takes.
        writes=source.writes if any(t.name == START for t in tasks) else None,
        barriers=source.barriers,
        meta=engine.run.checkpoint_meta(),
    )
    await engine.checkpoints.save_checkpoint(fork)
    return fork
