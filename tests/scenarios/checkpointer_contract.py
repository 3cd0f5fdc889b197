"""The checkpointer contract, as scenarios any storage must pass, on CPython and in Pyodide.

Each ``scenario_<behaviour>(make_checkpointer)`` is an async function with
plain asserts. ``make_checkpointer`` is a :class:`CheckpointerFactory` over
one fresh storage: each call gives a checkpointer object over that storage,
and its hooks corrupt a stored row or make writes fail inside their
transaction, the way the storage itself would fail.

Scenarios that need a capability a storage lacks (a new object seeing the
old one's data, storage failures, values that are not text) say so with
:func:`requires`; runners skip them for that storage.

This module imports only pyctx_web and the standard library: it is copied
into Pyodide and run there as it is.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Awaitable, Iterator, Sequence
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import (
    Checkpointer,
    CheckpointRecord,
    StoredCheckpoint,
    StoredWrite,
)
from pyctx_web.graph.errors import CheckpointError, ThreadBusyError
from pyctx_web.graph.types import interrupt
from tests.scenarios.common import (
    FAILURE,
    NON_TEXT,
    PERSISTENT,
    CheckpointerFactory,
    requires,
)


def _cp(
    thread_id: str, checkpoint_id: str, parent_id: str | None = None, data: str = ""
) -> StoredCheckpoint:
    return StoredCheckpoint(
        thread_id,
        checkpoint_id,
        parent_id,
        "2024-01-02T03:04:05+00:00",
        data or f"doc {checkpoint_id}",
    )


async def _chain(saver: Checkpointer, thread_id: str, count: int, prefix: str = "c") -> list[str]:
    """Store ``count`` checkpoints ``c0..`` in the thread, each the parent of the next."""
    ids = [f"{prefix}{i}" for i in range(count)]
    parent = None
    for cid in ids:
        await saver.aput(_cp(thread_id, cid, parent))
        parent = cid
    return ids


async def _ids(saver: Checkpointer, thread_id: str, **kw: Any) -> list[str]:
    return [r.checkpoint.checkpoint_id async for r in saver.alist(thread_id, **kw)]


async def _get(
    saver: Checkpointer, thread_id: str, checkpoint_id: str | None = None
) -> CheckpointRecord:
    record = await saver.aget(thread_id, checkpoint_id)
    assert record is not None, (thread_id, checkpoint_id)
    return record


async def _refused(awaitable: Awaitable[Any]) -> CheckpointError:
    """Await ``awaitable`` and return the CheckpointError it must raise."""
    try:
        await awaitable
    except CheckpointError as exc:
        return exc
    raise AssertionError("expected a CheckpointError")


async def _refused_listing(saver: Checkpointer, thread_id: str, **kw: Any) -> CheckpointError:
    return await _refused(_ids(saver, thread_id, **kw))


def _names(err: CheckpointError, thread_id: str, checkpoint_id: str) -> None:
    assert (err.thread_id, err.checkpoint_id) == (thread_id, checkpoint_id), err
    assert repr(thread_id) in str(err), err
    assert checkpoint_id in str(err), err


# --- reading and writing -----------------------------------------------------------------


async def scenario_latest_and_by_id(make_checkpointer: CheckpointerFactory) -> None:
    """The latest checkpoint is the last stored, and each checkpoint reads back whole by its id."""
    saver = make_checkpointer()
    ids = await _chain(saver, "t", 4)
    latest = await _get(saver, "t")
    assert latest.checkpoint == _cp("t", "c3", "c2")
    assert latest.writes == ()
    for i, cid in enumerate(ids):
        record = await _get(saver, "t", cid)
        assert record.checkpoint == _cp("t", cid, ids[i - 1] if i else None)


async def scenario_unknown_thread_or_id_reads_none(make_checkpointer: CheckpointerFactory) -> None:
    """Reading a thread with no checkpoints, or an id the thread lacks, gives None."""
    saver = make_checkpointer()
    assert await saver.aget("nobody") is None
    assert await saver.aget("nobody", "c0") is None
    await _chain(saver, "t", 2)
    assert await saver.aget("t", "c9") is None
    assert await _ids(saver, "nobody") == []


async def scenario_documents_round_trip_exactly(make_checkpointer: CheckpointerFactory) -> None:
    """Any text, with quotes, newlines, non-ASCII and a megabyte of it, reads back unchanged."""
    saver = make_checkpointer()
    texts = [
        '{"a": "\\"quoted\\"", "b": [1, 2.5, null]}',
        "line\nbreak\ttab",
        "été ✓ 日本 🎉",
        "x" * 1_000_000,
    ]
    for i, text in enumerate(texts):
        parent = f"k{i - 1}" if i else None
        stored = StoredCheckpoint("t", f"k{i}", parent, f"2024-05-0{i + 1}T00:00:00Z", text)
        await saver.aput(stored)
        await saver.aput_writes("t", f"k{i}", [StoredWrite("task é", "result", text)])
    for i, text in enumerate(texts):
        record = await _get(saver, "t", f"k{i}")
        assert record.checkpoint.data == text
        assert record.checkpoint.created_at == f"2024-05-0{i + 1}T00:00:00Z"
        assert record.checkpoint.parent_id == (f"k{i - 1}" if i else None)
        assert record.writes == (StoredWrite("task é", "result", text),)


async def scenario_duplicate_checkpoint_id_is_refused(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Storing an id the thread already has is refused, naming it, and the first one is kept."""
    saver = make_checkpointer()
    await _chain(saver, "t", 2)
    err = await _refused(saver.aput(_cp("t", "c0", None, "again")))
    _names(err, "t", "c0")
    assert "already exists" in str(err)
    assert (await _get(saver, "t", "c0")).checkpoint.data == "doc c0"
    assert await _ids(saver, "t") == ["c1", "c0"]
    await saver.aput(_cp("other", "c0"))
    assert (await _get(saver, "other")).checkpoint.checkpoint_id == "c0"


