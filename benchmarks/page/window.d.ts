// What benchmarks/page/bench.mjs puts on the benchmark page's window, for benchmarks/run.py
// (through Playwright) and benchmarks/page/polyfill_reference.js.
interface Window {
  benchTiming: typeof import("./timing.mjs");
  /** How long loadPyodide took, in milliseconds. */
  loadPyodideMs: number;
  /** The cold start's time in milliseconds, once Pyodide (and pyctx_web) is ready. */
  coldStart: Promise<number>;
  pyodide: import("pyodide").PyodideAPI;
  /** Runs benchmark modules given as {file name: source}; resolves with their figures as JSON text. */
  runBench(sources: Record<string, string>, modules: string[], quick: boolean): Promise<string>;
}
