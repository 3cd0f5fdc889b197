// A thread's state (idle, running, waiting, done, ...): its sidebar badge, and for the active
// thread the composer's buttons and the status line.

import { $, child } from "./dom.js";
import { active, app, view } from "./store.js";

/** @import { View } from "./store.js" */

/** @type {Record<string, string>} Status stages name the node that has just finished. */
export const STAGE_LABELS = {
  started: "Reading your request",
  intake: "Checking what is needed",
  enrich: "Planning",
  plan: "Writing the answer",
  respond: "Finishing",
};

// The one name of the state where the assistant waits for the person (a question or an
// approval): the sidebar badge, the status line, the cards, the tool lines and the graph say it.
export const WAITING = "Waiting for you";

/** @type {Record<string, string>} */
export const STATE_LABELS = {
  idle: "",
  running: "Working",
  waiting: WAITING,
  done: "Done",
  cancelled: "Cancelled",
  error: "Error",
  busy: "In another tab",
  outdated: "Read only",
  unfinished: "Not finished",
};

// What the Continue (or Retry) button does: set by the page (turns.js continueTurn).
/** @type {{ continueTurn(): void }} */
const hooks = { continueTurn: () => undefined };

/** @param {{ continueTurn(): void }} actions */
export function initControls(actions) {
  Object.assign(hooks, actions);
}

// The button that runs a turn that stopped before its end on from its last checkpoint:
// "Continue" after a reload cut it, "Retry" after an error. Made once, beside the status line.
function continueButton() {
  const made = document.getElementById("continue-turn");
  if (made) return made;
  const el = document.createElement("button");
  el.type = "button";
  el.id = "continue-turn";
  el.className = "ghost-button small-button";
  el.hidden = true;
  el.addEventListener("click", () => hooks.continueTurn());
  $("turn-status").after(el);
  return el;
}

/** @param {string} threadId @param {string} state */
export function setState(threadId, state) {
  const v = view(threadId);
  v.state = state;
  const li = document.querySelector(`#thread-list li[data-thread-id="${CSS.escape(threadId)}"]`);
  if (li instanceof HTMLElement) {
    li.dataset.threadState = state;
    child(li, ".thread-state").textContent = STATE_LABELS[state] || "";
  }
  if (threadId === app.activeId) renderControls();
}

/** @param {View} v */
function statusText(v) {
  switch (v.state) {
    case "running":
      return `${STAGE_LABELS[v.stage ?? ""] || v.stage || "Working"}…`;
    case "waiting":
      return `${WAITING}: ${v.pending?.kind === "approval" ? "decide on the action below" : "answer the question below"}.`;
    case "done":
      return "Answered.";
    case "cancelled":
      return "Cancelled.";
    case "error":
      return v.unfinished
        ? "Stopped by an error: retry it, or edit your message."
        : "Stopped by an error.";
    case "unfinished":
      return "This turn did not finish: its answer is not written yet.";
    case "busy":
      return "This chat is running in another tab: it refreshes when that tab is done.";
    case "outdated":
      return v.notice || "";
    default:
      return "";
  }
}

export function renderControls() {
  const v = active();
  const state = v.state;
  $("transcript").dataset.threadState = state;
  document.body.dataset.threadState = state;
  const running = state === "running";
  const waiting = state === "waiting";
  $("cancel-turn").hidden = !running;
  $("send", HTMLButtonElement).disabled =
    running || waiting || state === "busy" || state === "outdated";
  $("chat-input", HTMLTextAreaElement).placeholder = waiting
    ? v.pending?.kind === "approval"
      ? "Decide on the action above first"
      : "Answer the question above first"
    : running
      ? "The assistant is working…"
      : "Message the assistant";
  $("turn-status").textContent = statusText(v);
  const again = continueButton();
  again.hidden = !(state === "unfinished" || (state === "error" && v.unfinished));
  again.textContent = state === "error" ? "Retry" : "Continue";
}
