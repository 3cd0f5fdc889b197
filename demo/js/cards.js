// The card under the transcript when a turn waits for the person: the question card (kind
// "question") or the approval card (kind "approval", see approval.js). A refused answer
// (error code bad_decision) keeps the card, with the worker's message on it.

import { $ } from "./dom.js";
import { renderApproval } from "./approval.js";
import { active } from "./store.js";

const actions = { answer: () => undefined, decide: () => undefined };

// hooks: {answer(text), decide(decisions)}: what the cards' buttons and forms do.
export function initCards(hooks) {
  Object.assign(actions, hooks);
  $("answer-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("answer-input").value;
    if (!text.trim()) return;
    $("answer-input").value = "";
    actions.answer(text);
  });
}

function hide(card) {
  card.hidden = true;
  delete card.dataset.interruptId;
  delete card.dataset.error;
}

// Whether `card` already shows this pending input with this error (rebuilding it would lose
// what the person typed, and move the focus).
function showing(card, pending, error) {
  return (
    !card.hidden &&
    card.dataset.interruptId === String(pending.interrupt_id ?? "") &&
    (card.dataset.error ?? "") === (error ?? "")
  );
}

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
    $("answer-input").value = "";
    $("answer-input").focus();
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
    if (!wasShown) approval.querySelector(".decision-buttons button")?.focus();
  } else {
    hide(approval);
    renderQuestion(pending, v.cardError);
  }
}
