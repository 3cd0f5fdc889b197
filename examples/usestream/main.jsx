// A React page on LangGraph's own hook, useStream, talking to the LangGraph Server API.
//
// By default the server is pyctx_web's, running in this page's Web Worker (worker.js): the
// SDK's requests reach it through createAgentServerFetch, a function with fetch's contract
// given to useStream as callerOptions.fetch. With ?api=URL the same page talks to the
// LangGraph Server at URL instead (`langgraph dev` serving graph.py, with langgraph.json).
import { useState, useSyncExternalStore } from "react";
import { createRoot } from "react-dom/client";
import { useStream } from "@langchain/langgraph-sdk/react";
import { createAgentServerFetch } from "/pyctx_web.mjs";

const ASSISTANT = "agent";
const api = new URLSearchParams(location.search).get("api");

/**
 * Where the SDK sends its requests, and how; with the in-page server, the worker's start as
 * it reports it (listened to from the moment the worker exists, so no report is missed).
 * @returns {{ apiUrl: string, callerOptions?: { fetch: typeof fetch }, worker?: WorkerStart }}
 */
function connection() {
  if (api) return { apiUrl: api };
  const worker = new Worker(new URL("./worker.js", location.href), { type: "module" });
  // The requests never leave the page: createAgentServerFetch hands their path to the worker's
  // server and ignores the origin, so the URL is a reserved name that resolves nowhere.
  const apiUrl = "http://in-page.invalid";
  return { apiUrl, callerOptions: { fetch: createAgentServerFetch(worker) }, worker: watch(worker) };
}

/**
 * @typedef {{ ready: boolean, label?: string, failed?: string }} StartState
 * @typedef {{ current: () => StartState, subscribe: (listener: () => void) => () => void }} WorkerStart
 */

/**
 * The start of `worker` as its messages say: status labels, then ready or failed.
 * @param {Worker} worker
 * @returns {WorkerStart}
 */
function watch(worker) {
  /** @type {StartState} */
  let state = { ready: false, label: "Starting Python…" };
  const listeners = new Set();
  worker.addEventListener("message", (event) => {
    const data = event.data;
    if (data?.type === "status") state = { ready: false, label: data.label };
    else if (data?.type === "ready") state = { ready: true };
    else if (data?.type === "failed") state = { ready: false, failed: data.message };
    else return; // the server's own traffic travels on ports of its own, never here
    for (const listener of listeners) listener();
  });
  return {
    current: () => state,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// Made once: useStream makes a new Client whenever callerOptions is a new object.
const CONNECTION = connection();
const READY = { ready: true };
const NO_WORKER = { current: () => READY, subscribe: () => () => {} };

/** Whether the server answers yet (at once with ?api=), and what the worker is doing. */
function useServerReady() {
  const start = CONNECTION.worker ?? NO_WORKER;
  return useSyncExternalStore(start.subscribe, start.current);
}

/**
 * The thread shown, kept in the page's address (?thread=ID) so that a reload shows it again.
 * @returns {[string | null, (id: string | null) => void]}
 */
function useThreadInAddress() {
  const [threadId, setThreadId] = useState(() =>
    new URLSearchParams(location.search).get("thread"),
  );
  const choose = (id) => {
    const url = new URL(location.href);
    if (id) url.searchParams.set("thread", id);
    else url.searchParams.delete("thread");
    history.replaceState(null, "", url);
    setThreadId(id);
  };
  return [threadId, choose];
}

/** A message's text: a string content, or the text parts of a list content. */
function textOf(message) {
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : (part.text ?? ""))).join("");
  }
  return "";
}

const ROLES = { human: "You", ai: "Assistant", tool: "Tool" };

function Message({ message }) {
  const text = textOf(message);
  const calls = message.tool_calls ?? [];
  return (
    <li className={`message ${message.type}`} data-type={message.type}>
      <span className="role">{ROLES[message.type] ?? message.type}</span>
      {message.type === "tool" && <span className="tool-name">{message.name}</span>}
      {text && <span className="text">{text}</span>}
      {calls.map((call) => (
        <span className="call" key={call.id ?? call.name}>
          {call.name}({JSON.stringify(call.args)})
        </span>
      ))}
    </li>
  );
}

