"""Thread integrity under checkpointer faults, as scenarios for any checkpointer.

:class:`FaultyCheckpointer` wraps a real checkpointer, numbers its operations
(``aget``, ``aput``, ``aput_writes``, ``alist``) and, at operation number N,
fails before delegating, fails after delegating (the write happened, the
caller sees an error: a lost acknowledgement), cancels the current task
before or after delegating, or pauses until the scenario lets it go.

The flow: an input runs ``prep``, then ``ask`` (which asks a question) and
``side`` in one step; the question is shown (``aget_state``), the history
listed, the answer sent, and ``finish`` uses it. Each per-fault scenario runs
the flow once cleanly per durability, then once per operation N of that clean
run with the fault at N. After each fault a fresh wrapper and a fresh graph over
the same storage (as after a reload) read the thread back and continue it to the
end, re-issuing what the interrupted call owed: the input on an empty thread,
``Command(resume=...)`` while the question waits, ``invoke(None)`` while tasks
remain. Every case must show:

* the thread reads back consistently: the history is a chain (each
  checkpoint's parent is the next older one) holding the clean run's first
  checkpoints, and it ends with the clean run's checkpoints and state;
* a question the user was shown still waits, with the same id, or was
  answered; the answer is applied once (``ask:Ada`` is in the log once);
* at-least-once semantics: a node's body runs again exactly when its result
  was not checkpointed when the fault struck (the node's step had not been
  stored, nor its result as a pending write), never otherwise.

:data:`REPORT` collects one row per case (fault, operation, what the caller
saw, what the thread held, how it was continued, which nodes ran again) and
:func:`fault_table` renders them. :data:`KNOWN_BUGS` lists the cases a bug of
the package breaks; each must still fail as described until the bug is fixed.

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import asyncio
import itertools
import operator
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Annotated, Any, Literal, TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
)
from pyctx_web.graph.errors import ResumeError, RunCancelledError
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, Interrupt, StateSnapshot, interrupt
from tests.scenarios.common import CheckpointerFactory

# --- the faulty checkpointer -----------------------------------------------------------------

KINDS = ("fail_before", "fail_after", "cancel_before", "cancel_after", "pause")
"""What a :class:`FaultyCheckpointer` does at its faulty operation."""


class InjectedFault(Exception):
    """The error a FaultyCheckpointer raises in place of (or after) its storage's answer."""


@dataclass(frozen=True, slots=True)
class Op:
    """One operation a FaultyCheckpointer was asked for."""

    number: int
    """1 for the wrapper's first operation, and so on."""
    name: str
    """``aget``, ``aput``, ``aput_writes`` or ``alist``."""
    thread_id: str
    checkpoint_id: str | None = None
    """The checkpoint stored, whose writes are stored, or asked for."""
    writes: tuple[tuple[str, str], ...] = ()
    """``(task_id, kind)`` of the writes stored."""


async def _cancel_current_task() -> None:
    """Cancel the task running this code and let the cancel land here."""
    task = asyncio.current_task()
    assert task is not None
    task.cancel("injected cancel")
    await asyncio.sleep(0)
    raise AssertionError("the injected cancel was not delivered")


