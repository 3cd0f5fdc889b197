// A thread's history as the page shows it: read from the server (threads.getHistory), seen
// from the checkpoint the page shows (its head; null: the newest), and given to the page's
// history handler with its entries, branches, pending card, records and runs. Only the
// newest request of a thread is shown: an older answer that arrives late is dropped.

import { graphNodes, loadTree, statusOf, workerLost } from "./api.js";
import { threadView } from "./conversation.js";
import { announce, headOf } from "./store.js";

/** @typedef {import("./conversation.js").Tree} Tree */

/** @type {(msg: { type: string, thread_id: string, [field: string]: unknown }) => void} */
let onHistory = () => undefined;
/** @type {(text: string) => void} */
let onFailure = () => undefined;

/**
 * @param {typeof onHistory} handler
 * @param {typeof onFailure} failed what the page says when a history cannot be read
 */
export function initHistory(handler, failed) {
  onHistory = handler;
  onFailure = failed;
}

/** What the page says of a thread that another version of the assistant saved. */
export const OTHER_VERSION =
  "This chat was saved by another version of the assistant: it can be read but not continued. " +
  "Start a new chat to go on.";

/**
 * Whether the checkpoint waits in nodes this graph does not have (a thread saved by another
 * version of the assistant: shown, never continued). State keys of another version do not
 * count: the graph reads only its own keys, as LangGraph's does, so such a thread goes on.
 * @param {import("./conversation.js").Snapshot | undefined} state
 */
async function otherVersion(state) {
  if (!state || !Array.isArray(state.next) || state.next.length === 0) return false;
  let known;
  try {
    known = await graphNodes();
  } catch {
    return false; // a server that describes no graph: every thread is taken as this graph's
  }
  return Boolean(known && state.next.some((n) => !known.has(String(n))));
}

/**
 * The view of the tree from `head`, with the notice of another version's thread.
 * @param {Tree} tree
 * @param {string | null} head
 */
async function shown(tree, head) {
  const view = threadView(tree, head);
  if (!view) return EMPTY;
  const state = tree.byId.get(view.checkpoint_id);
  if (!(await otherVersion(state))) return view;
  return { ...view, pending: null, unfinished: false, notice: OTHER_VERSION };
}

const EMPTY = {
  checkpoint_id: null,
  messages: [],
  pending: null,
  trace: [],
  runs: [],
  unfinished: false,
};

/**
 * The thread's history as stored now, seen from `checkpointId` (default: its newest), as the
 * page draws it (the end-to-end tests read it as window.__demo.history).
 * @param {string} threadId
 * @param {string | null} [checkpointId]
 */
export async function readHistory(threadId, checkpointId = null) {
  const tree = await loadTree(threadId);
  const head = checkpointId && tree.byId.has(checkpointId) ? checkpointId : null;
  return { type: "history", thread_id: threadId, ...(await shown(tree, head)), tree };
}

/** @type {Map<string, number>} the newest request of each thread */
const asked = new Map();
/** @type {Map<string, Tree>} the tree each thread's newest history was read from */
const trees = new Map();

/** The checkpoint tree of the thread as last read (edits find their fork point in it). @param {string} threadId */
export const treeOf = (threadId) => trees.get(threadId) ?? null;

/**
 * Reads the thread's history and shows it from `checkpointId` (default: the page's head).
 * @param {string} threadId
 * @param {string | null} [checkpointId]
 */
export function requestHistory(threadId, checkpointId = headOf(threadId)) {
  const number = (asked.get(threadId) ?? 0) + 1;
  asked.set(threadId, number);
  const read = async () => {
    const tree = await loadTree(threadId);
    // A head the thread no longer has (another tab deleted a branch's run): its newest.
    const head = checkpointId && tree.byId.has(checkpointId) ? checkpointId : null;
    return { tree, view: await shown(tree, head) };
  };
  return read().then(
    ({ tree, view }) => {
      if (asked.get(threadId) !== number) return;
      trees.set(threadId, tree);
      const msg = { type: "history", thread_id: threadId, ...view };
      onHistory(msg);
      announce(msg);
    },
    (error) => {
      // A lost worker's read: its replacement reads the thread again (boot.js onWorkerBack).
      if (asked.get(threadId) !== number || workerLost(error)) return;
      const status = statusOf(error);
      onFailure(
        `This chat could not be read${status ? ` (the server answered ${status})` : ""}: ${error instanceof Error ? error.message : String(error)}`,
      );
    },
  );
}
