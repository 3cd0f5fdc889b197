// The card under the transcript when a turn waits for the person: the question card.

import { $ } from "./dom.js";
import { active } from "./store.js";

const actions = { answer: () => undefined };

// hooks: {answer(text)}: what the card's buttons and form do.
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

export function renderPending() {
  const v = active();
  const card = $("needs-input");
  const pending = v.pending;
  if (!pending) {
    card.hidden = true;
    delete card.dataset.interruptId;
    return;
  }
  const wasShown = !card.hidden && card.dataset.interruptId === String(pending.interrupt_id ?? "");
  $("needs-input-question").textContent = pending.question ?? "";
  $("needs-input-reason").textContent = pending.reason ?? "";
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
  card.hidden = false;
  if (!wasShown) {
    $("answer-input").value = "";
    $("answer-input").focus();
  }
}
