// The useStream example page, built into a folder: node examples/usestream/build.mjs OUT_DIR
//
// main.jsx (React and the SDK's useStream, from the npm packages package-lock.json pins) is
// bundled with esbuild into main.js; index.html, style.css, worker.js and graph.py are
// copied beside it. pyctx_web's JavaScript (createAgentServerFetch, and the worker's
// loadPyctxWeb and serveAgentServer) and Pyodide stay outside the bundle: ./build.sh demo
// serves them at /pyctx_web.mjs and /pyodide/.
/* global console, process, URL -- a Node program */
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const COPIED = ["index.html", "style.css", "worker.js", "graph.py"];

const out = process.argv[2];
if (!out || process.argv.length !== 3) {
  console.error("usage: node examples/usestream/build.mjs OUT_DIR");
  process.exit(2);
}
await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(HERE, "main.jsx")],
  outfile: join(out, "main.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  minify: true,
  legalComments: "eof",
  define: { "process.env.NODE_ENV": '"production"' },
  external: ["/pyctx_web.mjs"],
  logLevel: "warning",
});
await Promise.all(COPIED.map((name) => copyFile(join(HERE, name), join(out, name))));
