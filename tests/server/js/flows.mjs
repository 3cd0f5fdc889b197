// Client flows written with LangGraph's JavaScript SDK (@langchain/langgraph-sdk's Client), run
// by Node against one server. Each exchange the SDK makes is recorded by the fetch given to the
// Client (callerOptions.fetch) and written as one JSON line; tests/server/js_flows.py reads them
// into the server tier's transcripts.
//
//   node tests/server/js/flows.mjs BASE_URL FLOW TAG OUTPUT.jsonl
//
// TAG goes into the metadata of the threads a flow makes. Waiting for a run to reach a step is
// done by a second Client that records nothing (how many polls it takes varies).
import { writeFileSync } from "node:fs";
import { Client } from "@langchain/langgraph-sdk";

const SELECTED_HEADERS = ["content-type", "content-location", "location"];

/** A fetch that records each request and its response (JSON or event-stream text). */
function recordingFetch(records) {
  return async (input, init = {}) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const bodyText = init.body === undefined || init.body === null ? null : String(init.body);
    const lastEventId = request.headers.get("last-event-id");
    const record = {
      method: request.method,
      path: url.pathname + url.search,
      body: bodyText === null || bodyText === "" ? null : JSON.parse(bodyText),
      request_headers: lastEventId === null ? {} : { "last-event-id": lastEventId },
    };
    records.push(record);
    const response = await fetch(input, init);
    record.status = response.status;
    record.headers = Object.fromEntries(
      SELECTED_HEADERS.filter((name) => response.headers.has(name)).map((name) => [
        name,
        response.headers.get(name),
      ]),
    );
    // The copy is read to its end while the SDK reads the original.
    record.done = response
      .clone()
      .text()
      .then(
        (text) => {
          record.text = text;
        },
        (error) => {
          record.text = "";
          record.read_error = String(error);
        },
      );
    return response;
  };
}

