// LangGraph's own React hook, useStream, in a jsdom document under Node, holding a conversation
// with the useStream example's graph (examples/usestream/graph.py) on the server at a URL.
//
// usage: node tests/server/react/conversation.mjs BASE_URL
//
// The hook is the real one (@langchain/langgraph-sdk/react, as package-lock.json pins it),
// rendered by react-dom/client into a jsdom document; its requests go over real HTTP with
// Node's fetch. Each step of the conversation is a submit (a message, or a resume of the
// pending interrupt); when the step has settled (the submit resolved and the hook no longer
// loading) the hook's state is recorded: values, messages, interrupt, error. Every render
// during the step is kept too, as the text of the step's new AI message then last, to show
// what streamed.
// Prints one JSON object: {steps: [{name, settled, streamed}]}.
import console from "node:console";
import process from "node:process";
import { clearTimeout, setTimeout } from "node:timers";
import { JSDOM } from "jsdom";

const BASE_URL = process.argv[2];
if (!BASE_URL || process.argv.length !== 3) {
  console.error("usage: node tests/server/react/conversation.mjs BASE_URL");
  process.exit(2);
}
const SETTLE_LIMIT_MS = 60_000; // a step that never settles fails the run, naming the step

// React and the hook look for a DOM when they load: the document comes first.
const dom = new JSDOM('<!doctype html><html><body><div id="root"></div></body></html>', {
  url: "http://localhost/",
});
globalThis.window = dom.window;
globalThis.document = dom.window.document;
globalThis.navigator = dom.window.navigator;
globalThis.HTMLElement = dom.window.HTMLElement;

const { createElement } = await import("react");
const { createRoot } = await import("react-dom/client");
const { useStream } = await import("@langchain/langgraph-sdk/react");

const HUMAN = (content) => ({ messages: [{ type: "human", content }] });
const RESUME = (decision) => ({ command: { resume: { decisions: [decision] } } });

/** The conversation: two turns, the first approved, the second rejected; while the first
 * question waits, the page "reloads": a new hook is mounted on the thread, which it reads. */
const STEPS = [
  { name: "ask", values: HUMAN("Please send the weekly report") },
  { name: "reload", reload: true },
  { name: "answer", options: RESUME({ type: "respond", message: "ana@example.com" }) },
  { name: "approve", options: RESUME({ type: "approve" }) },
  { name: "ask again", values: HUMAN("Send it to Bo too") },
  { name: "answer again", options: RESUME({ type: "respond", message: "bo@example.com" }) },
  { name: "reject", options: RESUME({ type: "reject", message: "Not today." }) },
];

/** The JSON form of a value as it is now (the hook's objects may change later). */
const copy = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

let latest = null; // the hook's handle at the last render
const renders = []; // the state of every render of the current step
let onRender = () => {};

let before = new Set(); // the ids of the messages shown when the current step began
let threadId = null; // the thread the hook made at its first submit

function Recorder({ thread }) {
  const options = { apiUrl: BASE_URL, assistantId: "agent", messagesKey: "messages" };
  // The first hook makes the thread; the one mounted by a reload is given it.
  if (thread) options.threadId = thread;
  else options.onThreadId = (id) => (threadId = id);
  const stream = useStream(options);
  latest = stream;
  const last = stream.messages.at(-1);
  const fresh = last != null && last.type === "ai" && !before.has(last.id);
  renders.push({ text: fresh ? last.content : null });
  onRender();
  return null;
}

/** Resolves once check() holds after a render; rejects after SETTLE_LIMIT_MS. */
function until(check, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: not settled in ${SETTLE_LIMIT_MS} ms`)),
      SETTLE_LIMIT_MS,
    );
    const test = () => {
      if (!check()) return;
      clearTimeout(timer);
      onRender = () => {};
      resolve();
    };
    onRender = test;
    test();
  });
}

function settledState() {
  return {
    isLoading: latest.isLoading,
    values: copy(latest.values),
    messages: copy(latest.messages),
    interrupt: copy(latest.interrupt),
    error: latest.error == null ? null : String(latest.error?.message ?? latest.error),
  };
}

/** The distinct texts that the step's new AI messages showed as the last message, in order. */
function streamedTexts() {
  const texts = [];
  for (const render of renders) {
    const text = render.text;
    if (typeof text === "string" && text && texts.at(-1) !== text) texts.push(text);
  }
  return texts;
}

const container = dom.window.document.getElementById("root");
let root = createRoot(container);
root.render(createElement(Recorder, { thread: null }));
await until(() => latest != null && !latest.isLoading, "mount");
const steps = [{ name: "mount", settled: settledState(), streamed: [] }];
for (const step of STEPS) {
  renders.length = 0;
  before = new Set(latest.messages.map((message) => message.id));
  if (step.reload) {
    root.unmount();
    latest = null;
    root = createRoot(container);
    root.render(createElement(Recorder, { thread: threadId }));
    await until(() => latest != null && !latest.isLoading && !latest.isThreadLoading, step.name);
  } else {
    await latest.submit(step.values, step.options);
    await until(() => !latest.isLoading, step.name);
  }
  steps.push({ name: step.name, settled: settledState(), streamed: streamedTexts() });
}
root.unmount();
process.stdout.write(JSON.stringify({ steps }) + "\n");
