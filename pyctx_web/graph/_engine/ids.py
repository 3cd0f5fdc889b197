"""Ids in UUID form: random ones for runs, threads and messages; checkpoint and task ids.

A checkpoint id is ordered by creation time and unique; a task id is derived from
the checkpoint that schedules the task, so the same step plans the same ids.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hashlib import sha256 as _sha256
else:
    try:
        # The builtin SHA-256 that random already imports: importing hashlib also loads
        # the other hash modules, milliseconds at start in Pyodide. The digests are the same.
        from _sha2 import sha256 as _sha256
    except ImportError:  # CPython 3.11 names that module _sha256
        from hashlib import sha256 as _sha256

from pyctx_web._env import on_restore

__all__ = [
    "new_checkpoint_id",
    "new_checkpoint_stamp",
    "now_iso",
    "pull_task_id",
    "random_uuid",
    "stable_id",
    "task_id",
]


def random_uuid() -> str:
    """A random version-4 UUID as text: what ``str(uuid.uuid4())`` gives, without importing uuid."""
    # The uuid module loads an extension module on import, slow in Pyodide.
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


_sequence = itertools.count()
_random = random.Random(os.urandom(16)).getrandbits
"""Random bits for checkpoint ids, seeded once per process (a system call per id costs)."""
_tail = f"{_random(48):012x}"
"""The last group of this process's checkpoint ids: 48 random bits that keep processes apart."""


_second: list[Any] = [None, ""]
"""The last whole second :func:`now_iso` formatted, and its text."""


def _reseed() -> None:
    global _random, _tail
    _random = random.Random(os.urandom(16)).getrandbits
    _tail = f"{_random(48):012x}"


if hasattr(os, "register_at_fork"):
    # A forked child must not draw the same bits as its parent.
    os.register_at_fork(after_in_child=_reseed)
# Nor must copies of one memory snapshot draw the same bits as each other.
on_restore(_reseed)


def new_checkpoint_id() -> str:
    """A new unique checkpoint id in UUID form, as LangGraph's, ordered by creation time."""
    return _id_at(time.time_ns() // 1000)


def new_checkpoint_stamp() -> tuple[str, str]:
    """A new checkpoint id and its creation time (:func:`now_iso`'s form), of one clock reading."""
    micros = time.time_ns() // 1000
    # What _id_at and _iso_at make, in one call and with cheaper formatting: every step
    # makes a stamp. The id's 20 hex digits are the 10 bytes of time and counter.
    raw = ((micros << 24) | (next(_sequence) & 0xFFFFFF)).to_bytes(10, "big")
    seconds = micros // 1_000_000
    if seconds != _second[0]:
        _second[:] = [seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))]
    return (
        f"{raw[:4].hex()}-{raw[4:].hex('-', 2)}-{_tail}",
        # 1_000_000 + micros: the digits after the second with leading zeros, after a "1".
        f"{_second[1]}.{str(1_000_000 + micros - seconds * 1_000_000)[1:]}+00:00",
    )


def _id_at(micros: int) -> str:
    # A time prefix keeps ids ordered across processes too; the counter orders ids made
    # within one microsecond and keeps apart those of one process, the random tail those of
    # different processes. The tail is drawn once per process: an id costs no random draw.
    text = f"{micros:014x}{next(_sequence) & 0xFFFFFF:06x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:]}-{_tail}"


def stable_id(*parts: object) -> str:
    """A deterministic 32-hex-digit id of ``parts``."""
    text = "\x1f".join(str(p) for p in parts)
    return _sha256(text.encode("utf-8")).hexdigest()[:32]


def task_id(*parts: object) -> str:
    """A deterministic task id of ``parts``, in UUID form as LangGraph's task ids."""
    return _uuid_form(_sha256("\x1f".join(map(str, parts)).encode()).hexdigest())


def pull_task_id(checkpoint_id: str, node: str) -> str:
    """``task_id(checkpoint_id, "pull", node)``: the id of a step's task of ``node``."""
    digest = _sha256(f"{checkpoint_id}\x1fpull\x1f{node}".encode()).digest()
    # _uuid_form of its first 32 hex digits, made from the bytes: every step makes one.
    return f"{digest[:4].hex()}-{digest[4:10].hex('-', 2)}-{digest[10:16].hex()}"


def _uuid_form(text: str) -> str:
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:32]}"


def now_iso() -> str:
    """The current UTC time in ISO 8601, to the microsecond (``datetime.isoformat``'s form)."""
    return _iso_at(time.time_ns() // 1000)


def _iso_at(since_epoch: int) -> str:
    seconds, micros = divmod(since_epoch, 1_000_000)
    if seconds != _second[0]:
        # Formatting the date is most of the cost: once per second is enough.
        _second[:] = [seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))]
    return f"{_second[1]}.{micros:06d}+00:00"
