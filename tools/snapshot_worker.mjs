// Takes the demo worker's memory snapshot, in the browser it will be restored in (see
// tools/snapshot.py): Pyodide with pyctx_web and the demo app imported, nothing started.
// The app folder comes as ?app=/home/pyodide/demo_app; the snapshot is posted back.
import { loadPyodide } from "/pyodide/pyodide.mjs";

/** @param {string} url */
async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function take() {
  const appDir = new URL(import.meta.url).searchParams.get("app");
  if (appDir === null) throw new Error("the snapshot worker needs ?app=FOLDER in its URL");
  const base = new URL("/pyodide/", self.location.href).href;
  const lock = await (await fetch(`${base}pyodide-lock.json`)).json();
  const entry = lock.packages["pyctx-web"];
  if (!entry) throw new Error("pyodide-lock.json registers no pyctx-web wheel");
  const pyodide = await loadPyodide({
    indexURL: base,
    packageBaseUrl: base,
    lockFileContents: lock,
    _makeSnapshot: true,
  });
  const [wheel, app] = await Promise.all([bytes(base + entry.file_name), bytes("/app.zip")]);
  const sitePackages = pyodide.runPython(
    "import sys\nnext(p for p in sys.path if p.endswith('/site-packages'))",
  );
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.FS.mkdirTree(appDir);
  pyodide.unpackArchive(app, "zip", { extractDir: appDir });
  // No JavaScript module is registered here: the snapshot may only refer to globals.
  await pyodide.runPythonAsync(`
import sys
for folder in (${JSON.stringify(sitePackages)}, ${JSON.stringify(appDir)}):
    finder = sys.path_importer_cache.get(folder)
    if finder is not None:
        finder.invalidate_caches()
sys.path.insert(0, ${JSON.stringify(appDir)})
import worker_main
await worker_main.preload()
`);
  return pyodide.makeMemorySnapshot();
}

take().then(
  (snapshot) => postMessage({ snapshot }, [snapshot.buffer]),
  (error) => postMessage({ error: String(error?.message ?? error) }),
);
