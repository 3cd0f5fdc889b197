// The agent-server bench in the page: a run streamed through createAgentServerFetch to the
// server in a Web Worker, against the worker streaming the same graph directly on a message.
import { createAgentServerFetch } from "/pyctx_web.mjs";

/**
 * Milliseconds of each round's run both ways, in turns; the first of each is a warm-up.
 * @param {number} steps
 * @param {number} rounds
 * @returns {Promise<{api: number[], direct: number[]}>}
 */
export async function measure(steps, rounds) {
  const worker = new Worker(`./server_worker.mjs?steps=${steps}`, { type: "module" });
  await new Promise((resolve, reject) => {
    worker.onmessage = (event) =>
      event.data.type === "ready" ? resolve(undefined) : reject(new Error(event.data.message));
    worker.onerror = (event) => reject(new Error(event.message));
  });
  const fetch = createAgentServerFetch(worker);
  const headers = { "content-type": "application/json" };
  const api = async () => {
    const created = await fetch("http://localhost/threads", {
      method: "POST",
      headers,
      body: "{}",
    });
    const { thread_id: threadId } = await created.json();
    const body = JSON.stringify({
      assistant_id: "loop",
      input: { n: 0 },
      stream_mode: ["values"],
      config: { recursion_limit: steps + 5 },
    });
    const url = `http://localhost/threads/${threadId}/runs/stream`;
    const response = await fetch(url, { method: "POST", headers, body });
    if (response.body === null) throw new Error(`no stream: ${response.status}`);
    const reader = response.body.getReader();
    while (!(await reader.read()).done);
  };
  let next = 0;
  /** @type {Map<number, () => void>} */
  const waiting = new Map();
  worker.onmessage = (event) => {
    if (event.data.type === "done") waiting.get(event.data.id)?.();
  };
  const direct = () =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, () => resolve(undefined));
      worker.postMessage({ type: "direct", id });
    });
  /** @param {() => Promise<unknown>} fn */
  const timed = async (fn) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const result = { api: /** @type {number[]} */ ([]), direct: /** @type {number[]} */ ([]) };
  await timed(api);
  await timed(direct);
  for (let round = 0; round < rounds; round++) {
    if (round % 2) {
      result.direct.push(await timed(direct));
      result.api.push(await timed(api));
    } else {
      result.api.push(await timed(api));
      result.direct.push(await timed(direct));
    }
  }
  worker.terminate();
  return result;
}
