// A turn is one run of the graph on a thread, streamed through the SDK (runs.stream): this
// module reads its events (metadata, updates, values, custom) and tells the page's handlers
// what they mean, as chat events: started, a node done, tokens, tools, records, a question
// or an approval, the answer, an error. A turn is cancelled by aborting its stream (the
// server cancels a run whose client leaves) and, once the run id is known, runs.cancel.

import {
  GRAPH_ID,
  client,
  errorText,
  markOnServer,
  onServerAlready,
  statusOf,
  threadState,
  workerLost,
} from "./api.js";
import { checkpointOf, pendingAt, pendingOf, transcript } from "./conversation.js";
import { requestHistory } from "./history.js";
import { announce, view } from "./store.js";

/**
 * What a turn sends: its input (null: go on from the checkpoint), or a resume command, and
 * the checkpoint it starts from (null: the thread's newest).
 * @typedef {{ input?: unknown, command?: unknown, checkpointId?: string | null, title: string,
 *   decisions?: boolean }} TurnRequest
 * The page's handlers, each given a chat event with the thread's id.
 * @typedef {(msg: { type: string, thread_id: string, [field: string]: unknown }) => void} Handler
 * What a turn's stream showed: a step ran, an error, decisions refused (with why), why the
 * graph failed (as a node said it before the run's error event), the last values streamed,
 * and whether the page was shown the question or approval the run stopped at.
 * @typedef {{ ran: boolean, failed: boolean, refused: string | null, failure: string | null,
 *   values: any, asked: { type: string, thread_id: string, [field: string]: unknown } | null }} Seen
 * @typedef {{ status: Handler, token: Handler, tool: Handler, inspect: Handler,
 *   needs_input: Handler, done: Handler, error: Handler }} TurnHandlers
 */

/** What the page reads of a run's stream: values for the state, updates for the nodes, custom
 * for tokens, tool lines and records. */
export const STREAM_MODES = ["values", "updates", "custom"];

/** How long the page reads a run's events before it lets the browser paint and take input. */
const SLICE_MS = 16;

/** @type {TurnHandlers} */
const handlers = {
  status: () => undefined,
  token: () => undefined,
  tool: () => undefined,
  inspect: () => undefined,
  needs_input: () => undefined,
  done: () => undefined,
  error: () => undefined,
};

/** @param {TurnHandlers} given each is also announced (store.js announce) */
export function initRuns(given) {
  for (const [name, handler] of Object.entries(given)) {
    /** @type {Record<string, Handler>} */ (/** @type {unknown} */ (handlers))[name] = (msg) => {
      handler(msg);
      announce(msg);
    };
  }
}

/** @type {(name: string) => boolean} which update keys are the graph's nodes */
let isNode = () => true;

/** @param {(name: string) => boolean} test */
export function setNodeTest(test) {
  isNode = test;
}

/**
 * The model settings a run takes (never an API key): set by the settings panel.
 * @type {Record<string, unknown> | null}
 */
let model = null;

/** @param {Record<string, unknown> | null} settings */
export function setRunModel(settings) {
  model = settings;
}

/**
 * The runs going on, by thread: their stream's controller, their run id once known, and
 * what settles once the turn has ended on the page (its run ended on the server).
 * @type {Map<string, { controller: AbortController, runId: string | null, cancelled: boolean,
 *   ended: Promise<void> }>}
 */
const running = new Map();

export const isRunning = (/** @type {string} */ threadId) => running.has(threadId);

/** @param {{ error?: unknown, message?: unknown }} data an error event's */
export function failureText(data) {
  const words = typeof data?.message === "string" ? data.message.trim() : "";
  if (words) return `The assistant could not go on: ${words}`;
  return `The assistant failed without saying why (${String(data?.error ?? "error")}).`;
}

/**
 * Runs one turn on the thread; resolves once the page has been told how it ended.
 * @param {string} threadId
 * @param {TurnRequest} request
 */
