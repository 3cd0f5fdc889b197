// The approval card: each action the assistant wants to take, with its arguments and
// description, and the decisions its review allows (approve, edit in a generated form, reject
// with a reason), as LangChain's human-in-the-loop request and decisions shape them. One
// decision per action; with several actions they are sent together.

import { $, button, make } from "./dom.js";
import { schemaForm } from "./schemaform.js";

/**
 * @import { Pending } from "./store.js"
 * An action the assistant wants to take (parsed JSON: name, arguments, description).
 * @typedef {{ [field: string]: any }} ActionRequest
 * @typedef {{ type: "approve" }
 *   | { type: "edit", edited_action: { name: unknown, args: unknown } }
 *   | { type: "reject", message: string }} Decision
 */

const DECISIONS = ["approve", "edit", "reject"];
/** @type {Record<string, string>} */
const LABELS = { approve: "Approve", edit: "Edit", reject: "Reject" };

/**
 * @param {Pending} pending
 * @param {ActionRequest} request
 * @param {number} index
 * @returns {{ allowed: string[], schema: unknown }}
 */
function configFor(pending, request, index) {
  const configs = Array.isArray(pending.review_configs) ? pending.review_configs : [];
  const config =
    configs.find((/** @type {any} */ c) => c && c.action_name === request.name) ??
    configs[index] ??
    {};
  const allowed = Array.isArray(config.allowed_decisions)
    ? DECISIONS.filter((d) => config.allowed_decisions.includes(d))
    : DECISIONS;
  // LangChain's HITL review config names it args_schema.
  return { allowed, schema: config.args_schema ?? config.arguments_schema ?? null };
}

/** @param {unknown} args */
function argumentList(args) {
  const list = make("dl", "action-arguments");
  const entries = args && typeof args === "object" ? Object.entries(args) : [];
  for (const [key, value] of entries) {
    const shown =
      typeof value === "string"
        ? value
        : Array.isArray(value) && value.every((v) => typeof v === "string")
          ? value.join(", ")
          : JSON.stringify(value, null, 2);
    list.append(
      make("dt", null, key),
      make("dd", typeof value === "string" ? null : "json-value", shown),
    );
  }
  if (!entries.length) list.append(make("dt", null, "arguments"), make("dd", null, "none"));
  return list;
}

/** @param {Decision} decision */
function decisionText(decision) {
  if (decision.type === "approve") return "Your decision: approve.";
  if (decision.type === "edit") return "Your decision: run it with your edited arguments.";
  return `Your decision: reject (“${decision.message}”).`;
}

// JSON with the keys of every object sorted: equal values give equal text.
/**
 * @param {unknown} value
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const object = /** @type {Record<string, unknown>} */ (value);
    const keys = Object.keys(object).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The panel under an action for its edit form.
 * @param {ActionRequest} request
 * @param {unknown} schema
 * @param {boolean} single
 * @param {(decision: Decision) => void} decide
 * @param {() => void} close
 */
function editPanel(request, schema, single, decide, close) {
  const form = make("form", "decision-form edit-form");
  form.noValidate = true;
  const generated = schemaForm(schema, request.arguments);
  form.append(
    make("p", "decision-form-title", `Edit the arguments of ${request.name}`),
    generated.element,
  );
  const problem = make("p", "field-error form-error");
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  const submit = make(
    "button",
    "primary-button",
    single ? "Send edited action" : "Use these arguments",
  );
  submit.type = "submit";
  const actions = make("div", "card-actions");
  actions.append(submit, button("Cancel", "ghost-button", close));
  form.append(problem, actions);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const result = generated.read();
    problem.hidden = result.ok;
    problem.textContent = result.ok ? "" : "Fix the fields marked above first.";
    if (!result.ok) {
      const invalid = form.querySelector("[aria-invalid=true]");
      if (invalid instanceof HTMLElement) invalid.focus();
      return;
    }
    // Arguments left as proposed are an approval: the action runs as the assistant proposed it.
    if (canonical(result.value) === canonical(request.arguments ?? {})) decide({ type: "approve" });
    else decide({ type: "edit", edited_action: { name: request.name, args: result.value } });
  });
  return form;
}

let rejectCount = 0;

/**
 * The panel under an action for its rejection reason.
 * @param {ActionRequest} request
 * @param {boolean} single
 * @param {(decision: Decision) => void} decide
 * @param {() => void} close
 */