class FaultyCheckpointer(Checkpointer):
    """A checkpointer that delegates to ``inner`` and injects ``faults[N]`` at operation N.

    Each fault is one of :data:`KINDS`; with none, the wrapper only counts. At a
    ``"pause"``, the operation sets ``reached`` and waits for ``release`` before
    delegating; ``paused_task`` is the task that waits.
    """

    def __init__(self, inner: Checkpointer, faults: Mapping[int, str] | None = None) -> None:
        self.inner = inner
        self.faults = dict(faults or {})
        assert set(self.faults.values()) <= set(KINDS), self.faults
        self.ops: list[Op] = []
        self.fired: list[Op] = []
        self.reached = asyncio.Event()
        self.release = asyncio.Event()
        self.paused_task: asyncio.Task[Any] | None = None

    async def _before(
        self,
        name: str,
        thread_id: str,
        checkpoint_id: str | None = None,
        writes: tuple[tuple[str, str], ...] = (),
    ) -> Op | None:
        """Count the operation and inject what comes before delegating; the op if more after."""
        op = Op(len(self.ops) + 1, name, thread_id, checkpoint_id, writes)
        self.ops.append(op)
        kind = self.faults.get(op.number)
        if kind is None:
            return None
        self.fired.append(op)
        if kind == "fail_before":
            raise InjectedFault(f"injected failure before {name} #{op.number}")
        if kind == "cancel_before":
            await _cancel_current_task()
        if kind == "pause":
            self.paused_task = asyncio.current_task()
            self.reached.set()
            await self.release.wait()
        return op if kind in ("fail_after", "cancel_after") else None

    async def _after(self, op: Op | None) -> None:
        """Inject what comes after delegating, if ``op`` is faulty then."""
        if op is None:
            return
        if self.faults[op.number] == "fail_after":
            raise InjectedFault(f"injected failure after {op.name} #{op.number}")
        await _cancel_current_task()

    async def aget(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """Count, inject, and return the inner checkpointer's record."""
        after = await self._before("aget", thread_id, checkpoint_id)
        record = await self.inner.aget(thread_id, checkpoint_id)
        await self._after(after)
        return record

    async def aput(
        self, checkpoint: StoredCheckpoint, *, latest: str | EllipsisType | None = ...
    ) -> None:
        """Count, inject, and store the checkpoint through the inner checkpointer."""
        after = await self._before("aput", checkpoint.thread_id, checkpoint.checkpoint_id)
        await self.inner.aput(checkpoint, latest=latest)
        await self._after(after)

    async def aput_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[StoredWrite]
    ) -> None:
        """Count, inject, and store the writes through the inner checkpointer."""
        batch = list(writes)
        kinds = tuple((w.task_id, w.kind) for w in batch)
        after = await self._before("aput_writes", thread_id, checkpoint_id, kinds)
        await self.inner.aput_writes(thread_id, checkpoint_id, batch)
        await self._after(after)

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> AsyncIterator[CheckpointRecord]:
        """Count, inject, and yield the inner checkpointer's records ("after": once all are)."""
        after = await self._before("alist", thread_id, before)
        async for record in self.inner.alist(thread_id, limit=limit, before=before):
            yield record
        await self._after(after)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete through the inner checkpointer (not counted, never faulty)."""
        await self.inner.adelete_thread(thread_id)


# --- the flow --------------------------------------------------------------------------------


class State(TypedDict, total=False):
    """What the flow's nodes wrote, and the answer."""

    log: Annotated[list[str], operator.add]
    answer: str


INPUT: dict[str, Any] = {"log": []}
ANSWER = "Ada"
QUESTION = {"question": "name?"}
NODES = ("prep", "ask", "side", "finish")


def build(saver: Checkpointer, done: Counter[str]) -> CompiledStateGraph:
    """START -> prep -> (ask, side) -> finish -> END; ``done`` counts completed node bodies.

    ``ask`` asks a question; ``side`` is async and runs in the same step;
    ``finish`` uses the answer. A body counts once it has produced its result.
    """

    def prep(state: State) -> dict[str, Any]:
        done["prep"] += 1
        return {"log": ["prep"]}

    def ask(state: State) -> dict[str, Any]:
        answer = interrupt(QUESTION)
        done["ask"] += 1
        return {"answer": answer, "log": [f"ask:{answer}"]}

    async def side(state: State) -> dict[str, Any]:
        await asyncio.sleep(0)
        done["side"] += 1
        return {"log": ["side"]}

    def finish(state: State) -> dict[str, Any]:
        done["finish"] += 1
        return {"log": [f"hello {state['answer']}"]}

    return (
        StateGraph(State)
        .add_node("prep", prep)
        .add_node("ask", ask)
        .add_node("side", side)
        .add_node("finish", finish)
        .add_edge(START, "prep")
        .add_edge("prep", "ask")
        .add_edge("prep", "side")
        .add_edge("ask", "finish")
        .add_edge("side", "finish")
        .add_edge("finish", END)
        .compile(checkpointer=saver)
    )


