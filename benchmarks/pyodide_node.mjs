// Runs Python benchmark modules inside Pyodide under Node and prints their figures as JSON.
// usage: node pyodide_node.mjs DIST_DIR QUICK(0|1) MODULE_FILE...
// The bench_* files run; BENCH_MODULES=a,b runs only those (the other files are support).
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, quick, ...files] = process.argv.slice(2);
const distDir = resolve(dist) + "/";
/** @type {typeof import("pyodide")} */
const { loadPyodide } = await import(pathToFileURL(distDir + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL: distDir, packageBaseUrl: distDir });
await pyodide.loadPackage("pyctx-web", { messageCallback: () => {} });
pyodide.FS.mkdirTree("/bench");
for (const file of files) pyodide.FS.writeFile(`/bench/${basename(file)}`, readFileSync(file));
pyodide.runPython("import sys; sys.path.insert(0, '/bench')");
const modules = process.env.BENCH_MODULES
  ? process.env.BENCH_MODULES.split(",")
  : files.filter((f) => basename(f).startsWith("bench_")).map((f) => basename(f, ".py"));
pyodide.globals.set("bench_modules", pyodide.toPy(modules));
pyodide.globals.set("bench_quick", quick === "1");
const out = await pyodide.runPythonAsync(
  "import driver\nawait driver.main('pyodide-node', bench_quick, list(bench_modules))",
);
process.stdout.write(out + "\n");