export async function runTurn(threadId, request) {
  // The card of a question or an approval shows as soon as its run streams it (it is stored
  // by then), a moment before that run has ended: an answer's turn starts after it.
  const before = running.get(threadId)?.ended;
  /** @type {() => void} */
  let settle = () => undefined;
  const turn = {
    controller: new AbortController(),
    runId: /** @type {string | null} */ (null),
    cancelled: false,
    /** @type {number | null} the deadline it ran past, in seconds */
    pastDeadline: null,
    ended: new Promise((resolve) => {
      settle = () => resolve(undefined);
    }),
  };
  running.set(threadId, turn);
  const base = { thread_id: threadId };
  /** @type {Seen} */
  const seen = {
    ran: false,
    failed: false,
    refused: null,
    failure: null,
    values: null,
    asked: null,
  };
  // However its model calls go, a turn ends by its deadline: past it, the run is cancelled
  // (its committed steps stay, and Retry goes on from them).
  const deadline = turnDeadline();
  const timer = setTimeout(() => {
    turn.pastDeadline = deadline;
    turn.cancelled = true;
    turn.controller.abort();
  }, deadline * 1000);
  try {
    if (before) await before;
    const api = await client();
    const from = request.checkpointId ?? null;
    let slice = performance.now();
    const payload = payloadOf(threadId, request, turn);
    for await (const part of api.runs.stream(threadId, GRAPH_ID, payload)) {
      if (turn.cancelled) break;
      read(part, base, turn, from, seen, request);
      // A flood of events is read in slices: between them the page paints and takes clicks
      // (Cancel), which a run of events resolved as microtasks would hold back.
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        slice = performance.now();
      }
    }
    if (turn.runId) markOnServer(threadId); // its run started: the thread is there
    if (turn.cancelled) await stopped(threadId, turn);
    else if (!seen.failed) await ending(threadId, seen, running.get(threadId) !== turn);
  } catch (error) {
    if (workerLost(error)) {
      // The page has said so and stopped the turn (boot.js onWorkerLost).
    } else if (turn.cancelled) {
      await stopped(threadId, turn);
    } else if (statusOf(error) === 409) {
      handlers.error({ ...base, type: "error", code: "thread_busy", message: "busy" });
    } else {
      const message = `The assistant could not go on: ${errorText(error)}`;
      handlers.error({ ...base, type: "error", message });
    }
  } finally {
    clearTimeout(timer);
    if (running.get(threadId) === turn) running.delete(threadId);
    settle();
  }
}

const TURN_DEADLINE_S = 600;

// The longest a turn may run: the model settings' turn_deadline_s (1 to 86,400 s), else 600 s.
function turnDeadline() {
  const given = model ? Number(model.turn_deadline_s) : NaN;
  return Number.isFinite(given) && given >= 1 && given <= 86400 ? given : TURN_DEADLINE_S;
}

/**
 * The body of the turn's run: its input or command, the checkpoint it starts from, the
 * modes streamed, the model (never a key); a client that leaves cancels it. A thread the
 * server may not have yet is made by its first run, with its title in its metadata (the
 * server adds the graph's id): no request of its own before the turn.
 * @param {string} threadId
 * @param {TurnRequest} request
 * @param {{ controller: AbortController }} turn
 */
function payloadOf(threadId, request, turn) {
  /** @type {Record<string, unknown>} */
  const payload = {
    streamMode: STREAM_MODES,
    onDisconnect: "cancel",
    multitaskStrategy: "reject",
    signal: turn.controller.signal,
  };
  if (!onServerAlready(threadId)) {
    payload.ifNotExists = "create";
    payload.metadata = { title: request.title };
  }
  if (model) payload.context = { model };
  if (request.command !== undefined) payload.command = request.command;
  else payload.input = request.input ?? null;
  if (request.checkpointId) payload.checkpointId = request.checkpointId;
  return payload;
}

/**
 * A cancelled turn: once its run has ended on the server, the page is told (an error for a
 * turn past its deadline, which Retry goes on).
 * @param {string} threadId
 * @param {{ runId: string | null, pastDeadline: number | null }} turn
 */
async function stopped(threadId, turn) {
  await settleCancel(threadId, turn);
  if (turn.pastDeadline !== null) {
    const message = `The turn ran past its deadline of ${turn.pastDeadline} s and was stopped.`;
    handlers.error({ type: "error", thread_id: threadId, message });
  } else {
    handlers.status({ type: "status", thread_id: threadId, stage: "cancelled" });
  }
}

/**
 * One event of the run's stream.
 * @param {{ event: string, data: any }} part
 * @param {{ thread_id: string }} base
 * @param {{ runId: string | null }} turn
 * @param {string | null} from
 * @param {Seen} seen
 * @param {TurnRequest} request
 */