Durability = Literal["sync", "async", "exit"]
"""When a run writes its checkpoints, as ``ainvoke(durability=...)`` takes it."""

DURABILITIES: tuple[Durability, ...] = ("sync", "async", "exit")
"""When the flow's runs write their checkpoints (see ``RunOptions.durability``)."""


@dataclass(slots=True)
class FlowRun:
    """What the flow did on one thread, up to its end or to the fault."""

    durability: Durability
    steps: list[str] = field(default_factory=list)
    """The steps that completed: ``input``, ``show``, ``history``, ``answer``."""
    question: Interrupt | None = None
    """The question as the user was shown it (the input's result), if they were."""
    error: BaseException | None = None
    """What the interrupted step raised."""
    final: dict[str, Any] | None = None
    """The values the answer returned, when the flow completed."""
    strays: int = 0
    """Tasks the flow left running when its caller saw the error (see :func:`settle`)."""


FLOW = ("input", "show", "history", "answer")


async def flow(graph: CompiledStateGraph, tid: str, run: FlowRun) -> None:
    """Ask (input), show the question (get_state), list the history, answer it."""
    out = await graph.ainvoke(INPUT, thread_id=tid, durability=run.durability)
    [run.question] = out["__interrupt__"]
    run.steps.append("input")
    shown = await graph.aget_state(tid)
    assert shown.interrupts == (run.question,)
    run.steps.append("show")
    assert_chain(await history(graph, tid))
    run.steps.append("history")
    answer: Command[str] = Command(resume={run.question.id: ANSWER})
    run.final = await graph.ainvoke(answer, thread_id=tid, durability=run.durability)
    run.steps.append("answer")


async def run_flow(graph: CompiledStateGraph, tid: str, durability: Durability) -> FlowRun:
    """Run :func:`flow` in a task of its own; a fault ends it, recorded in ``error``.

    Tasks the flow left running are waited for (and counted), so that the thread
    is read back once nothing writes it any more.
    """
    run = FlowRun(durability)
    before = asyncio.all_tasks()
    try:
        await asyncio.ensure_future(flow(graph, tid, run))
    except AssertionError:
        raise
    except (Exception, asyncio.CancelledError) as error:
        run.error = error
    run.strays = await settle(before)
    return run


async def settle(before: set[asyncio.Task[Any]]) -> int:
    """Wait for the tasks started since ``before`` that still run; return how many there were."""
    strays = asyncio.all_tasks() - before - {asyncio.current_task()}
    if strays:
        await asyncio.wait(strays, timeout=30)
    return len(strays)


async def history(graph: CompiledStateGraph, tid: str) -> list[StateSnapshot]:
    """The thread's snapshots, newest first."""
    return [s async for s in graph.aget_state_history(tid)]


def _id(config: dict[str, Any] | None) -> str | None:
    return None if config is None else config["configurable"]["checkpoint_id"]


def assert_chain(snapshots: list[StateSnapshot]) -> None:
    """Each checkpoint's parent is the next older one; the oldest has none (no fork)."""
    for newer, older in itertools.pairwise(snapshots):
        assert _id(newer.parent_config) == _id(older.config), "the history forks"
    if snapshots:
        assert snapshots[-1].parent_config is None


def shape(snapshot: StateSnapshot) -> tuple[Any, ...]:
    """What a checkpoint holds, without its ids and times."""
    tasks = tuple((t.name, t.result is not None, len(t.interrupts)) for t in snapshot.tasks)
    metadata = snapshot.metadata or {}
    return (metadata.get("source"), metadata.get("step"), snapshot.values, tasks)


STEP_OF = {START: -1, "prep": 0, "ask": 1, "side": 1, "finish": 2}
"""The step that runs each node (the input's ``__start__`` task first)."""


def saved_nodes(latest: StateSnapshot | None) -> set[str]:
    """Nodes whose result the thread holds: in its latest checkpoint, or as a pending write."""
    if latest is None:
        return set()
    step = (latest.metadata or {})["step"]
    finished = {t.name for t in latest.tasks if t.result is not None}
    return {n for n, s in STEP_OF.items() if s < step or (s == step and n in finished)}


