// The worker protocol: the one Web Worker running Python, what the page posts to it and the
// dispatch of what it posts back.
//
// page -> worker: {op: "send", thread_id, message}, {op: "configure_model", model},
//                 {op: "delete_thread", thread_id}, {op: "two_chats", thread_ids, texts},
//                 {op: "graph"}
// worker -> page: boot {type: "status" | "ready" | "error"}, chat events with a thread_id
//                 (status, token, tool, needs_input, done, error, history), {type: "inspect"},
//                 {type: "model"}, {type: "deleted"}, {type: "graph"}.

import { app, headOf } from "./store.js";

export const worker = new Worker(new URL("../worker.js", import.meta.url), { type: "module" });

export const post = (message) => worker.postMessage(message);

window.__demo = {
  worker,
  get activeThreadId() {
    return app.activeId;
  },
};

// One chat-protocol message for a thread; with `head`, it carries the thread's head checkpoint.
export function sendTo(threadId, message, { head = false } = {}) {
  const checkpoint = head ? headOf(threadId) : null;
  const full = checkpoint ? { ...message, checkpoint_id: checkpoint } : message;
  post({ op: "send", thread_id: threadId, message: full });
}

export function requestHistory(threadId, checkpointId = headOf(threadId)) {
  sendTo(threadId, checkpointId ? { type: "history", checkpoint_id: checkpointId } : { type: "history" });
}

// Boot status and ready (before app.ready) go to boot.boot(msg), a worker failure to
// boot.failed(text), every other message to the handler of `handlers` named by its type.
export function connect(boot, handlers) {
  worker.addEventListener("message", (event) => {
    const msg = event.data;
    if (!msg || typeof msg !== "object") return;
    if (!app.ready && (msg.type === "status" || msg.type === "ready") && !("thread_id" in msg)) {
      boot.boot(msg);
      return;
    }
    const handler = Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
    if (handler) handler(msg);
  });
  worker.addEventListener("error", (event) => {
    event.preventDefault();
    boot.failed(`The Python worker failed: ${event.message || "unknown error"}`);
  });
}