function rejectPanel(request, single, decide, close) {
  rejectCount += 1;
  const id = `reject-reason-${rejectCount}`;
  const form = make("form", "decision-form reject-form");
  form.noValidate = true;
  const label = make("label", "field-label", `Why reject ${request.name}?`);
  label.htmlFor = id;
  const reason = make("textarea");
  reason.id = id;
  reason.rows = 2;
  reason.setAttribute("aria-required", "true");
  const error = make("p", "field-error");
  error.id = `${id}-error`;
  error.hidden = true;
  reason.setAttribute("aria-describedby", error.id);
  const submit = make("button", "danger-button", single ? "Send rejection" : "Use this rejection");
  submit.type = "submit";
  const buttons = make("div", "card-actions");
  buttons.append(submit, button("Cancel", "ghost-button", close));
  form.append(label, reason, error, buttons);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = reason.value.trim();
    error.hidden = Boolean(text);
    error.textContent = text ? "" : "Say why, so that the assistant can adjust.";
    if (!text) {
      reason.setAttribute("aria-invalid", "true");
      reason.focus();
      return;
    }
    decide({ type: "reject", message: text });
  });
  return form;
}

/**
 * @param {Pending} pending
 * @param {ActionRequest} request
 * @param {number} index
 * @param {boolean} single
 * @param {(Decision | null)[]} decisions
 * @param {() => void} onDecided
 */
function actionItem(pending, request, index, single, decisions, onDecided) {
  const { allowed, schema } = configFor(pending, request, index);
  const li = make("li", "action-request");
  li.dataset.tool = String(request.name ?? "");
  li.dataset.index = String(index);
  const name = make("h4", "action-name");
  name.append(make("code", null, request.name ?? "?"));
  li.append(name);
  if (request.description) li.append(make("p", "action-description", request.description));
  li.append(argumentList(request.arguments));
  const note = make("p", "decision-note");
  note.hidden = true;
  const buttons = make("div", "card-actions decision-buttons");
  buttons.setAttribute("role", "group");
  buttons.setAttribute("aria-label", `Decision on ${request.name}`);
  const panel = make("div", "decision-panel");
  const decide = (/** @type {Decision} */ decision) => {
    decisions[index] = decision;
    li.dataset.decision = decision.type;
    note.textContent = decisionText(decision);
    note.hidden = single;
    panel.replaceChildren();
    onDecided();
  };
  const close = () => {
    panel.replaceChildren();
    buttons.querySelector("button")?.focus();
  };
  const open = (/** @type {string} */ kind) => {
    const form =
      kind === "edit"
        ? editPanel(request, schema ?? null, single, decide, close)
        : rejectPanel(request, single, decide, close);
    panel.replaceChildren(form);
    const first = form.querySelector("input, textarea, select");
    if (first instanceof HTMLElement) first.focus();
  };
  for (const kind of allowed) {
    const cls =
      kind === "approve"
        ? "primary-button"
        : kind === "reject"
          ? "danger-button"
          : "secondary-button";
    buttons.append(
      button(LABELS[kind], cls, () =>
        kind === "approve" ? decide({ type: "approve" }) : open(kind),
      ),
    );
  }
  li.append(buttons, panel, note);
  return li;
}

/**
 * Fills the card for `pending` (kind "approval"); `send(decisions)` gets one decision per
 * action request, in order. `error` is shown on the card (a refused decision).
 * @param {Pending} pending
 * @param {string | null | undefined} error
 * @param {(decisions: Decision[]) => void} send
 */
export function renderApproval(pending, error, send) {
  const card = $("approval-card");
  const requests = Array.isArray(pending.action_requests) ? pending.action_requests : [];
  const single = requests.length === 1;
  /** @type {(Decision | null)[]} */
  const decisions = requests.map(() => null);
  // Every action has its decision: what send() takes.
  const decided = () => /** @type {Decision[]} */ (decisions.filter(Boolean));
  $("approval-title").textContent = single
    ? `Approve ${requests[0]?.name ?? "this action"}?`
    : `Approve these ${requests.length} actions?`;
  $("approval-error").textContent = error ?? "";
  $("approval-error").hidden = !error;
  const sendAll = $("approval-send", HTMLButtonElement);
  sendAll.hidden = single;
  sendAll.disabled = true;
  sendAll.onclick = () => {
    if (decisions.every(Boolean)) send(decided());
  };
  const onDecided = () => {
    if (single) send(decided());
    else sendAll.disabled = !decisions.every(Boolean);
  };
  $("approval-actions").replaceChildren(
    ...requests.map((/** @type {ActionRequest} */ request, /** @type {number} */ i) =>
      actionItem(pending, request, i, single, decisions, onDecided),
    ),
  );
  card.dataset.interruptId = String(pending.interrupt_id ?? "");
  card.hidden = false;
}