async def scenario_writes_replace_same_task_and_kind(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A write replaces the one with the same (task_id, kind), keeping the position it first had."""
    saver = make_checkpointer()
    await _chain(saver, "t", 2)
    await saver.aput_writes(
        "t", "c0", [StoredWrite("a", "result", "1"), StoredWrite("a", "error", "e")]
    )
    await saver.aput_writes(
        "t", "c0", [StoredWrite("b", "interrupt", "2"), StoredWrite("a", "result", "3")]
    )
    record = await _get(saver, "t", "c0")
    assert record.writes == (
        StoredWrite("a", "result", "3"),
        StoredWrite("a", "error", "e"),
        StoredWrite("b", "interrupt", "2"),
    )
    assert (await _get(saver, "t", "c1")).writes == ()
    assert (await _get(saver, "t")).checkpoint.checkpoint_id == "c1"


async def scenario_writes_keep_the_order_they_were_first_stored(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Writes read back in the order first stored, not sorted by task or kind."""
    saver = make_checkpointer()
    await _chain(saver, "t", 1)
    order = [
        ("z", "result"),
        ("a", "resume"),
        ("m", "error"),
        ("", "breakpoint"),
        ("a", "interrupt"),
    ]
    for task_id, kind in order:
        await saver.aput_writes("t", "c0", [StoredWrite(task_id, kind, f"{task_id}/{kind}")])
    record = await _get(saver, "t", "c0")
    assert [(w.task_id, w.kind) for w in record.writes] == order
    assert [w.data for w in record.writes] == [f"{t}/{k}" for t, k in order]


async def scenario_writes_to_unknown_checkpoint_are_refused(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Writes for a checkpoint the thread lacks are refused, naming it, and nothing is stored."""
    saver = make_checkpointer()
    await _chain(saver, "t", 1)
    err = await _refused(saver.aput_writes("t", "zz", [StoredWrite("a", "result", "1")]))
    _names(err, "t", "zz")
    err = await _refused(saver.aput_writes("elsewhere", "c0", [StoredWrite("a", "result", "1")]))
    _names(err, "elsewhere", "c0")
    assert (await _get(saver, "t", "c0")).writes == ()


async def scenario_alist_newest_first_with_limit_and_before(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """alist yields newest first; limit caps the count and before starts below an id."""
    saver = make_checkpointer()
    await _chain(saver, "t", 6)
    await saver.aput_writes("t", "c2", [StoredWrite("a", "result", "w")])
    assert await _ids(saver, "t") == ["c5", "c4", "c3", "c2", "c1", "c0"]
    assert await _ids(saver, "t", limit=2) == ["c5", "c4"]
    assert await _ids(saver, "t", limit=0) == []
    assert await _ids(saver, "t", limit=100) == ["c5", "c4", "c3", "c2", "c1", "c0"]
    assert await _ids(saver, "t", before="c3") == ["c2", "c1", "c0"]
    assert await _ids(saver, "t", before="c3", limit=2) == ["c2", "c1"]
    assert await _ids(saver, "t", before="c0") == []
    listed = [r async for r in saver.alist("t", before="c3", limit=1)]
    assert listed == [await _get(saver, "t", "c2")]
    assert listed[0].writes == (StoredWrite("a", "result", "w"),)


async def scenario_alist_before_unknown_id_is_refused(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """alist with before= an id the thread lacks raises CheckpointError naming thread and id."""
    saver = make_checkpointer()
    await _chain(saver, "t", 3)
    await _chain(saver, "u", 1, prefix="u")
    _names(await _refused_listing(saver, "t", before="nope"), "t", "nope")
    _names(await _refused_listing(saver, "t", before="u0"), "t", "u0")
    _names(await _refused_listing(saver, "empty", before="c0"), "empty", "c0")


async def scenario_alist_pages_through_a_long_history(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A 250-checkpoint history lists whole and in order across pages, from any starting point."""
    saver = make_checkpointer()
    ids = await _chain(saver, "t", 250)
    newest_first = ids[::-1]
    assert await _ids(saver, "t") == newest_first
    assert await _ids(saver, "t", limit=130) == newest_first[:130]
    assert await _ids(saver, "t", before="c200", limit=150) == newest_first[50:200]
    assert await _ids(saver, "t", before="c120") == newest_first[130:]
    assert (await _get(saver, "t")).checkpoint.checkpoint_id == "c249"
    assert (await _get(saver, "t", "c7")).checkpoint.parent_id == "c6"


# --- atomicity and corruption --------------------------------------------------------------


class _Injected(Exception):
    """The failure a scenario injects."""


class _BreakingWrites(Sequence[StoredWrite]):
    """A sequence of writes that fails while it is being read, after its first item."""

    def __init__(self, first: StoredWrite) -> None:
        self._first = first

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: Any) -> Any:
        if index == 0:
            return self._first
        raise _Injected("the writes could not be read")

    def __iter__(self) -> Iterator[StoredWrite]:
        yield self._first
        raise _Injected("the writes could not be read")


@requires(FAILURE)
async def scenario_failed_checkpoint_write_leaves_previous_latest(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A checkpoint write failing in its transaction is reported; the previous one stays latest."""
    saver = make_checkpointer()
    await _chain(saver, "t", 2)
    await saver.aput_writes("t", "c1", [StoredWrite("a", "result", "kept")])
    await make_checkpointer.fail_writes_with("<fail>")
    err = await _refused(saver.aput(_cp("t", "c2", "c1", "<fail>")))
    _names(err, "t", "c2")
    latest = await _get(saver, "t")
    assert latest.checkpoint == _cp("t", "c1", "c0")
    assert latest.writes == (StoredWrite("a", "result", "kept"),)
    assert await saver.aget("t", "c2") is None
    assert await _ids(saver, "t") == ["c1", "c0"]
    await saver.aput(_cp("t", "c2", "c1"))
    assert (await _get(saver, "t")).checkpoint.checkpoint_id == "c2"


@requires(FAILURE)
async def scenario_failed_writes_store_none_of_the_batch(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A batch of writes failing on its last item stores none of them and keeps the earlier ones."""
    saver = make_checkpointer()
    await _chain(saver, "t", 1)
    await saver.aput_writes("t", "c0", [StoredWrite("a", "result", "old")])
    await make_checkpointer.fail_writes_with("<fail>")
    batch = [
        StoredWrite("a", "result", "new"),
        StoredWrite("b", "result", "new"),
        StoredWrite("c", "error", "<fail>"),
    ]
    err = await _refused(saver.aput_writes("t", "c0", batch))
    _names(err, "t", "c0")
    assert (await _get(saver, "t", "c0")).writes == (StoredWrite("a", "result", "old"),)
    await saver.aput_writes("t", "c0", batch[:2])
    assert (await _get(saver, "t", "c0")).writes == tuple(batch[:2])


async def scenario_writes_failing_while_read_store_none(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Writes whose sequence fails part-way store nothing, and the error reaches the caller."""
    saver = make_checkpointer()
    await _chain(saver, "t", 1)
    await saver.aput_writes("t", "c0", [StoredWrite("a", "result", "old")])
    try:
        await saver.aput_writes("t", "c0", _BreakingWrites(StoredWrite("a", "result", "new")))
    except _Injected:
        pass
    else:
        raise AssertionError("the failure of the writes was swallowed")
    assert (await _get(saver, "t", "c0")).writes == (StoredWrite("a", "result", "old"),)


@requires(NON_TEXT)
async def scenario_corrupt_checkpoint_names_thread_and_id(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A stored checkpoint that is not text gives CheckpointError naming it; older ones read."""
    saver = make_checkpointer()
    await _chain(saver, "t", 3)
    await _chain(saver, "u", 1)
    await make_checkpointer.corrupt("t", "c2")
    _names(await _refused(saver.aget("t")), "t", "c2")
    _names(await _refused(saver.aget("t", "c2")), "t", "c2")
    _names(await _refused_listing(saver, "t"), "t", "c2")
    assert (await _get(saver, "t", "c1")).checkpoint == _cp("t", "c1", "c0")
    assert await _ids(saver, "t", before="c2") == ["c1", "c0"]
    assert (await _get(saver, "u")).checkpoint.checkpoint_id == "c0"


@requires(NON_TEXT)
async def scenario_corrupt_write_names_thread_and_id(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A pending write that is not text makes its checkpoint fail naming it; others read fine."""
    saver = make_checkpointer()
    await _chain(saver, "t", 2)
    await saver.aput_writes("t", "c0", [StoredWrite("a", "result", "ok")])
    await saver.aput_writes(
        "t", "c1", [StoredWrite("a", "result", "x"), StoredWrite("b", "error", "y")]
    )
    await make_checkpointer.corrupt("t", "c1", write=("b", "error"))
    _names(await _refused(saver.aget("t")), "t", "c1")
    _names(await _refused(saver.aget("t", "c1")), "t", "c1")
    assert (await _get(saver, "t", "c0")).writes == (StoredWrite("a", "result", "ok"),)


class _State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    answer: str


def _small_graph(saver: Checkpointer) -> Any:
    return (
        StateGraph(_State)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_node("ask", lambda s: {"answer": interrupt("q")})
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .compile(checkpointer=saver)
    )


async def scenario_corrupt_document_is_reported_by_the_graph(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A damaged checkpoint document makes aget_state fail naming thread and id; older ones read."""
    saver = make_checkpointer()
    graph = _small_graph(saver)
    await graph.ainvoke({"log": []}, thread_id="t")
    snapshots = [s async for s in graph.aget_state_history("t")]
    latest = str(snapshots[0].config["configurable"]["checkpoint_id"])
    await make_checkpointer.corrupt("t", latest, text='{"v": 1, "values": [')
    _names(await _refused(graph.aget_state("t")), "t", latest)
    older = await graph.aget_state(snapshots[1].config)
    assert (older.values, older.next) == ({"log": []}, ("a",))


async def scenario_corrupt_write_document_is_reported_by_the_graph(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A damaged pending-write document makes aget_state fail naming the thread and checkpoint."""
    saver = make_checkpointer()
    graph = _small_graph(saver)
    out = await graph.ainvoke({"log": []}, thread_id="t")
    assert [i.value for i in out["__interrupt__"]] == ["q"]
    record = await _get(saver, "t")
    [write] = [w for w in record.writes if w.kind == "interrupt"]
    await make_checkpointer.corrupt(
        "t", record.checkpoint.checkpoint_id, write=(write.task_id, write.kind), text="not json"
    )
    _names(await _refused(graph.aget_state("t")), "t", record.checkpoint.checkpoint_id)


# --- threads and storage -------------------------------------------------------------------


async def scenario_delete_thread_removes_only_that_thread(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """adelete_thread removes a thread's checkpoints and writes and leaves every other thread."""
    saver = make_checkpointer()
    for tid in ("t", "t0", "s"):
        await _chain(saver, tid, 3)
        await saver.aput_writes(tid, "c1", [StoredWrite("a", "result", tid)])
    await saver.adelete_thread("t")
    assert await saver.aget("t") is None
    assert await saver.aget("t", "c1") is None
    assert await _ids(saver, "t") == []
    for tid in ("t0", "s"):
        assert await _ids(saver, tid) == ["c2", "c1", "c0"]
        assert (await _get(saver, tid, "c1")).writes == (StoredWrite("a", "result", tid),)
    await saver.adelete_thread("never-stored")
    assert await _ids(saver, "s") == ["c2", "c1", "c0"]


async def scenario_deleted_thread_starts_again_empty(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A deleted thread takes the same ids again, with none of its old writes."""
    saver = make_checkpointer()
    await _chain(saver, "t", 3)
    await saver.aput_writes("t", "c0", [StoredWrite("a", "result", "old")])
    await saver.adelete_thread("t")
    await _chain(saver, "t", 2)
    assert await _ids(saver, "t") == ["c1", "c0"]
    assert (await _get(saver, "t", "c0")).writes == ()
    assert (await _get(saver, "t")).checkpoint.checkpoint_id == "c1"


async def scenario_threads_are_isolated(make_checkpointer: CheckpointerFactory) -> None:
    """Threads whose ids share prefixes or hold odd characters never see each other's data."""
    saver = make_checkpointer()
    threads = ["t", "t1", "t10", "t/1", "T", "été", "", "a b", '["t"]']
    for round_ in range(3):
        for tid in threads:
            await saver.aput(
                _cp(tid, f"c{round_}", f"c{round_ - 1}" if round_ else None, f"{tid}#{round_}")
            )
            await saver.aput_writes(
                tid, f"c{round_}", [StoredWrite("x", "result", f"{tid}!{round_}")]
            )
    for tid in threads:
        assert await _ids(saver, tid) == ["c2", "c1", "c0"]
        latest = await _get(saver, tid)
        assert latest.checkpoint.data == f"{tid}#2"
        assert latest.writes == (StoredWrite("x", "result", f"{tid}!2"),)
        assert [r.checkpoint.data async for r in saver.alist(tid)] == [
            f"{tid}#{i}" for i in (2, 1, 0)
        ]


async def scenario_concurrent_threads_store_independently(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Twenty threads writing at once through one checkpointer each end with just their own data."""
    saver = make_checkpointer()

    async def fill(n: int) -> None:
        tid = f"thread-{n}"
        parent = None
        for i in range(5):
            cid = f"{tid}-c{i}"
            await saver.aput(_cp(tid, cid, parent, f"{tid}:{i}"))
            await saver.aput_writes(tid, cid, [StoredWrite("w", "result", f"{tid}/{i}")])
            parent = cid
            await asyncio.sleep(0)

    await asyncio.gather(*(fill(n) for n in range(20)))
    for n in range(20):
        tid = f"thread-{n}"
        records = [r async for r in saver.alist(tid)]
        assert [r.checkpoint.data for r in records] == [f"{tid}:{i}" for i in range(4, -1, -1)]
        assert [r.writes for r in records] == [
            (StoredWrite("w", "result", f"{tid}/{i}"),) for i in range(4, -1, -1)
        ]


@requires(PERSISTENT)
async def scenario_new_checkpointer_sees_everything(make_checkpointer: CheckpointerFactory) -> None:
    """A new checkpointer object over the same storage reads every checkpoint and write stored."""
    first = make_checkpointer()
    await _chain(first, "t", 3)
    await _chain(first, "u", 2)
    await first.aput_writes(
        "t", "c2", [StoredWrite("a", "interrupt", "q"), StoredWrite("b", "result", "r")]
    )
    await first.adelete_thread("u")
    second = make_checkpointer()
    assert second is not first
    assert await _ids(second, "t") == ["c2", "c1", "c0"]
    assert await second.aget("u") is None
    latest = await _get(second, "t")
    assert latest == await _get(first, "t")
    assert latest.writes == (StoredWrite("a", "interrupt", "q"), StoredWrite("b", "result", "r"))
    await second.aput(_cp("t", "c3", "c2"))
    assert (await _get(first, "t")).checkpoint.checkpoint_id == "c3"
    err = await _refused(first.aput(_cp("t", "c3", "c2")))
    _names(err, "t", "c3")


async def _busy(awaitable: Awaitable[None]) -> ThreadBusyError:
    """The ThreadBusyError ``awaitable`` raises; AssertionError when it raises none."""
    try:
        await awaitable
    except ThreadBusyError as error:
        return error
    raise AssertionError("the write was not refused as thread busy")


async def scenario_a_checkpoint_not_on_the_latest_is_refused_as_thread_busy(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """A checkpoint whose parent is no longer the latest is refused and nothing is written."""
    saver = make_checkpointer()
    await _chain(saver, "t", 2)
    err = await _busy(saver.aput(_cp("t", "late", "c0")))
    assert err.thread_id == "t"
    assert "another run wrote this thread first" in str(err)
    assert await saver.aget("t", "late") is None
    assert await _ids(saver, "t") == ["c1", "c0"]
    await _busy(saver.aput(_cp("fresh", "x", "c9")))
    assert await saver.aget("fresh") is None
    await saver.aput(_cp("t", "fork", "c0"), latest="c1")  # a fork, on top of the latest
    assert await _ids(saver, "t") == ["fork", "c1", "c0"]
    assert (await _get(saver, "t")).checkpoint.parent_id == "c0"


@requires(PERSISTENT)
async def scenario_two_writers_on_one_thread_one_wins(
    make_checkpointer: CheckpointerFactory,
) -> None:
    """Two checkpointers over one storage writing on the same latest: one wins, one is refused."""
    first, second = make_checkpointer(), make_checkpointer()
    await _chain(first, "t", 1)
    outcomes = await asyncio.gather(
        first.aput(_cp("t", "a1", "c0")), second.aput(_cp("t", "b1", "c0")), return_exceptions=True
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "ThreadBusyError"]
    assert len(await _ids(first, "t")) == 2
