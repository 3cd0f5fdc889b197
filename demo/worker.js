// The Python side of the demo: Pyodide and pyctx_web run here, off the page's thread.
import { loadPyodide } from "/pyodide/pyodide.mjs";

const started = performance.now();
const status = (stage, label) => postMessage({ type: "status", stage, label });

async function boot() {
  status("runtime", "Loading the Python runtime…");
  // packageBaseUrl also replaces the CDN that Pyodide would otherwise fall back to.
  const base = new URL("/pyodide/", self.location.href).href;
  const pyodide = await loadPyodide({ indexURL: base, packageBaseUrl: base });
  status("packages", "Installing pyctx_web…");
  await pyodide.loadPackage("micropip");
  await pyodide.runPythonAsync("import micropip\nawait micropip.install('pyctx-web')");
  status("app", "Starting the app…");
  const pyctxVersion = pyodide.runPython("import pyctx_web; pyctx_web.__version__");
  postMessage({
    type: "ready",
    pyodide: pyodide.version,
    pyctx_web: pyctxVersion,
    elapsed_ms: Math.round(performance.now() - started),
  });
}

boot().catch((error) => postMessage({ type: "error", message: String(error) }));
