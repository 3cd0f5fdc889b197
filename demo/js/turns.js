// What the person starts: a new message, an answer to a question, cancel, two chats at once.

import { $ } from "./dom.js";
import { renderPending } from "./cards.js";
import { setState } from "./controls.js";
import { post, sendTo } from "./protocol.js";
import { app, setTitle, thread, titleFrom, view } from "./store.js";
import { createThread, renderThreads, switchTo } from "./threads.js";
import { appendMessage } from "./transcript.js";

const TWO_CHATS = ["help me with email", "help me with a meeting"];
const CLOSED = ["running", "waiting", "busy", "outdated"];

export function sendChat(text) {
  if (!app.ready || !text.trim()) return;
  const id = app.activeId;
  const v = view(id);
  if (CLOSED.includes(v.state)) return;
  setTitle(id, text);
  renderThreads();
  $("thread-title").textContent = thread(id)?.title ?? "New chat";
  v.sent = text;
  appendMessage(id, "user", text);
  v.stage = "started";
  setState(id, "running");
  sendTo(id, { type: "chat", text }, { head: true });
}

export function answer(text) {
  const id = app.activeId;
  const v = view(id);
  if (!v.pending || !text.trim()) return;
  const { question, interrupt_id: interruptId } = v.pending;
  const message = { type: "resume_chat", resume_value: text };
  if (interruptId !== undefined && interruptId !== null) message.interrupt_id = interruptId;
  v.pending = null;
  renderPending();
  if (question) appendMessage(id, "assistant", question, "question");
  appendMessage(id, "user", text);
  v.stage = "started";
  setState(id, "running");
  sendTo(id, message, { head: true });
  $("chat-input").focus();
}

export function cancelTurn() {
  const id = app.activeId;
  if (view(id).state !== "running") return;
  $("turn-status").textContent = "Cancelling…";
  sendTo(id, { type: "cancel" });
}

export function twoChatsAtOnce() {
  if (!app.ready) return;
  const second = createThread(titleFrom(TWO_CHATS[1]), { activate: false });
  const first = createThread(titleFrom(TWO_CHATS[0]), { activate: false });
  const ids = [first.id, second.id];
  ids.forEach((id, i) => {
    view(id).messages.push({ role: "user", content: TWO_CHATS[i] });
    view(id).stage = "started";
    view(id).state = "running";
  });
  $("inspector-all").checked = true;
  switchTo(first.id, { history: false });
  post({ op: "two_chats", thread_ids: ids, texts: [...TWO_CHATS] });
}
