// The page's server: Pyodide, pyctx_web and graph.py in a Web Worker, answering the LangGraph
// Server API (pyctx_web.server's AgentServer) to the page's createAgentServerFetch. Its
// threads, runs and checkpoints are kept in IndexedDB, so a reloaded page finds them again.
//
// Besides the server's own traffic it posts {type: "status", label} while it starts,
// {type: "ready"} once the server answers and {type: "failed", message} if it cannot start.
// The Pyodide URLs are those ./build.sh demo serves (demo/serve.py): /pyodide/ is build/dist.
import { loadPyodide } from "/pyodide/pyodide.mjs";
import { loadPyctxWeb, serveAgentServer } from "/pyctx_web.mjs";

const PYODIDE_URL = "/pyodide/";
// graph.py imports LangChain's chat model base class: langchain-core and what it needs.
const PACKAGES = ["langchain-core"];
const GRAPH_MODULE = "usestream_graph";
// The IndexedDB database of the threads, runs and checkpoints: they survive a reload.
const DATABASE = "pyctx-web-usestream";

/** @param {string} label */
const status = (label) => postMessage({ type: "status", label });

/** The pyctx_web wheel that the distribution's lock file registers, as a URL. */
async function wheelURL() {
  const response = await fetch(new URL("pyodide-lock.json", new URL(PYODIDE_URL, location.href)));
  if (!response.ok) throw new Error(`could not fetch pyodide-lock.json: HTTP ${response.status}`);
  const entry = (await response.json()).packages["pyctx-web"];
  if (!entry) throw new Error("pyodide-lock.json registers no pyctx-web wheel");
  return new URL(entry.file_name, new URL(PYODIDE_URL, location.href)).href;
}

async function start() {
  status("Loading Python…");
  const graphSource = fetch(new URL("./graph.py", location.href)).then((response) => {
    if (!response.ok) throw new Error(`could not fetch graph.py: HTTP ${response.status}`);
    return response.text();
  });
  graphSource.catch(() => {}); // reported where it is awaited
  const pyodide = await loadPyodide({ indexURL: PYODIDE_URL });
  status("Installing pyctx_web and LangChain's core…");
  await loadPyctxWeb(pyodide, { wheelURL: await wheelURL(), packages: PACKAGES });
  pyodide.FS.writeFile(`/home/pyodide/${GRAPH_MODULE}.py`, await graphSource);
  status("Building the graph…");
  // graph.py imports langgraph: pyctx_web answers under LangGraph's names.
  const server = await pyodide.runPythonAsync(`
from pyctx_web.graph import install_as_langgraph
install_as_langgraph()
import ${GRAPH_MODULE}
from pyctx_web.server import AgentServer
from pyctx_web.server.store_indexeddb import IndexedDBStorage
AgentServer({"agent": ${GRAPH_MODULE}.graph}, storage=IndexedDBStorage("${DATABASE}"))
`);
  serveAgentServer(pyodide, server);
  postMessage({ type: "ready" });
}

start().catch((error) => {
  console.error(error);
  postMessage({ type: "failed", message: String(error?.message ?? error) });
});
