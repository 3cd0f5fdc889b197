// Module worker of the agent-server bench: Pyodide, pyctx_web and an N-step graph served with
// serveAgentServer, and the same graph streamed directly on request ({type: "direct"}).
import { loadPyodide } from "/pyodide/pyodide.mjs";

const base = new URL("/pyodide/", location.href).href;
const steps = Number(new URL(location.href).searchParams.get("steps") ?? "50");

const GRAPH = `
import uuid
from typing import TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.server import AgentServer


class Counter(TypedDict):
    n: int


async def step(state: Counter) -> dict[str, int]:
    return {"n": state["n"] + 1}


def again(state: Counter) -> str:
    return "step" if state["n"] < STEPS else END


graph = (
    StateGraph(Counter)
    .add_node("step", step)
    .add_edge(START, "step")
    .add_conditional_edges("step", again)
    .compile(checkpointer=InMemorySaver())
)
server = AgentServer({"loop": graph})


async def direct() -> None:
    config = {"configurable": {"thread_id": str(uuid.uuid4())}, "recursion_limit": STEPS + 5}
    async for _ in graph.astream({"n": 0}, config, stream_mode="values"):
        pass
`;

try {
  const pyodide = await loadPyodide({ indexURL: base, packageBaseUrl: base });
  await pyodide.loadPackage("pyctx-web", { messageCallback: () => {} });
  const module = await import("/pyctx_web.mjs");
  pyodide.registerJsModule("pyctx_web_js", module);
  pyodide.globals.set("STEPS", steps);
  await pyodide.runPythonAsync(GRAPH);
  module.serveAgentServer(pyodide, pyodide.globals.get("server"));
  const direct = pyodide.globals.get("direct");
  addEventListener("message", async (event) => {
    if (event.data?.type !== "direct") return; // the agent server's requests have their own type
    await direct();
    postMessage({ type: "done", id: event.data.id });
  });
  postMessage({ type: "ready" });
} catch (error) {
  postMessage({ type: "fatal", message: String(error instanceof Error ? error.stack : error) });
}