async def continue_to_end(graph: CompiledStateGraph, tid: str, durability: Durability) -> list[str]:
    """Re-issue what the interrupted flow still owes until the thread has no task left.

    The input when the thread has none, or its input checkpoint holds no input (see
    :func:`scenario_input_checkpoint_without_its_input_continues_with_none`); the answer
    while the question waits; ``invoke(None)`` while tasks remain.
    """
    calls: list[str] = []
    for _ in range(6):
        state = await graph.aget_state(tid)
        if state.created_at is None or input_not_taken(state):
            calls.append("input")
            await graph.ainvoke(INPUT, thread_id=tid, durability=durability)
        elif state.interrupts:
            [question] = state.interrupts
            calls.append("resume")
            answer: Command[str] = Command(resume={question.id: ANSWER})
            await graph.ainvoke(answer, thread_id=tid, durability=durability)
        elif state.tasks:
            calls.append("None")
            await graph.ainvoke(None, thread_id=tid, durability=durability)
        else:
            return calls
    raise AssertionError(f"the thread never ended: {calls}")


# --- checking one case ----------------------------------------------------------------------


@dataclass(slots=True)
class Clean:
    """The clean run of one durability: its operations, history, end state and node counts."""

    durability: Durability
    ops: list[Op]
    history: list[StateSnapshot]
    final: dict[str, Any]
    labels: dict[int, str]


def _label(op: Op, snapshots: dict[str, StateSnapshot]) -> str:
    """What operation ``op`` of the clean run did, in words."""
    if op.name in ("aget", "alist"):
        return f"{op.name} (a read)"
    snapshot = snapshots[op.checkpoint_id or ""]
    step = (snapshot.metadata or {}).get("step")
    if op.name == "aput":
        nodes = ", ".join(t.name for t in snapshot.tasks) or "none: the end"
        return f"aput checkpoint of step {step} (next: {nodes})"
    names = {t.id: t.name for t in snapshot.tasks}
    what = ", ".join(f"{names.get(task, task or '-')} {kind}" for task, kind in op.writes)
    return f"aput_writes on step {step}: {what}"


async def clean_run(make_checkpointer: CheckpointerFactory, durability: Durability) -> Clean:
    """Run the flow with no fault on its own thread; the reference for every case."""
    done: Counter[str] = Counter()
    saver = FaultyCheckpointer(make_checkpointer())
    graph = build(saver, done)
    tid = f"clean-{durability}"
    run = await run_flow(graph, tid, durability)
    ops = list(saver.ops)
    assert run.error is None, run.error
    assert run.final is not None
    snapshots = await history(graph, tid)
    assert done == Counter(dict.fromkeys(NODES, 1))
    assert run.final["log"] == ["prep", f"ask:{ANSWER}", "side", f"hello {ANSWER}"]
    assert [op.name for op in ops].count("alist") == 1
    if durability == "sync":
        # Every step is checkpointed: each node runs in the step STEP_OF says.
        steps = {t.name: (s.metadata or {})["step"] for s in snapshots for t in s.tasks}
        assert steps == STEP_OF, steps
    by_id = {_id(s.config) or "": s for s in snapshots}
    labels = {op.number: _label(op, by_id) for op in ops}
    return Clean(durability, ops, snapshots, run.final, labels)


def assert_prefix_of_clean(snapshots: list[StateSnapshot], clean: Clean) -> None:
    """The thread is a chain of the clean run's first checkpoints, the latest maybe with fewer
    pending writes than the clean run's had."""
    assert_chain(snapshots)
    if not snapshots:
        return
    ours = [shape(s) for s in reversed(snapshots)]
    theirs = [shape(s) for s in reversed(clean.history)]
    assert ours[:-1] == theirs[: len(ours) - 1], (ours, theirs)
    last, reference = ours[-1], theirs[len(ours) - 1]
    assert last[:2] == reference[:2], (last, reference)
    for (name, result, _), (clean_name, clean_result, _) in zip(last[3], reference[3], strict=True):
        assert name == clean_name
        assert not result or clean_result, f"{name} has a result the clean run never saved"


