// Custom events per second of one streamed run, in Pyodide under Node, at each layer of the
// path a page's LangGraph SDK Client takes to a pyctx_web.server: the graph's own astream,
// the server's SSE body read in Python, the body read through createAgentServerFetch, and
// the SDK Client's runs.stream over that fetch. Rounds are interleaved; prints JSON.
// usage: node agent_fetch_node.mjs DIST_DIR [EVENTS=5000] [ROUNDS=3]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, eventsArg = "5000", roundsArg = "3"] = process.argv.slice(2);
const distDir = resolve(dist) + "/";
const events = Number(eventsArg);
const rounds = Number(roundsArg);
const { loadPyodide } = await import(pathToFileURL(distDir + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL: distDir, packageBaseUrl: distDir });
await pyodide.loadPackage("pyctx-web", { messageCallback: () => {} });
const module = await import(pathToFileURL(distDir + "pyctx_web.mjs").href);
pyodide.registerJsModule("pyctx_web_js", module);
await pyodide.runPythonAsync(`
import asyncio, json, time, uuid
from typing import TypedDict
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.server import AgentServer
from pyctx_web.server._http import Request

class S(TypedDict, total=False):
    n: int
    done: int

async def emit(state):
    write = get_stream_writer()
    for i in range(state["n"]):
        write({"token": "x" * 100})
        await asyncio.sleep(0)
    return {"done": state["n"]}

b = StateGraph(S)
b.add_node("emit", emit)
b.add_edge(START, "emit")
b.add_edge("emit", END)
g = b.compile()
server = AgentServer({"emit": g})

async def direct(n):
    t = time.perf_counter()
    count = 0
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    async for mode, chunk in g.astream({"n": n}, config, stream_mode=["custom", "values"]):
        count += mode == "custom"
    return count, time.perf_counter() - t

async def body(n):
    r = await server.handle(Request("POST", "/threads", {}, {"content-type": "application/json"}, b"{}"))
    tid = json.loads(r.body)["thread_id"]
    req = json.dumps({"assistant_id": "emit", "input": {"n": n}, "stream_mode": ["custom"]}).encode()
    t = time.perf_counter()
    r = await server.handle(Request("POST", f"/threads/{tid}/runs/stream", {}, {"content-type": "application/json"}, req))
    count = 0
    async for chunk in r.body:
        count += chunk.count(b"event: custom")
    return count, time.perf_counter() - t
`);
const host = module.serveAgentServer(pyodide, pyodide.globals.get("server"));
const fetch = module.createAgentServerFetch(host);
const sdkPath = resolve(distDir, "../../node_modules/@langchain/langgraph-sdk/dist/index.js");
const { Client } = await import(pathToFileURL(sdkPath).href);
const client = new Client({ apiUrl: "http://localhost:8123", callerOptions: { fetch } });

/** @param {string} name @returns {Promise<{ count: number, seconds: number, chunks?: number }>} */
const py = async (name) => {
  const out = (await pyodide.runPythonAsync(`await ${name}(${events})`)).toJs();
  return { count: out[0], seconds: out[1] };
};
const rawFetch = async () => {
  const thread = await client.threads.create();
  const t = performance.now();
  const res = await fetch(`http://localhost:8123/threads/${thread.thread_id}/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "emit", input: { n: events }, stream_mode: ["custom"] }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let count = 0;
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks += 1;
    count += value.split("event: custom").length - 1;
  }
  return { count, chunks, seconds: (performance.now() - t) / 1000 };
};
const sdk = async () => {
  const thread = await client.threads.create();
  const t = performance.now();
  let count = 0;
  for await (const part of client.runs.stream(thread.thread_id, "emit", {
    input: { n: events },
    streamMode: ["custom"],
  })) {
    if (part.event === "custom") count += 1;
  }
  return { count, chunks: undefined, seconds: (performance.now() - t) / 1000 };
};
const layers = { direct: () => py("direct"), body: () => py("body"), fetch: rawFetch, sdk };
/** @type {Record<string, { perSecond: number, chunks?: number }[]>} */
const results = Object.fromEntries(Object.keys(layers).map((k) => [k, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const [name, run] of Object.entries(layers)) {
    const r = await run();
    if (r.count !== events) throw new Error(`${name}: ${r.count} events, expected ${events}`);
    results[name].push({ perSecond: Math.round(r.count / r.seconds), chunks: r.chunks });
  }
}
process.stdout.write(JSON.stringify({ events, results }, null, 1) + "\n");
