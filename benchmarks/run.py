"""The benchmark suite: CPython, Pyodide under Node and Pyodide in headless Chromium, in one run.

``./build.sh bench [--quick] [--network]`` runs it (``--network``: only the network part,
which the full suite includes and ``--quick`` leaves out). It writes
``build/bench/results.json`` and ``build/bench/chart.svg`` and prints a Markdown
table. A timing never fails the run: a missed goal is reported as missed, and a
measurement the clock could not resolve is reported as degenerate. The run exits
non-zero only when a runtime could not be measured at all (it could not start, or
its benchmark code raised); the other runtimes are still measured and reported.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "demo"))
sys.path.insert(0, str(ROOT))

import against  # noqa: E402
import api_model  # noqa: E402
import baseline  # noqa: E402
import chart  # noqa: E402
import first_token  # noqa: E402
import goals  # noqa: E402
import network  # noqa: E402
import server_worker  # noqa: E402
import startup  # noqa: E402
import stats  # noqa: E402

from tools.chromium import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

SUPPORT_FILES = ["stats.py", "driver.py"]


def bench_modules(runtime: str) -> list[str]:
    """The benchmark modules for a runtime: every ``bench_*.py`` whose RUNTIMES admit it."""
    names = []
    for path in sorted(HERE.glob("bench_*.py")):
        text = path.read_text()
        if "RUNTIMES =" in text:
            allowed = text.split("RUNTIMES =", 1)[1].split("\n", 1)[0]
            if runtime not in allowed:
                continue
        names.append(path.stem)
    return names


Measured = dict[str, Any]
"""What a runtime's driver returns: ``runtime``, ``clock_resolution`` (s) and ``figures``."""


def run_cpython(quick: bool) -> list[Measured]:
    import driver

    runtime = f"cpython {platform.python_version()}"
    modules = bench_modules("cpython")
    return [json.loads(asyncio.run(driver.main(runtime, quick, modules)))]