async function waitFor(check, limitMs = 30000) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error("the awaited state never came");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function drain(stream) {
  const parts = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const QUESTION = { messages: [{ role: "user", content: "hello", id: "question" }] };

const FLOWS = {
  /** A useStream-like chat turn: a thread, a run streamed to an interrupt, state, resume, history. */
  async chat_interrupt({ client, tag }) {
    await client.assistants.search({ graphId: "chat" });
    const thread = await client.threads.create({ metadata: { flow: tag } });
    const modes = ["values", "updates", "messages-tuple"];
    await drain(
      client.runs.stream(thread.thread_id, "chat", {
        input: QUESTION,
        streamMode: modes,
        streamSubgraphs: true,
      }),
    );
    const state = await client.threads.getState(thread.thread_id);
    const [interrupt] = state.tasks[0].interrupts;
    await drain(
      client.runs.stream(thread.thread_id, "chat", {
        command: { resume: { [interrupt.id]: "weather" } },
        streamMode: modes,
      }),
    );
    await client.threads.getHistory(thread.thread_id, { limit: 10 });
    await client.threads.get(thread.thread_id);
    await client.threads.search({ metadata: { flow: tag } });
  },

  /** Breakpoints, an edit as a node, a branch from an earlier checkpoint, history pages. */
  async edit_and_branch({ client, tag }) {
    const thread = await client.threads.create({ metadata: { flow: tag } });
    const tid = thread.thread_id;
    await client.runs.wait(tid, "steps", { input: { steps: ["in"] }, interruptBefore: ["c"] });
    await client.threads.updateState(tid, { values: { steps: ["edit"] }, asNode: "b" });
    await client.runs.wait(tid, "steps", { input: null });
    const history = await client.threads.getHistory(tid, { limit: 3 });
    await client.threads.getHistory(tid, {
      limit: 3,
      before: { configurable: history[2].checkpoint },
    });
    const all = await client.threads.getHistory(tid, { limit: 20 });
    const afterA = all.find((item) => item.next.length === 1 && item.next[0] === "b");
    await drain(
      client.runs.stream(tid, "steps", {
        input: null,
        checkpoint: afterA.checkpoint,
        streamMode: ["values", "checkpoints"],
      }),
    );
    await client.threads.getState(tid);
  },

  /** A background run joined by stream, cancelled, rejected on a busy thread, then joined. */
  async background_control({ client, quiet, tag }) {
    const thread = await client.threads.create({ metadata: { flow: tag } });
    const tid = thread.thread_id;
    const input = { steps: [], delay: 1.0 };
    // Run number `n` is in its waiting step: `n` begin steps committed, `wait` next.
    const waiting = (n) =>
      waitFor(async () => {
        const state = await quiet.threads.getState(tid);
        const begun = (state.values?.steps ?? []).filter((step) => step === "begin").length;
        return begun === n && state.next.join() === "wait";
      });
    const first = await client.runs.create(tid, "slow", { input });
    await waiting(1);
    await client.runs.cancel(tid, first.run_id, true, "interrupt");
    await client.runs.get(tid, first.run_id);
    const second = await client.runs.create(tid, "slow", { input });
    await waiting(2);
    try {
      await client.runs.create(tid, "steps", { input: {}, multitaskStrategy: "reject" });
    } catch {
      // The 409 is in the transcript; the SDK throws it.
    }
    await drain(client.runs.joinStream(tid, second.run_id, { streamMode: ["values"] }));
    await client.runs.join(tid, second.run_id);
    await client.runs.list(tid);
    await client.threads.get(tid);
  },

  /** A resumable stream, replayed from the start by joinStream with lastEventId "-1". */
  async resumable({ client, tag }) {
    const thread = await client.threads.create({ metadata: { flow: tag } });
    const tid = thread.thread_id;
    let runId = null;
    await drain(
      client.runs.stream(tid, "slow", {
        input: { steps: [], delay: 0.2 },
        // One mode: the real server's event ids are milliseconds, shared by events sent in
        // the same one (an updates event and its values event), which pyctx_web never does.
        streamMode: ["values"],
        streamResumable: true,
        onRunCreated: (meta) => {
          runId = meta.run_id;
        },
      }),
    );
    await drain(client.runs.joinStream(tid, runId, { lastEventId: "-1" }));
    await client.runs.get(tid, runId);
  },

  /** Stateless runs (no thread): waited for and streamed; an unknown assistant; a raising graph. */
  async stateless_and_errors({ client, tag }) {
    await client.runs.wait(null, "steps", { input: { steps: [] } });
    await drain(client.runs.stream(null, "steps", { input: { steps: [] }, streamMode: "updates" }));
    const thread = await client.threads.create({ metadata: { flow: tag } });
    try {
      await client.runs.wait(thread.thread_id, "missing", { input: {} });
    } catch {
      // The 422 is in the transcript; the SDK throws it.
    }
    await drain(client.runs.stream(thread.thread_id, "fails", { input: { count: 0 } }));
    await client.threads.get(thread.thread_id);
  },
};

async function main() {
  const [baseUrl, name, tag, output] = process.argv.slice(2);
  const flow = FLOWS[name];
  if (!flow || !output) {
    console.error(`usage: flows.mjs BASE_URL FLOW TAG OUTPUT; flows: ${Object.keys(FLOWS)}`);
    process.exit(2);
  }
  const records = [];
  const client = new Client({
    apiUrl: baseUrl,
    callerOptions: { fetch: recordingFetch(records), maxRetries: 0 },
  });
  const quiet = new Client({ apiUrl: baseUrl, callerOptions: { maxRetries: 0 } });
  let failure = null;
  try {
    await flow({ client, quiet, tag });
  } catch (error) {
    failure = String(error);
  }
  await Promise.all(records.map((record) => record.done));
  const lines = records.map(({ done: _done, ...record }) => JSON.stringify(record));
  if (failure !== null) lines.push(JSON.stringify({ stopped: failure }));
  writeFileSync(output, lines.map((line) => `${line}\n`).join(""));
}

await main();