def input_not_taken(snapshot: StateSnapshot | None) -> bool:
    """Whether the latest checkpoint is an input whose input was not stored with it."""
    return snapshot is not None and any(
        t.name == START and t.result is None for t in snapshot.tasks
    )


REPORT: list[dict[str, Any]] = []
"""One row per case checked, for :func:`fault_table`."""

KNOWN_BUGS: dict[tuple[str, str, str], tuple[type[BaseException], str]] = {}
"""``(fault, durability, operation)``: the error a bug makes the flow raise, and the bug."""

BUGS: dict[str, str] = {}
"""Scenarios that fail because of a bug of the package, and the bug: runners mark them xfail."""


async def check_recovery(
    make_checkpointer: CheckpointerFactory,
    clean: Clean,
    run: FlowRun,
    done: Counter[str],
    case: dict[str, Any],
) -> None:
    """Read the thread after the fault, continue it to the end, and check what it holds.

    ``case`` names the fault (``fault``, ``at``, ``tid``); a row saying what happened
    is added to :data:`REPORT`.
    """
    tid = case["tid"]
    reader = build(FaultyCheckpointer(make_checkpointer()), done)
    after_fault = await history(reader, tid)
    assert_prefix_of_clean(after_fault, clean)
    state = await reader.aget_state(tid)
    latest = after_fault[0] if after_fault else None
    # The thread's state is at its history's latest checkpoint, which the history shows as
    # the record of its step (as get_state of that checkpoint by id does).
    assert latest is None or (
        state.config == latest.config and await reader.aget_state(latest.config) == latest
    )
    saved = saved_nodes(latest)
    ran = Counter(done)
    for node in NODES:
        assert ran[node] <= 1, (node, ran)
        if node in saved:
            assert ran[node] == 1, f"{node}'s result is saved but its body never completed"
    if run.question is not None:
        # The user saw the question: it still waits, with the same id, or it was answered.
        assert state.interrupts == (run.question,) or "ask" in saved, state
        if "ask" in saved and run.final is None:
            # Sending the answer again, as a client unsure it went through would, applies nothing.
            answer: Command[str] = Command(resume={run.question.id: ANSWER})
            resent = reader.ainvoke(answer, thread_id=tid, durability=run.durability)
            if state.tasks:
                error = await refused(resent)
                assert "nothing to resume" in str(error), str(error)
            else:  # a finished thread gives its values, as LangGraph's does
                assert await resent == state.values
            assert await history(reader, tid) == after_fault
            assert done == ran
    calls = [] if run.final is not None else await continue_to_end(reader, tid, run.durability)
    final_history = await history(reader, tid)
    assert_chain(final_history)
    final = final_history[0].values
    assert final == clean.final, (final, clean.final)
    assert final["log"].count(f"ask:{ANSWER}") == 1
    assert final["log"].count(f"hello {ANSWER}") == 1
    # At least once: a node runs again exactly when its result was not saved.
    expected = Counter({n: ran[n] + (n not in saved) for n in NODES})
    assert done == expected, (done, expected, saved)
    shapes = [shape(s) for s in reversed(final_history)]
    orphan = input_not_taken(latest)
    if orphan:
        # The input checkpoint whose input was lost stays under the re-sent input's.
        assert shapes[0][:2] == ("input", -1), shapes[0]
        assert shapes[0][3] == ((START, False, 0),), shapes[0]
        shapes = shapes[1:]
    clean_shapes = [shape(s) for s in reversed(clean.history)]
    assert [s[1] for s in shapes] == [s[1] + orphan for s in clean_shapes], (shapes, clean_shapes)
    assert [s[::2] + s[3:] for s in shapes] == [s[::2] + s[3:] for s in clean_shapes], tid
    REPORT.append(
        {
            **case,
            "durability": run.durability,
            "operation": clean.labels[case["at"]],
            "caller_saw": "nothing" if run.error is None else type(run.error).__name__,
            "flow_step": "-" if run.final is not None else FLOW[len(run.steps)],
            "thread": case.get("thread") or describe(latest),
            "continued_with": calls,
            "reran": sorted(n for n in NODES if done[n] > 1),
            "orphan_input": orphan,
            "strays": run.strays,
        }
    )


