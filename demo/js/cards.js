// The card under the transcript when a turn waits for the person: the question card (kind
// "question") or the approval card (kind "approval", see approval.js). A refused answer
// (error code bad_decision) keeps the card, with the worker's message on it.

import { $ } from "./dom.js";
import { renderApproval } from "./approval.js";
import { active } from "./store.js";

/**
 * @import { Pending } from "./store.js"
 * What the cards' buttons and forms do.
 * @typedef {{ answer(text: string): void, decide(decisions: unknown[]): void }} CardActions
 */

/** @type {CardActions} */
const actions = { answer: () => undefined, decide: () => undefined };

/** @param {CardActions} hooks */
export function initCards(hooks) {
  Object.assign(actions, hooks);
  $("answer-form", HTMLFormElement).addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("answer-input", HTMLInputElement).value;
    if (!text.trim()) return;
    $("answer-input", HTMLInputElement).value = "";
    actions.answer(text);
  });
}

/** @param {HTMLElement} card */
function hide(card) {
  card.hidden = true;
  delete card.dataset.interruptId;
  delete card.dataset.error;
}

// Whether `card` already shows this pending input with this error (rebuilding it would lose
// what the person typed, and move the focus).
/**
 * @param {HTMLElement} card
 * @param {Pending} pending
 * @param {string | null | undefined} error
 */
function showing(card, pending, error) {
  return (
    !card.hidden &&
    card.dataset.interruptId === String(pending.interrupt_id ?? "") &&
    (card.dataset.error ?? "") === (error ?? "")
  );
}

/** @param {Pending} pending @param {string | null | undefined} error */
function renderQuestion(pending, error) {
  const card = $("needs-input");
  const wasShown = !card.hidden && card.dataset.interruptId === String(pending.interrupt_id ?? "");
  $("needs-input-question").textContent = pending.question ?? "";
  $("needs-input-reason").textContent = pending.reason ?? "";
  $("needs-input-reason").hidden = !pending.reason;
  $("needs-input-error").textContent = error ?? "";
  $("needs-input-error").hidden = !error;
  const choices = $("needs-input-choices");
  choices.replaceChildren();
  for (const choice of Array.isArray(pending.choices) ? pending.choices : []) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "chip-button";
    button.textContent = String(choice);
    button.addEventListener("click", () => actions.answer(String(choice)));
    choices.append(button);
  }
  choices.hidden = choices.childElementCount === 0;
  card.dataset.interruptId = String(pending.interrupt_id ?? "");
  card.dataset.error = error ?? "";
  card.hidden = false;
  if (!wasShown) {
    $("answer-input", HTMLInputElement).value = "";
    $("answer-input", HTMLInputElement).focus();
  }
}

export function renderPending() {
  const v = active();
  const pending = v.pending;
  const question = $("needs-input");
  const approval = $("approval-card");
  if (!pending) {
    hide(question);
    hide(approval);
    return;
  }
  if (pending.kind === "approval") {
    hide(question);
    if (showing(approval, pending, v.cardError)) return;
    const wasShown = !approval.hidden;
    renderApproval(pending, v.cardError, (decisions) => actions.decide(decisions));
    approval.dataset.error = v.cardError ?? "";
    approval.dataset.node = String(pending.node ?? "");
    const first = approval.querySelector(".decision-buttons button");
    if (!wasShown && first instanceof HTMLElement) first.focus();
  } else {
    hide(approval);
    renderQuestion(pending, v.cardError);
  }
}
