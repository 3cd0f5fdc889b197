"""Random ids in UUID form, for runs, threads and messages."""

from __future__ import annotations

import os

__all__ = ["random_uuid"]


def random_uuid() -> str:
    """A random version-4 UUID as text: what ``str(uuid.uuid4())`` gives, without importing uuid."""
    # The uuid module loads an extension module on import, slow in Pyodide.
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
