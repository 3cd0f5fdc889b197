// One transcript entry as the page shows it: a bubble (user message, reply, question, note,
// answer) with its Edit or Regenerate button and its branch switcher, or a tool line.

import { button, make } from "./dom.js";

/**
 * @import { Entry } from "./store.js"
 * What the entries' buttons do.
 * @typedef {object} EntryActions
 * @property {(entry: Entry, text: string) => void} edit
 * @property {(entry: Entry) => void} regenerate
 * @property {(head: string) => void} branch
 */

/** @type {EntryActions} */
const hooks = { edit: () => undefined, regenerate: () => undefined, branch: () => undefined };

/** @param {EntryActions} actions */
export function initEntries(actions) {
  Object.assign(hooks, actions);
}

// A history entry (protocol v2) or a plain {role, content} message, as the page keeps it.
/**
 * @param {any} m parsed JSON
 * @returns {Entry}
 */
export function normalizeEntry(m) {
  const role = String(m?.role ?? "assistant");
  /** @type {Entry} */
  const entry = {
    id: typeof m?.id === "string" && m.id ? m.id : null,
    kind: typeof m?.kind === "string" ? m.kind : role === "user" ? "message" : "answer",
    role,
    content: typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""),
  };
  for (const key of ["name", "arguments", "status", "reason", "choices"]) {
    if (m?.[key] !== undefined) /** @type {Record<string, unknown>} */ (entry)[key] = m[key];
  }
  const branch = m?.branch;
  if (
    branch &&
    Number.isInteger(branch.index) &&
    Number.isInteger(branch.count) &&
    Array.isArray(branch.heads)
  ) {
    entry.branch = { index: branch.index, count: branch.count, heads: branch.heads.map(String) };
  }
  return entry;
}

/** @type {Record<string, string>} */
const ROLE_LABELS = { user: "You", assistant: "Assistant" };

/** @param {Entry} entry */
function roleLabel(entry) {
  if (entry.kind === "question") return "Assistant asked";
  if (entry.kind === "reply") return "You answered";
  return ROLE_LABELS[entry.role] ?? entry.role;
}

/** @param {NonNullable<Entry["branch"]>} branch */
function branchSwitcher({ index, count, heads }) {
  const nav = make("div", "branch-switcher");
  nav.setAttribute("role", "group");
  nav.setAttribute("aria-label", "Branches");
  nav.dataset.index = String(index);
  nav.dataset.count = String(count);
  const previous = button(
    "‹",
    "icon-button branch-prev",
    () => hooks.branch(heads[index - 2]),
    "Previous branch",
  );
  const next = button(
    "›",
    "icon-button branch-next",
    () => hooks.branch(heads[index]),
    "Next branch",
  );
  previous.disabled = index <= 1;
  next.disabled = index >= count;
  const where = make("span", "branch-position", `${index} / ${count}`);
  where.setAttribute("aria-label", `Branch ${index} of ${count}`);
  nav.append(previous, where, next);
  return nav;
}

/**
 * @param {HTMLElement} el the entry's bubble
 * @param {HTMLElement} body its text
 * @param {HTMLElement} tools its buttons
 * @param {Entry} entry
 */
function openEditor(el, body, tools, entry) {
  if (el.querySelector(".msg-editor")) return;
  const form = make("form", "msg-editor");
  const id = `edit-${entry.id}`.replace(/[^\w-]/g, "_");
  const label = make("label", "visually-hidden", "Edit your message");
  label.htmlFor = id;
  const text = make("textarea");
  text.id = id;
  text.rows = 3;
  text.maxLength = 20000;
  text.value = entry.content;
  const save = make("button", "primary-button", "Save");
  save.type = "submit";
  const close = () => {
    form.remove();
    body.hidden = false;
    tools.hidden = false;
    const edit = tools.querySelector(".msg-edit");
    if (edit instanceof HTMLElement) edit.focus();
  };
  const actions = make("div", "card-actions");
  actions.append(save, button("Cancel", "ghost-button", close));
  form.append(label, text, actions);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!text.value.trim()) return;
    hooks.edit(entry, text.value);
  });
  text.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
  });
  body.hidden = true;
  tools.hidden = true;
  body.after(form);
  text.focus();
}

/** @param {Entry} entry */
export function bubble(entry) {
  const role = entry.role;
  const el = make(
    "div",
    `msg msg-${role === "user" ? "user" : role === "assistant" ? "assistant" : "other"}`,
  );
  if (entry.kind) el.classList.add(`msg-${entry.kind}`);
  if (entry.mark) el.classList.add(`msg-${entry.mark}`);
  el.dataset.role = role;
  el.dataset.kind = entry.kind;
  if (entry.id) el.dataset.id = entry.id;
  const body = make("div", "msg-body", entry.content);
  el.append(make("p", "msg-role", roleLabel(entry)), body);
  const tools = make("div", "msg-tools");
  if (entry.branch && entry.branch.count > 1) tools.append(branchSwitcher(entry.branch));
  // A reply is changed by editing the message that led to its question: the answers
  // of one node run share its checkpoint, so none of them is a fork point of its own.
  if (entry.id && entry.kind === "message") {
    tools.append(
      button("Edit", "ghost-button small-button msg-edit", () =>
        openEditor(el, body, tools, entry),
      ),
    );
  }
  if (entry.id && entry.kind === "answer" && !entry.mark) {
    tools.append(
      button("Regenerate", "ghost-button small-button msg-regenerate", () =>
        hooks.regenerate(entry),
      ),
    );
  }
  if (tools.childElementCount) el.append(tools);
  return el;
}

/** @type {Record<string, string>} */
const STATUS_LABELS = {
  approved: "approved, ran",
  edited: "ran with your edits",
  rejected: "rejected",
  ran: "ran",
  pending: "waiting for you",
};

/** @param {unknown} value */
function readable(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(", ");
  return JSON.stringify(value);
}

/** @param {Entry} entry */
export function toolLine(entry) {
  const el = make("div", "tool-line");
  el.dataset.kind = "tool";
  el.dataset.tool = String(entry.name ?? "");
  el.dataset.status = String(entry.status ?? "");
  if (entry.id) el.dataset.id = entry.id;
  const head = make("p", "tool-head");
  head.append(
    make("span", "tool-label", "Tool"),
    " ",
    make("code", "tool-name", entry.name ?? "?"),
    " ",
    make("span", "tool-status", STATUS_LABELS[String(entry.status)] ?? String(entry.status ?? "")),
  );
  el.append(head);
  const args =
    entry.arguments && typeof entry.arguments === "object" ? Object.entries(entry.arguments) : [];
  if (args.length) {
    const list = make("ul", "tool-args");
    list.setAttribute("aria-label", "Arguments");
    for (const [key, value] of args) {
      const li = make("li");
      li.append(
        make("span", "tool-arg-name", `${key}:`),
        " ",
        make("span", "tool-arg-value", readable(value)),
      );
      list.append(li);
    }
    el.append(list);
  }
  if (entry.content) el.append(make("p", "tool-result", entry.content));
  if (entry.branch && entry.branch.count > 1) el.append(branchSwitcher(entry.branch));
  return el;
}

export const entryElement = (/** @type {Entry} */ entry) =>
  entry.kind === "tool" ? toolLine(entry) : bubble(entry);
