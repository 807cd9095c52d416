// One operator action per click: the click makes its Idempotency-Key once; a retry of that click
// sends the same key, so the service does it at most once and says when it replays.
import { el, fill, problemView } from './dom.js';

/**
 * A button that runs `send(key)` with a key made at the click, and an answer area that shows the
 * result (via `describe(answer)`, or `failure(answer)` when it failed and that gives a node) and
 * whether it was replayed, with a "retry with the same key" button after a failure or on request.
 */
export function actionButton(label, send, describe, { id, failure } = {}) {
  const out = el('div', { class: 'answer', 'aria-live': 'polite' });
  let lastKey = null;

  async function run(key) {
    lastKey = key;
    button.disabled = true;
    fill(out, el('p', { class: 'muted' }, 'Sending…'));
    let answer;
    try {
      answer = await send(key);
    } finally {
      button.disabled = false;
    }
    const retry = el(
      'button',
      { type: 'button', class: 'secondary', 'data-role': 'retry', onclick: () => run(lastKey) },
      'Retry with the same key',
    );
    fill(
      out,
      answer.ok ? describe(answer) : (failure && failure(answer)) || problemView(answer),
      el(
        'p',
        { class: 'key muted' },
        'Idempotency-Key ',
        el('code', {}, key),
        answer.replayed ? el('strong', { class: 'replayed' }, ' · replayed: the service answered this key before') : ' · new answer',
        ' ',
        retry,
      ),
    );
    out.dispatchEvent(new CustomEvent('answered', { detail: answer, bubbles: true }));
  }

  const button = el(
    'button',
    {
      type: 'button',
      id,
      onclick: () => run(crypto.randomUUID()),
    },
    label,
  );
  return { button, out };
}