async def refused(awaitable: Awaitable[Any]) -> ResumeError:
    """Await ``awaitable`` and return the ResumeError it must raise."""
    try:
        await awaitable
    except ResumeError as error:
        return error
    raise AssertionError("an answer already taken was taken again")


def describe(latest: StateSnapshot | None) -> str:
    """The latest checkpoint in words: its step and how each of its tasks stands."""
    if latest is None:
        return "empty"
    step = (latest.metadata or {}).get("step")
    parts = []
    for task in latest.tasks:
        status = "done" if task.result is not None else "asks" if task.interrupts else "to run"
        parts.append(f"{task.name} {status}")
    return f"step {step}: " + (", ".join(parts) or "ended")


def _expected_error(case: dict[str, Any], clean: Clean, run: FlowRun, *kinds: type) -> None:
    """Check what the flow raised: one of ``kinds``, or the error of a known bug."""
    key = (case["fault"], run.durability, clean.labels[case["at"]])
    if key in KNOWN_BUGS:
        error, bug = KNOWN_BUGS[key]
        assert isinstance(run.error, error), f"fixed? {bug}: remove it from KNOWN_BUGS"
        case["known_bug"] = bug
    elif not kinds:
        assert run.error is None, repr(run.error)
    else:
        assert isinstance(run.error, kinds), repr(run.error)


# --- scenarios: one fault per run -------------------------------------------------------------


async def _each_fault(make_checkpointer: CheckpointerFactory, kind: str) -> None:
    for durability in DURABILITIES:
        clean = await clean_run(make_checkpointer, durability)
        for op in clean.ops:
            tid = f"{kind}-{durability}-{op.number}"
            done: Counter[str] = Counter()
            saver = FaultyCheckpointer(make_checkpointer(), {op.number: kind})
            run = await run_flow(build(saver, done), tid, durability)
            assert [f.name for f in saver.fired] == [op.name], (saver.fired, op)
            assert run.final is None, "the fault went unnoticed"
            case = {"fault": kind, "at": op.number, "tid": tid}
            fault = InjectedFault if kind.startswith("fail") else asyncio.CancelledError
            _expected_error(case, clean, run, fault)
            await check_recovery(make_checkpointer, clean, run, done, case)