/** One action of a human-in-the-loop request, with a button for each decision it allows. */
function ActionCard({ request, config, decide, disabled }) {
  const [answer, setAnswer] = useState("");
  const allowed = config?.allowed_decisions ?? [];
  const respond = allowed.includes("respond");
  return (
    <section className="card" data-action={request.name}>
      <h2>{respond ? "The assistant asks" : "Approve this action?"}</h2>
      {request.description && <p className="description">{request.description}</p>}
      {respond ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (answer.trim()) decide({ type: "respond", message: answer.trim() });
          }}
        >
          <label>
            <span className="question">{request.args?.question}</span>
            <input
              value={answer}
              onChange={(event) => setAnswer(event.target.value)}
              disabled={disabled}
              aria-label="Your answer"
            />
          </label>
          <button type="submit" disabled={disabled || !answer.trim()}>
            Answer
          </button>
        </form>
      ) : (
        <>
          <pre className="args">
            {request.name} {JSON.stringify(request.args, null, 2)}
          </pre>
          <div className="decisions">
            {allowed.includes("approve") && (
              <button disabled={disabled} onClick={() => decide({ type: "approve" })}>
                Approve
              </button>
            )}
            {allowed.includes("reject") && (
              <button disabled={disabled} onClick={() => decide({ type: "reject" })}>
                Reject
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}

/** The pending interrupt: a HITL request's cards, or its value as JSON for any other shape. */
function Interrupt({ interrupt, resume, disabled }) {
  const value = interrupt.value;
  if (!value || !Array.isArray(value.action_requests)) {
    return (
      <section className="card">
        <h2>The graph paused</h2>
        <pre>{JSON.stringify(value ?? interrupt, null, 2)}</pre>
      </section>
    );
  }
  const configs = value.review_configs ?? [];
  return value.action_requests.map((request, index) => (
    <ActionCard
      key={`${interrupt.id}-${index}`}
      request={request}
      config={configs.find((config) => config.action_name === request.name)}
      disabled={disabled}
      decide={(decision) => resume({ decisions: [decision] })}
    />
  ));
}

function Composer({ send, disabled }) {
  const [text, setText] = useState("");
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (!text.trim()) return;
        send(text.trim());
        setText("");
      }}
    >
      <input
        value={text}
        onChange={(event) => setText(event.target.value)}
        placeholder="Ask the assistant to send the weekly report"
        aria-label="Message"
        disabled={disabled}
      />
      <button type="submit" disabled={disabled || !text.trim()}>
        Send
      </button>
    </form>
  );
}

function App() {
  const server = useServerReady();
  const [threadId, setThreadId] = useThreadInAddress();
  const stream = useStream({
    apiUrl: CONNECTION.apiUrl,
    callerOptions: CONNECTION.callerOptions,
    assistantId: ASSISTANT,
    messagesKey: "messages",
    // Read only once the worker's server answers: it cannot take requests before.
    threadId: server.ready ? threadId : null,
    onThreadId: setThreadId,
  });
  const interrupt = stream.interrupt;
  const busy = !server.ready || stream.isLoading;
  const outbox = stream.values?.outbox ?? [];
  return (
    <main>
      <header>
        <h1>useStream on pyctx_web</h1>
        <p className="server" data-server={api ? "remote" : "in-page"}>
          {api ? `LangGraph Server at ${api}` : "In-page server: pyctx_web in a Web Worker"}
        </p>
        <p className="status" role="status">
          {server.failed
            ? `The worker stopped: ${server.failed}`
            : !server.ready
              ? server.label
              : stream.isLoading
                ? "Streaming…"
                : interrupt
                  ? "Waiting for you"
                  : "Ready"}
        </p>
        <button
          className="new-thread"
          disabled={busy || threadId == null}
          onClick={() => setThreadId(null)}
        >
          New thread
        </button>
      </header>
      <ol className="messages" aria-label="Messages">
        {stream.messages.map((message, index) => (
          <Message key={message.id ?? index} message={message} />
        ))}
      </ol>
      {interrupt && !stream.isLoading && (
        <Interrupt
          interrupt={interrupt}
          disabled={busy}
          resume={(value) => stream.submit(undefined, { command: { resume: value } })}
        />
      )}
      {stream.error != null && (
        <p className="error" role="alert">
          {String(stream.error?.message ?? stream.error)}
        </p>
      )}
      {outbox.length > 0 && (
        <section className="outbox">
          <h2>Sent</h2>
          <ul>
            {outbox.map((mail, index) => (
              <li key={index}>
                {mail.subject} to {mail.to}
              </li>
            ))}
          </ul>
        </section>
      )}
      <Composer
        disabled={busy || Boolean(interrupt)}
        send={(text) => stream.submit({ messages: [{ type: "human", content: text }] })}
      />
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