def run_cpython_langgraph(quick: bool) -> list[Measured]:
    """The modules made for real LangGraph only, run in ``.venv-langgraph``'s CPython."""
    venv = ROOT / ".venv-langgraph" / "bin" / "python"
    modules = [name for name in bench_modules("langgraph") if name not in bench_modules("cpython")]
    code = (
        "import asyncio, platform, sys; sys.path.insert(0, sys.argv[1]); import driver; "
        "print(asyncio.run(driver.main(f'cpython {platform.python_version()}', "
        "sys.argv[2] == '1', sys.argv[3:])))"
    )
    python = str(venv if venv.exists() else sys.executable)
    out = subprocess.run(
        [python, "-c", code, str(HERE), "1" if quick else "0", *modules],
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    return [json.loads(out.stdout.strip().splitlines()[-1])]


def run_node_pyodide(dist: Path, quick: bool) -> list[Measured]:
    files = [str(HERE / name) for name in SUPPORT_FILES]
    files += [str(HERE / f"{name}.py") for name in bench_modules("pyodide-node")]
    out = subprocess.run(
        ["node", str(HERE / "pyodide_node.mjs"), str(dist), "1" if quick else "0", *files],
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    return [json.loads(out.stdout.strip().splitlines()[-1])]


def run_node_reference(quick: bool) -> list[Measured]:
    out = subprocess.run(
        ["node", str(HERE / "node_als.mjs"), "1" if quick else "0"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return [json.loads(out.stdout)]


@contextmanager
def served(dist: Path) -> Iterator[str]:
    import serve

    os.environ.setdefault("PYCTX_DEMO_QUIET", "1")  # serve.py then logs no request
    # Cross-origin isolated: Chromium's performance.now() then ticks every 5 us, not 100 us.
    server = serve.make_server("127.0.0.1", 0, dist, HERE / "page", isolated=True)
    with serve.running(server) as url:
        yield url


def run_chromium(dist: Path, quick: bool) -> list[Measured]:
    from playwright.sync_api import sync_playwright

    with served(dist) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        runtime = f"pyodide-chromium {browser.version}"
        try:
            figures = cold_start(browser, url, runtime, rounds=3 if quick else 9)
            page = browser.new_page()
            page.goto(f"{url}?mode=bare")
            page.evaluate("window.coldStart")
            sources = {name: (HERE / name).read_text() for name in SUPPORT_FILES}
            modules = bench_modules("pyodide-chromium")
            for name in modules:
                sources[f"{name}.py"] = (HERE / f"{name}.py").read_text()
            measured = json.loads(
                page.evaluate("([s, m, q]) => window.runBench(s, m, q)", [sources, modules, quick])
            )
            figures += measured["figures"] + polyfill_reference(page, runtime, quick)
            figures += server_worker.rows(page, runtime, quick)
            isolated = bool(page.evaluate("crossOriginIsolated"))
            names = [path.name for path in dist.iterdir()]
            figures += startup.stdlib_rows(
                browser, url, names, runtime, rounds=3 if quick else 9, quick=quick
            )
        finally:
            browser.close()
    for row in figures:
        row["runtime"] = runtime
    return [
        {
            "runtime": runtime,
            "clock_resolution": measured["clock_resolution"],
            "cross_origin_isolated": isolated,
            "figures": figures,
        }
    ]


def cold_start(browser: Any, url: str, runtime: str, *, rounds: int) -> list[dict[str, Any]]:
    """Page load to ready with pyctx_web against bare Pyodide, each in a fresh browser context.

    Two ways to add pyctx_web: ``pyodide.loadPackage`` and micropip.
    """

    def load(mode: str) -> float:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(f"{url}?mode={mode}")
            return float(page.evaluate("window.coldStart"))
        finally:
            context.close()

    modes = ["bare", "pyctx", "pyctx-direct"]
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    for round_index in range(rounds):
        # Rotate the order so that no mode always goes first.
        for mode in modes[round_index % 3 :] + modes[: round_index % 3]:
            times[mode].append(load(mode))
    rows = []
    labels = {"pyctx-direct": "pyodide.loadPackage", "pyctx": "micropip"}
    for mode, how in labels.items():
        deltas = [a - b for a, b in zip(times[mode], times["bare"], strict=True)]
        d1, d2, d3 = stats.quantiles(deltas)
        q1, q2, q3 = stats.quantiles(times[mode])
        rows.append(
            stats.figure(
                f"page cold start to ready, with pyctx_web ({how})",
                runtime,
                q2,
                "ms",
                spread=(q1, q3),
                baseline="bare Pyodide load to ready",
                baseline_value=stats.quantiles(times["bare"])[1],
                goal="<= +300 ms",
                met=d2 <= 300,
                note=f"difference {d2:+.0f} ms (quartiles {d1:+.0f} to {d3:+.0f})",
            )
        )
    return rows


# The function the page evaluates, without the file's leading comment lines.
POLYFILL = "\n".join(
    line
    for line in (HERE / "page" / "polyfill_reference.js").read_text().splitlines()
    if not line.startswith("//")
)


def polyfill_reference(page: Any, runtime: str, quick: bool) -> list[dict[str, Any]]:
    """The single-slot ``.finally()`` polyfill: its speed and the share of reads it gets wrong."""
    count = 200 if quick else 1_000
    out = page.evaluate(POLYFILL, [count, quick])
    share = out["wrong"] / out["count"]
    return [
        stats.figure(
            "single-slot polyfill run(store, fn) + getStore()",
            runtime,
            out["ns"],
            "ns",
            spread=tuple(out["spread"]),
            note=(
                f"reference; wrong reads under FIFO interleaving: {out['wrong']} of "
                f"{out['count']} ({share:.0%}); pyctx_web: 0 (tests/pyodide)"
            ),
        )
    ]


def wheel_size() -> list[Measured]:
    wheels = sorted((ROOT / "build" / "wheel").glob("pyctx_web-*.whl"))
    if not wheels:
        raise FileNotFoundError("no wheel in build/wheel: run ./build.sh wheel")
    size = wheels[-1].stat().st_size / 1024
    row = stats.figure(
        "wheel size", "-", size, "KB", goal="<= 60 KB", met=size <= 60, note=wheels[-1].name
    )
    return [{"runtime": "-", "clock_resolution": None, "figures": [row]}]


def fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:.{digits}f} {unit}".strip()


def table(figures: list[dict[str, Any]]) -> str:
    lines = [
        "| figure | runtime | value (quartiles) | compared with | ratio (quartiles) | goal | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in figures:
        spread = row["spread"]
        value = fmt(row["value"], row["unit"])
        if spread:
            value += f" ({fmt(spread[0])} to {fmt(spread[1])})"
        baseline = row["baseline"] or ""
        if row["baseline_value"] is not None:
            baseline += f": {fmt(row['baseline_value'], row['unit'])}"
        ratio = ""
        if row["ratio"] is not None:
            ratio = f"{row['ratio']:.2f}x"
            if row["ratio_spread"]:
                ratio += f" ({row['ratio_spread'][0]:.2f} to {row['ratio_spread'][1]:.2f})"
        met = "" if row["met"] is None else ("yes" if row["met"] else "**missed**")
        if row["met"] is None and row["goal"]:
            met = "not judged"
        goal = row["goal"] or ""
        note = f" {row['note']}" if row["note"] else ""
        name = row["name"] + (f" <br><sub>{note.strip()}</sub>" if note else "")
        lines.append(
            f"| {name} | {row['runtime']} | {value} | {baseline} | {ratio} | {goal} | {met} |"
        )
    return "\n".join(lines)


def measure(
    quick: bool, dist: Path, *, only_network: bool = False
) -> tuple[list[Measured], list[str]]:
    """Every runtime's measurements, and one line for each runtime that could not be measured.

    The network part runs in the full suite, not with ``quick``; ``only_network`` runs it
    alone (with fewer rounds when ``quick``).
    """
    launch = {"executable_path": CHROMIUM, "args": list(CHROMIUM_FLAGS)}
    ref = baseline.BASELINE_REF
    steps: list[goals.Step] = [
        ("CPython", lambda: run_cpython(quick)),
        ("CPython with real LangGraph", lambda: run_cpython_langgraph(quick)),
        ("Pyodide in Node", lambda: run_node_pyodide(dist, quick)),
        ("Node's AsyncLocalStorage", lambda: run_node_reference(quick)),
        ("Pyodide in Chromium", lambda: run_chromium(dist, quick)),
        (f"start-up against {ref}", lambda: against.run_startup(dist, quick, launch)),
        (f"imports against {ref}", lambda: against.run_imports(dist, quick)),
        (f"run time against {ref}", lambda: against.run_versus(dist, quick)),
        ("the demo's API model", lambda: api_model.run_step(dist, quick, launch)),
        (
            f"first token against the chat protocol ({baseline.PROTOCOL_REF})",
            lambda: first_token.run(dist, quick, launch),
        ),
        ("wheel", wheel_size),
    ]
    network_step = ("the demo over an emulated network", lambda: network.run(quick, launch))
    steps = goals.with_network(steps, network_step, quick=quick, only_network=only_network)
    measured: list[Measured] = []
    failures: list[str] = []
    for label, step in steps:
        print(f"bench: {label}…", file=sys.stderr, flush=True)
        try:
            measured.extend(step())
        except Exception as error:  # reported below and in the exit status, never hidden
            detail = getattr(error, "stderr", None) or ""
            failures.append(f"{label}: {type(error).__name__}: {error}\n{detail}".rstrip())
            print(f"bench: {label} could not run: {failures[-1]}", file=sys.stderr, flush=True)
    return measured, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "build" / "dist")
    parser.add_argument("--quick", action="store_true", help="fewer rounds: under 2 minutes")
    parser.add_argument(
        "--network",
        action="store_true",
        help="only the demo's first and second visits over an emulated network (about 10 minutes)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench")
    args = parser.parse_args(argv)

    started = datetime.datetime.now(datetime.UTC)
    measured, failures = measure(args.quick, args.dist, only_network=args.network)
    figures = [row for part in measured for row in part["figures"]]
    clocks = {
        part["runtime"]: part["clock_resolution"]
        for part in measured
        if part["clock_resolution"] is not None
    }
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"
    )
    result = {
        "date": started.isoformat(timespec="seconds"),
        "machine": machine,
        "quick": args.quick,
        "part": "network" if args.network else "network left out" if args.quick else "all",
        "clock_resolution": clocks,
        "cross_origin_isolated": any(part.get("cross_origin_isolated") for part in measured),
        "failures": failures,
        "figures": figures,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(result, indent=2))
    (args.out / "chart.svg").write_text(chart.render(figures))
    print(f"Measured {started:%Y-%m-%d} on {machine}{' (--quick)' if args.quick else ''}.\n")
    ticks = ", ".join(f"{name} {seconds * 1e9:.0f} ns" for name, seconds in clocks.items())
    if ticks:
        print(f"Clock resolution: {ticks}.\n")
    print(table(figures))
    print(
        f"\nresults: {args.out / 'results.json'}; chart: {args.out / 'chart.svg'}", file=sys.stderr
    )
    for failure in failures:
        print(f"bench: could not run {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
