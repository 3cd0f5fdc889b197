// Benchmark page: Pyodide on the main thread, driven by benchmarks/run.py through Playwright.
import { loadPyodide } from "/pyodide/pyodide.mjs";
import * as timing from "./timing.mjs";

window.benchTiming = timing;

const base = new URL("/pyodide/", location.href).href;
const params = new URLSearchParams(location.search);

// Cold start: ?mode=bare loads Pyodide only; ?mode=pyctx-direct also loads the pyctx_web wheel
// with pyodide.loadPackage and imports it; ?mode=pyctx installs it with
// micropip instead. ?stdlib=NAME loads the standard library from NAME in the distribution
// (python_stdlib.zip unless given); window.loadPyodideMs is the time loadPyodide took.
/** @param {string} mode */
async function coldStart(mode) {
  const start = performance.now();
  const stdlib = params.get("stdlib");
  /** @type {import("pyodide").PyodideConfig} */
  const config = { indexURL: base, packageBaseUrl: base };
  if (stdlib) config.stdLibURL = new URL(stdlib, base).href;
  const pyodide = await loadPyodide(config);
  window.loadPyodideMs = performance.now() - start;
  // pyctx_web's JavaScript from this origin: the page's policy forbids eval.
  pyodide.registerJsModule("pyctx_web_js", await import("/pyctx_web.mjs"));
  if (mode === "pyctx") {
    await pyodide.loadPackage("micropip", { messageCallback: () => {} });
    await pyodide.runPythonAsync(
      "import micropip\nawait micropip.install('pyctx-web')\nimport pyctx_web",
    );
  } else if (mode === "pyctx-direct") {
    await pyodide.loadPackage("pyctx-web", { messageCallback: () => {} });
    pyodide.runPython("import pyctx_web");
  } else {
    pyodide.runPython("import sys");
  }
  return { pyodide, ms: performance.now() - start };
}

window.coldStart = coldStart(params.get("mode") ?? "pyctx").then(({ pyodide, ms }) => {
  window.pyodide = pyodide;
  const state = document.getElementById("state");
  if (state === null) throw new Error("the benchmark page has no #state element");
  state.textContent = "ready";
  return ms;
});

// Runs benchmark modules given as {name: source} and returns their figures as JSON text.
window.runBench = async (sources, modules, quick) => {
  const pyodide = window.pyodide;
  await pyodide.loadPackage("pyctx-web", { messageCallback: () => {} });
  pyodide.FS.mkdirTree("/bench");
  for (const [name, text] of Object.entries(sources)) pyodide.FS.writeFile(`/bench/${name}`, text);
  pyodide.runPython("import sys; sys.path.insert(0, '/bench')");
  pyodide.globals.set("bench_modules", pyodide.toPy(modules));
  pyodide.globals.set("bench_quick", quick);
  return await pyodide.runPythonAsync(
    "import driver\nawait driver.main('pyodide-chromium', bench_quick, list(bench_modules))",
  );
};