function read(part, base, turn, from, seen, request) {
  const { event, data } = part;
  if (event === "metadata") {
    turn.runId = typeof data?.run_id === "string" ? data.run_id : null;
    handlers.status({
      ...base,
      type: "status",
      stage: "started",
      from_checkpoint: from,
      run_id: turn.runId,
    });
  } else if (event === "custom" && data && typeof data === "object") {
    seen.ran = true;
    if (typeof data.token === "string")
      handlers.token({ ...base, type: "token", token: data.token });
    else if (data.tool && typeof data.tool === "object")
      handlers.tool({ ...base, type: "tool", ...data.tool });
    else if (data.inspect && typeof data.inspect === "object")
      handlers.inspect({ ...base, type: "inspect", record: data.inspect });
    // Decisions the graph could not use: it asks again, and the card says why.
    else if (typeof data.refused === "string") seen.refused = data.refused;
    // A model's failure in its own words, which the run's error event withholds.
    else if (typeof data.error === "string") seen.failure = data.error;
  } else if (event === "values" && data && typeof data === "object") {
    seen.values = data;
    asked(data, base, seen);
  } else if (event === "updates" && data && typeof data === "object") {
    for (const node of Object.keys(data)) {
      if (node === "__interrupt__" || !isNode(node)) continue;
      seen.ran = true;
      handlers.status({ ...base, type: "status", stage: node });
    }
  } else if (event === "error" && data?.error === "ThreadBusyError") {
    // Another tab runs the thread (its Web Lock is held there): nothing was written.
    seen.failed = true;
    handlers.error({ ...base, type: "error", code: "thread_busy", message: failureText(data) });
  } else if (event === "error" && data?.error === "GraphVersionError") {
    // The thread was stored by another version of the assistant (a state key it lacks):
    // nothing ran, and the thread is shown read only.
    seen.failed = true;
    handlers.error({ ...base, type: "error", code: "other_version", message: failureText(data) });
  } else if (event === "error") {
    seen.failed = true;
    // A refused resume: nothing ran, so the card comes back with the server's words.
    const code = request.decisions && !seen.ran ? "bad_decision" : undefined;
    handlers.error({
      ...base,
      type: "error",
      message: failureText(seen.failure ? { ...data, message: seen.failure } : data),
      ...(code ? { code } : {}),
    });
  }
}

/**
 * A question or an approval the run streams (stored before it is streamed, with the values
 * of the thread then): its card and the thread's messages are shown at once, the first time,
 * without waiting for the run to end. The node that asked is not in the event: the history
 * read once the run has ended names it.
 * @param {any} values a values event's data
 * @param {{ thread_id: string }} base
 * @param {Seen} seen
 */
function asked(values, base, seen) {
  const interrupts = values.__interrupt__;
  if (seen.asked || !Array.isArray(interrupts) || !interrupts.length) return;
  seen.asked = {
    ...base,
    type: "needs_input",
    ...pendingOf(interrupts[0], null),
    checkpoint_id: null,
    refused: seen.refused,
    messages: transcript(Array.isArray(values.messages) ? values.messages : []),
  };
  handlers.needs_input(seen.asked);
}

/**
 * How the run left the thread: a question or an approval (with why its decisions were
 * refused), or the answer; from the last values it streamed (the thread's state then), or
 * read from the server when it streamed none. The thread's history, read afterwards, gives
 * the page its new head.
 * @param {string} threadId
 * @param {Seen} seen
 * @param {boolean} answered whether a turn after this one started (an answer to its card)
 */
async function ending(threadId, seen, answered) {
  if (seen.values === null) {
    await endingFromState(threadId, seen.refused);
    return;
  }
  if (answered) return;
  if (seen.asked) {
    // Shown already; again if a later event of the same run took it down.
    if (!view(threadId).pending) handlers.needs_input(seen.asked);
  } else {
    finishedWithAnswer(threadId, seen.values, null);
  }
  void requestHistory(threadId, null);
}

/**
 * The turn ended with an answer: the last one of the thread's messages in `values`.
 * @param {string} threadId
 * @param {any} values the thread's state values
 * @param {string | null} head the checkpoint they are at, when known
 */
function finishedWithAnswer(threadId, values, head) {
  const messages = Array.isArray(values?.messages) ? values.messages : [];
  const answers = transcript(messages).filter((e) => e.kind === "answer");
  handlers.done({
    type: "done",
    thread_id: threadId,
    text: answers.length ? answers[answers.length - 1].content : "",
    checkpoint_id: head,
  });
}

/**
 * How the run left the thread, read from its state (a run that streamed no values).
 * @param {string} threadId
 * @param {string | null} refused
 */
async function endingFromState(threadId, refused) {
  const state = await threadState(threadId);
  const head = checkpointOf(state) || null;
  const pending = pendingAt(state);
  if (pending.length) {
    handlers.needs_input({
      type: "needs_input",
      thread_id: threadId,
      ...pending[0],
      checkpoint_id: head,
      refused,
    });
    return;
  }
  finishedWithAnswer(threadId, state?.values, head);
}

/**
 * Waits for a cancelled run to end on the server, so that the next turn finds the thread free.
 * @param {string} threadId
 * @param {{ runId: string | null }} turn
 */
async function settleCancel(threadId, turn) {
  if (!turn.runId) return;
  const api = await client();
  try {
    await api.runs.cancel(threadId, turn.runId, true, "interrupt");
  } catch (error) {
    // A run that ended when its stream was aborted has nothing left to cancel.
    if (statusOf(error) === 404) return;
    const text = error instanceof Error ? error.message : String(error);
    handlers.error({
      type: "error",
      thread_id: threadId,
      message: `The run could not be stopped: ${text}`,
    });
  }
}

/** Cancels the thread's running turn. @param {string} threadId */
export function cancelRun(threadId) {
  const turn = running.get(threadId);
  if (!turn) return false;
  turn.cancelled = true;
  turn.controller.abort();
  return true;
}
