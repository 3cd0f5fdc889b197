// The transcript of the active thread: one bubble per message, and the answer being streamed.

import { $ } from "./dom.js";
import { app, view } from "./store.js";

export function bubble(role, text, kind) {
  const el = document.createElement("div");
  el.className = `msg msg-${role === "user" ? "user" : role === "assistant" ? "assistant" : "other"}`;
  if (kind) el.classList.add(`msg-${kind}`);
  el.dataset.role = role;
  const who = document.createElement("p");
  who.className = "msg-role";
  who.textContent = role === "user" ? "You" : role === "assistant" ? (kind === "question" ? "Assistant asked" : "Assistant") : role;
  const body = document.createElement("div");
  body.className = "msg-body";
  body.textContent = text;
  el.append(who, body);
  return el;
}

export function scrollToEnd() {
  const transcript = $("transcript");
  transcript.scrollTop = transcript.scrollHeight;
}

export function renderTranscript() {
  const v = view(app.activeId);
  const transcript = $("transcript");
  transcript.replaceChildren();
  app.streamingEl = null;
  for (const m of v.messages) transcript.append(bubble(m.role, m.content, m.kind));
  if (v.streaming !== null) startStreamingBubble(v.streaming);
  if (!v.messages.length && v.streaming === null) {
    const hint = document.createElement("p");
    hint.className = "empty-hint";
    hint.id = "empty-hint";
    hint.textContent = "Ask for something, for example “help me with email”.";
    transcript.append(hint);
  }
  scrollToEnd();
}

export function startStreamingBubble(text) {
  $("transcript").querySelector(".empty-hint")?.remove();
  const el = bubble("assistant", text, "streaming");
  el.querySelector(".msg-body").setAttribute("aria-busy", "true");
  $("transcript").append(el);
  app.streamingEl = el;
  return el;
}

export function appendToken(token) {
  if (!app.streamingEl) startStreamingBubble(view(app.activeId).streaming);
  else app.streamingEl.querySelector(".msg-body").append(token);
  scrollToEnd();
}

export function appendMessage(threadId, role, content, kind) {
  const v = view(threadId);
  v.messages.push({ role, content, kind });
  if (threadId === app.activeId) {
    $("transcript").querySelector(".empty-hint")?.remove();
    const el = bubble(role, content, kind);
    if (app.streamingEl) app.streamingEl.before(el);
    else $("transcript").append(el);
    scrollToEnd();
  }
}

export function finishStreaming(threadId, finalText, kind) {
  const v = view(threadId);
  const text = finalText ?? v.streaming;
  v.streaming = null;
  if (text === null || text === undefined) return;
  if (text === "" && finalText === undefined) return;
  v.messages.push({ role: "assistant", content: text, kind });
  if (threadId !== app.activeId) return;
  if (app.streamingEl) {
    const el = app.streamingEl;
    app.streamingEl = null;
    el.classList.remove("msg-streaming");
    if (kind) el.classList.add(`msg-${kind}`);
    const body = el.querySelector(".msg-body");
    body.textContent = text;
    body.setAttribute("aria-busy", "false");
  } else {
    $("transcript").append(bubble("assistant", text, kind));
  }
  scrollToEnd();
}
