// The transcript of the active thread: its entries, and the answer being streamed.

import { $, atNextFrame, child } from "./dom.js";
import { bubble, entryElement } from "./entries.js";
import { app, view } from "./store.js";

/** @import { Entry } from "./store.js" */

function scrollNow() {
  const transcript = $("transcript");
  transcript.scrollTop = transcript.scrollHeight;
}

let scrollQueued = false;

// Scrolled to its end once per frame, however many entries came: reading the height in each
// message's handler would lay the page out once per message.
export function scrollToEnd() {
  if (scrollQueued) return;
  scrollQueued = true;
  atNextFrame(() => {
    scrollQueued = false;
    scrollNow();
  });
}

export function renderTranscript() {
  const v = view(app.activeId);
  const transcript = $("transcript");
  const editing = openEditor(transcript);
  transcript.replaceChildren();
  app.streamingEl = null;
  for (const entry of v.messages) transcript.append(entryElement(entry));
  if (v.streaming !== null) startStreamingBubble(v.streaming);
  if (!v.messages.length && v.streaming === null) {
    const hint = document.createElement("p");
    hint.className = "empty-hint";
    hint.id = "empty-hint";
    hint.textContent = "Ask for something, for example “help me with email”.";
    transcript.append(hint);
  }
  if (editing) reopenEditor(transcript, editing);
  if (!editing?.focused) scrollToEnd();
}

/**
 * The message editor open in the transcript, if any: its message's id, its text and cursor.
 * @param {HTMLElement} transcript
 */
function openEditor(transcript) {
  const text = transcript.querySelector(".msg-editor textarea");
  const id = text?.closest(".msg")?.getAttribute("data-id");
  if (!(text instanceof HTMLTextAreaElement) || !id) return null;
  const focused = document.activeElement === text;
  return { id, value: text.value, start: text.selectionStart, end: text.selectionEnd, focused };
}

/**
 * Opens the editor again on the same message after a redraw (the thread's history read after
 * a run can land while the user edits), with what was typed in it.
 * @param {HTMLElement} transcript
 * @param {NonNullable<ReturnType<typeof openEditor>>} editing
 */
function reopenEditor(transcript, editing) {
  const el = transcript.querySelector(`.msg[data-id="${CSS.escape(editing.id)}"]`);
  const edit = el?.querySelector("button.msg-edit");
  if (!(edit instanceof HTMLButtonElement)) return;
  edit.click();
  const text = el?.querySelector(".msg-editor textarea");
  if (!(text instanceof HTMLTextAreaElement)) return;
  text.value = editing.value;
  text.setSelectionRange(editing.start, editing.end);
  if (!editing.focused) text.blur();
}

/** @param {string} text */
export function startStreamingBubble(text) {
  $("transcript").querySelector(".empty-hint")?.remove();
  const el = bubble({
    role: "assistant",
    kind: "answer",
    mark: "streaming",
    content: text,
    id: null,
  });
  child(el, ".msg-body").setAttribute("aria-busy", "true");
  $("transcript").append(el);
  app.streamingEl = el;
  drawn.set(el, text.length);
  return el;
}

// How much of its thread's streamed text each streaming bubble shows.
/** @type {WeakMap<HTMLElement, number>} */
const drawn = new WeakMap();
let drawScheduled = false;

// Draws what the active thread's answer gained since the last frame, in one piece.
function drawStreaming() {
  drawScheduled = false;
  const text = view(app.activeId).streaming;
  if (typeof text !== "string") return;
  const el = app.streamingEl;
  if (!el) {
    startStreamingBubble(text);
  } else {
    const shown = drawn.get(el) ?? 0;
    if (text.length <= shown) return;
    child(el, ".msg-body").append(text.slice(shown));
    drawn.set(el, text.length);
  }
  scrollNow(); // drawn at a frame already
}

// The active thread's streamed text grew (events.js keeps it in its view): it is drawn at
// the next animation frame, however many tokens came before it, so that a flood of tokens
// costs one layout per frame and leaves the page free to take clicks. A hidden page, which
// draws no frames, is brought up to date within 250 ms.
export function appendToken() {
  if (drawScheduled) return;
  drawScheduled = true;
  atNextFrame(drawStreaming);
}

// An entry added by this page (what was sent, a tool that ran) before the worker's history.
/** @param {string} threadId @param {Entry} entry */
export function appendEntry(threadId, entry) {
  const v = view(threadId);
  v.messages.push(entry);
  if (threadId === app.activeId) {
    $("transcript").querySelector(".empty-hint")?.remove();
    const el = entryElement(entry);
    if (app.streamingEl) app.streamingEl.before(el);
    else $("transcript").append(el);
    scrollToEnd();
  }
}

/**
 * @param {string} threadId
 * @param {string} role
 * @param {string} content
 * @param {string} [kind]
 */
export function appendMessage(threadId, role, content, kind) {
  appendEntry(threadId, {
    id: null,
    role,
    content,
    kind: kind ?? (role === "user" ? "message" : "answer"),
  });
}

// The streamed answer ends: as the final text (done), or as it stands, marked
// "cancelled" or "stopped".
/**
 * @param {string} threadId
 * @param {string} [finalText]
 * @param {string} [mark]
 */
export function finishStreaming(threadId, finalText, mark) {
  const v = view(threadId);
  const text = finalText ?? v.streaming;
  v.streaming = null;
  if (text === null || text === undefined) return;
  if (text === "" && finalText === undefined) return;
  /** @type {Entry} */
  const entry = { id: null, role: "assistant", kind: "answer", content: text };
  if (mark) entry.mark = mark;
  v.messages.push(entry);
  if (threadId !== app.activeId) return;
  if (app.streamingEl) {
    const el = app.streamingEl;
    app.streamingEl = null;
    el.classList.remove("msg-streaming");
    if (mark) el.classList.add(`msg-${mark}`);
    const body = child(el, ".msg-body");
    body.textContent = text;
    body.setAttribute("aria-busy", "false");
  } else {
    $("transcript").append(entryElement(entry));
  }
  scrollToEnd();
}

// Drops the entries from `entry` on (an edit or a regeneration replaces them).
/** @param {string} threadId @param {Entry} entry */
export function truncateAt(threadId, entry) {
  const v = view(threadId);
  const index = v.messages.indexOf(entry);
  if (index >= 0) v.messages.length = index;
  v.streaming = null;
  if (threadId === app.activeId) renderTranscript();
}