async def scenario_failure_before_each_operation_loses_nothing(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A storage error before any operation leaves a thread that ends as the clean run."""
    await _each_fault(make_checkpointer, "fail_before")


async def scenario_failure_after_each_operation_loses_nothing(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A lost acknowledgement after any operation leaves a thread that ends, nothing done twice."""
    await _each_fault(make_checkpointer, "fail_after")


async def scenario_cancel_before_each_operation_loses_nothing(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A task cancelled as any operation starts leaves a thread that ends as the clean run."""
    await _each_fault(make_checkpointer, "cancel_before")


async def scenario_cancel_after_each_operation_loses_nothing(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A task cancelled once any operation is done leaves a thread that ends, nothing twice."""
    await _each_fault(make_checkpointer, "cancel_after")


Then = Callable[[CompiledStateGraph, FaultyCheckpointer, str], Awaitable[None]]


async def _paused(make_checkpointer: CheckpointerFactory, then: Then, kind: str) -> None:
    for durability in DURABILITIES:
        clean = await clean_run(make_checkpointer, durability)
        for op in clean.ops:
            tid = f"{kind}-{durability}-{op.number}"
            done: Counter[str] = Counter()
            saver = FaultyCheckpointer(make_checkpointer(), {op.number: "pause"})
            graph = build(saver, done)
            running = asyncio.ensure_future(run_flow(graph, tid, durability))
            await saver.reached.wait()
            # Another reader of the storage meanwhile sees the clean run's checkpoints so far.
            meanwhile = await history(build(make_checkpointer(), Counter()), tid)
            assert_prefix_of_clean(meanwhile, clean)
            await then(graph, saver, tid)
            run = await running
            case: dict[str, Any] = {"fault": kind, "at": op.number, "tid": tid}
            if kind == "pause_release":
                _expected_error(case, clean, run)
                case["thread"] = "meanwhile " + describe(meanwhile[0] if meanwhile else None)
            else:
                assert run.final is None
                _expected_error(case, clean, run, RunCancelledError, asyncio.CancelledError)
            await check_recovery(make_checkpointer, clean, run, done, case)


async def _release(graph: CompiledStateGraph, saver: FaultyCheckpointer, tid: str) -> None:
    saver.release.set()


async def _cancel_run(graph: CompiledStateGraph, saver: FaultyCheckpointer, tid: str) -> None:
    if await graph.cancel(tid, "reload") == 0:
        # A read outside a run: its caller's task is what stops.
        assert saver.paused_task is not None
        saver.paused_task.cancel("reload")
        await asyncio.sleep(0)


async def scenario_pause_at_each_operation_then_release_changes_nothing(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """An operation held up then let go ends as the clean run; readers meanwhile see a chain."""
    await _paused(make_checkpointer, _release, "pause_release")


async def scenario_run_cancelled_while_each_operation_waits_loses_nothing(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """graph.cancel() while any operation waits leaves a thread that ends as the clean run."""
    await _paused(make_checkpointer, _cancel_run, "pause_cancel")


# --- scenarios: bugs found by the faults above --------------------------------------------------


async def _until(check: Callable[[], bool], rounds: int = 200) -> bool:
    """Let the event loop run until ``check()`` holds, at most ``rounds`` times; whether it did."""
    for _ in range(rounds):
        if check():
            return True
        await asyncio.sleep(0)
    return check()


async def scenario_input_checkpoint_without_its_input_continues_with_none(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A thread whose input checkpoint was stored without its input continues with invoke(None)."""
    done: Counter[str] = Counter()
    # Operation 3 stores the input (the __start__ task's write) after its checkpoint (2).
    saver = FaultyCheckpointer(make_checkpointer(), {3: "fail_before"})
    graph = build(saver, done)
    error = (await run_flow(graph, "t", "sync")).error
    assert isinstance(error, InjectedFault), repr(error)
    reader = build(make_checkpointer(), done)
    state = await reader.aget_state("t")
    if state.created_at is not None:
        # The thread shows the input as still to be taken: continuing takes it.
        assert state.next == (START,)
        out = await reader.ainvoke(None, thread_id="t")
    else:
        out = await reader.ainvoke(INPUT, thread_id="t")
    [question] = out["__interrupt__"]
    final = await reader.ainvoke(Command(resume={question.id: ANSWER}), thread_id="t")
    assert final["log"] == ["prep", f"ask:{ANSWER}", "side", f"hello {ANSWER}"]
    sources = [(s.metadata or {})["source"] for s in await history(reader, "t")]
    assert sources.count("input") == 1, sources


async def scenario_async_durability_stores_a_parallel_steps_writes_after_its_checkpoint(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """With durability='async', no write of a parallel step goes before its checkpoint is stored."""
    clean = await clean_run(make_checkpointer, "async")
    [at] = [op.number for op in clean.ops if clean.labels[op.number].endswith("(next: ask, side)")]
    done: Counter[str] = Counter()
    saver = FaultyCheckpointer(make_checkpointer(), {at: "pause"})
    running = asyncio.ensure_future(run_flow(build(saver, done), "t", "async"))
    try:
        await saver.reached.wait()
        # The step's tasks finish while their checkpoint is being stored (a slow storage).
        await _until(lambda: len(saver.ops) > at)
        assert [op.name for op in saver.ops[at:]] == [], "a write went before its checkpoint"
    finally:
        saver.release.set()
        run = await running
    assert run.error is None, repr(run.error)
    assert run.final == clean.final


async def scenario_state_of_a_step_cut_short_shows_its_finished_tasks_results(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A step whose tasks finished, cut short before its next checkpoint, shows their results."""
    clean = await clean_run(make_checkpointer, "sync")
    [at] = [op.number for op in clean.ops if clean.labels[op.number].endswith("ask result")]
    done: Counter[str] = Counter()
    # The answer's result is stored, then the caller sees an error: no step 2 checkpoint.
    saver = FaultyCheckpointer(make_checkpointer(), {at: "fail_after"})
    error = (await run_flow(build(saver, done), "t", "sync")).error
    assert isinstance(error, InjectedFault), repr(error)
    state = await build(make_checkpointer(), done).aget_state("t")
    assert [(t.name, t.result is not None) for t in state.tasks] == [("ask", True), ("side", True)]
    assert state.next == ()  # as LangGraph's: no task of the step is left to run
    # As LangGraph's get_state, the values hold what the finished tasks wrote.
    assert state.values == clean.history[1].values


async def scenario_a_failed_parallel_step_ends_its_run_after_all_its_tasks(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """When one task's write of a parallel step is cancelled, the run ends after its sibling."""
    clean = await clean_run(make_checkpointer, "sync")
    writes = [op.number for op in clean.ops if op.name == "aput_writes"]
    ask, side = writes[1:3]
    assert clean.labels[ask].endswith("ask interrupt"), clean.labels[ask]
    assert clean.labels[side].endswith("side result"), clean.labels[side]
    done: Counter[str] = Counter()
    # ask's write is cancelled; side's is held up, as a slow storage would.
    saver = FaultyCheckpointer(make_checkpointer(), {ask: "cancel_before", side: "pause"})
    before = asyncio.all_tasks()
    flow_task = asyncio.ensure_future(flow(build(saver, done), "t", FlowRun("sync")))
    try:
        if not await _until(flow_task.done):
            # The run waits for its sibling's write: let it finish.
            saver.release.set()
            await asyncio.wait([flow_task])
        assert flow_task.cancelled() or isinstance(flow_task.exception(), asyncio.CancelledError)
        stray = saver.paused_task
        assert stray is None or stray.done(), "the run ended with a task of it still writing"
    finally:
        saver.release.set()
        await settle(before)


def fault_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows of :data:`REPORT` as a Markdown table."""
    lines = [
        "| durability | fault | op | operation | caller saw | flow step "
        "| thread after the fault | continued with | re-ran |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        thread = row["thread"]
        if row["orphan_input"]:
            thread += " (input not stored)"
        if row["strays"]:
            thread += f" ({row['strays']} task(s) of the run still running)"
        if row.get("known_bug"):
            thread += f" (bug: {row['known_bug']})"
        cells = [
            row["durability"],
            row["fault"],
            str(row["at"]),
            row["operation"],
            row["caller_saw"],
            row["flow_step"],
            thread,
            ", ".join(row["continued_with"]) or "-",
            ", ".join(row["reran"]) or "-",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def scenario_every_fault_and_operation_has_a_row_saying_what_it_left() -> None:
    """The fault table has one row per fault kind, durability and operation of the clean run."""
    from tests.scenarios.checkpointer_backends import MemoryFactory

    per_fault = [fn for name, fn in globals().items() if "each_operation" in name]
    assert len(per_fault) == 6
    REPORT.clear()
    for each in per_fault:
        await each(MemoryFactory())
    factory = MemoryFactory()
    ops = {d: len((await clean_run(factory, d)).ops) for d in DURABILITIES}
    rows = list(REPORT)
    faults = ("fail_before", "fail_after", "cancel_before", "cancel_after")
    kinds = (*faults, "pause_release", "pause_cancel")
    seen = Counter((row["fault"], row["durability"]) for row in rows)
    assert seen == Counter({(k, d): n for k in kinds for d, n in ops.items()})
    table = fault_table(rows).splitlines()
    assert len(table) == 2 + len(rows)
    assert all(row["thread"] and row["caller_saw"] for row in rows)
    # No case is broken by a bug in the package (those would be scenarios of their own).
    assert [row["tid"] for row in rows if row.get("known_bug")] == []
