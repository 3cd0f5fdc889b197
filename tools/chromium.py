"""How this project starts Chromium: Debian's binary and the flags every launch uses.

The Pyodide tier, the end-to-end tier, the demo snapshot tool and the bench all
launch it through Playwright with these; the Pyodide tier adds V8's
``--expose-gc``.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CHROMIUM", "CHROMIUM_FLAGS"]

CHROMIUM: Final = "/usr/bin/chromium"
"""Debian's Chromium (``apt-get install chromium``; ``./build.sh setup`` installs it)."""

CHROMIUM_FLAGS: Final = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Turns off Chromium's in-process sampling heap profiler, which it starts in a random
    # share of browser sessions (feature HeapProfilerReporting) and then in their child
    # processes (--subproc-heap-profiling). On a sampled allocation it walks frame
    # pointers up to the end of the thread's native stack; while Pyodide runs on a
    # WebAssembly stack-switching (JSPI) stack, that walk scans past the top of the
    # switched stack into its guard page and the renderer dies of SIGSEGV ("Target
    # crashed"). "Never profile during benchmarking" is Chromium's own rule.
    "--enable-benchmarking",
)
"""The flags of every launch: no sandbox, GPU or background traffic, and no heap profiler."""
